package main

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/fleetsim/fleetsim/sim/export"
)

// smallSweep is a quick two-pool base scenario.
var smallSweep = []string{"--pool", "short:a100:2:4096", "--pool", "long:a100:4:65536", "--requests", "400"}

func sweepArgs(out string, extra ...string) []string {
	return append(append([]string{"sweep", "--out", out}, smallSweep...), extra...)
}

// TestSweepBadInput: bad input exits with status 2, one line on stderr
// naming the flag or key, and creates nothing.
func TestSweepBadInput(t *testing.T) {
	dir := t.TempDir()
	badFile := writeFile(t, dir, "bad.yaml", "grid:\n  colour: [red]\n")
	unknownTop := writeFile(t, dir, "top.yaml", "grdi:\n  rate: [1]\n")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--rates", "100:1000"}, "a range is START:STOP:STEP"},
		{[]string{"--rates", "100:50:10"}, "STOP 50 is below START 100"},
		{[]string{"--rates", "abc"}, `"abc" is not a finite number`},
		{[]string{"--pool-counts", "medium=1,2"}, `no pool named "medium"`},
		{[]string{"--gpu", "v100"}, "pools[0].gpu"},
		{[]string{"--router", "magic"}, "router.kind"},
		{[]string{"--shard", "3/2"}, `--shard "3/2": want 0 <= I < N`},
		{[]string{"--shard", "x"}, "--shard \"x\": want I/N"},
		{[]string{"--preset", "nope"}, `--preset "nope"`},
		{[]string{"--sweep", badFile}, `sweep key "colour": unknown`},
		{[]string{"--sweep", unknownTop}, "grdi"},
		{[]string{"--find-max-rate"}, "--duration 0: --find-max-rate needs"},
		{[]string{"--find-max-rate", "--duration", "60", "--rates", "1,2"}, `sweep key "rate" has 2 values`},
		{[]string{"--find-max-rate", "--duration", "60", "--gpu", "a10g"}, "pools[1].max_ctx"},
		{[]string{"--find-max-rate", "--duration", "60", "--shard", "0/2"}, "not with --find-max-rate"},
		{[]string{"--workers", "-1"}, "--workers -1"},
		{[]string{"--rate", "5"}, "unknown flag: --rate"},
	} {
		out := filepath.Join(dir, "out")
		code, _, stderr := runCLI(t, sweepArgs(out, tc.args...)...)
		if code != 2 || !strings.Contains(stderr, tc.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q; want 2 and one line containing %q", tc.args, code, stderr, tc.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%v: created %s", tc.args, out)
		}
	}
}

// TestSweepOutputs runs a small grid and checks every output: sweep.parquet
// (one fleet row and one row per pool for each point), the table, and the
// plots (the PNG decodes).
func TestSweepOutputs(t *testing.T) {
	out := filepath.Join(t.TempDir(), "s")
	code, stdout, stderr := runCLI(t, sweepArgs(out, "--rates", "20:60:20", "--seeds", "1,2", "--points")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	rows, err := export.ReadSweepParquet(filepath.Join(out, sweepFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 6*3 {
		t.Fatalf("%d rows, want 18 (6 points × fleet + 2 pools)", len(rows))
	}
	if r := rows[4]; r.Point != 1 || r.Label != "rate=20 seed=2" || r.Pool != "short" || r.Seed != 2 || r.RateRPS != 20 || r.GPUs != 2 {
		t.Errorf("row 4: %+v", r)
	}
	if !strings.Contains(stdout, "| 5 | rate=60 seed=2 | long |") {
		t.Errorf("stdout lacks point 5's long row:\n%s", stdout)
	}
	for _, name := range []string{sweepTable, "ttft_p99.svg", "utilization.png", "cost.png", "points/point-000005.parquet"} {
		if _, err := os.Stat(filepath.Join(out, name)); err != nil {
			t.Error(err)
		}
	}
	f, err := os.Open(filepath.Join(out, "ttft_p99.png"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("ttft_p99.png: %v", err)
	}
	if b := img.Bounds(); b.Dx() < 400 || b.Dy() < 250 {
		t.Errorf("ttft_p99.png is %v", b)
	}
}

// TestSweepSameBytesAnyWorkers: sweep.parquet does not depend on the
// number of workers.
func TestSweepSameBytesAnyWorkers(t *testing.T) {
	dir := t.TempDir()
	var files [][]byte
	for _, w := range []string{"1", "3"} {
		out := filepath.Join(dir, w)
		if code, _, stderr := runCLI(t, sweepArgs(out, "--rates", "20,40", "--pool-counts", "short=1,2", "--workers", w, "--no-plots")...); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		b, err := os.ReadFile(filepath.Join(out, sweepFile))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, b)
	}
	if !bytes.Equal(files[0], files[1]) {
		t.Error("sweep.parquet differs between 1 and 3 workers")
	}
}

// TestSweepShardUnion: the parts of N shards, read back and ordered by
// (point, pool_index) as the documented DuckDB query does, equal the
// unsharded sweep.parquet row for row.
func TestSweepShardUnion(t *testing.T) {
	dir := t.TempDir()
	grid := []string{"--rates", "20,40,60", "--router", "length,token-budget", "--no-plots"}
	whole := filepath.Join(dir, "whole")
	if code, _, stderr := runCLI(t, sweepArgs(whole, grid...)...); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want, err := export.ReadSweepParquet(filepath.Join(whole, sweepFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{2, 4, 7} { // 7 > 6 points: one shard is empty
		out := filepath.Join(dir, "sharded", string(rune('0'+n)))
		for i := range n {
			args := sweepArgs(out, append(grid, "--shard", string(rune('0'+i))+"/"+string(rune('0'+n)))...)
			if code, _, stderr := runCLI(t, args...); code != 0 {
				t.Fatalf("shard %d/%d: exit %d: %s", i, n, code, stderr)
			}
		}
		parts, _ := filepath.Glob(filepath.Join(out, partsDir, "*.parquet"))
		if len(parts) != n {
			t.Fatalf("N=%d: %d parts", n, len(parts))
		}
		var got []export.SweepRow
		for _, p := range parts {
			rows, err := export.ReadSweepParquet(p)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, rows...)
		}
		slices.SortFunc(got, func(a, b export.SweepRow) int {
			if a.Point != b.Point {
				return int(a.Point - b.Point)
			}
			return int(a.PoolIndex - b.PoolIndex)
		})
		if !reflect.DeepEqual(got, want) {
			t.Errorf("N=%d: the union of the parts differs from the unsharded sweep (%d rows vs %d)", n, len(got), len(want))
		}
	}
}

// TestSweepFile: a sweep file's grid and duration; a flag replaces the
// file's axis of the same key.
func TestSweepFile(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "base.yaml", "pools:\n  - {name: one, gpu: a100, count: 2, max_ctx: 8192}\n")
	sf := writeFile(t, dir, "s.yaml", "scenario: base.yaml\nduration_s: 20\ngrid:\n  rate: 10:30:10\n  count: [1, 2]\n")
	out := filepath.Join(dir, "out")
	code, _, stderr := runCLI(t, "sweep", "--sweep", sf, "--rates", "5,15", "--out", out, "--no-plots")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	rows, err := export.ReadSweepParquet(filepath.Join(out, sweepFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 4*2 {
		t.Fatalf("%d rows, want 8 (4 points × fleet + 1 pool)", len(rows))
	}
	if r := rows[7]; r.Label != "rate=15 count=2" || r.Requests != 300 || r.Pool != "one" || r.GPUs != 2 {
		t.Errorf("last row: label %q, requests %d (want ceil(15 × 20) = 300), pool %s, gpus %d", r.Label, r.Requests, r.Pool, r.GPUs)
	}
}

// TestFindMaxRateCLI runs a short search and checks the report's shape.
func TestFindMaxRateCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("runs about 30 short simulations")
	}
	out := filepath.Join(t.TempDir(), "m")
	code, stdout, stderr := runCLI(t, "sweep", "--find-max-rate", "--pool", "a:a10g:1:2048", "--workload", "lmsys", "--timing", "kv",
		"--duration", "60", "--seeds", "1,2", "--rate-tol", "0.05", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, s := range []string{"| seed | saturated_rps | held_rps | fired_rps |", "\n| 1 | ", "\n| 2 | ", "Every seed held at"} {
		if !strings.Contains(stdout, s) {
			t.Errorf("stdout lacks %q:\n%s", s, stdout)
		}
	}
	if _, err := os.Stat(filepath.Join(out, maxRateFile)); err != nil {
		t.Error(err)
	}
}

// TestSweepExampleFile: the example sweep file of docs/sweep.md decodes and
// validates (30 points: 5 rates × 3 short-pool sizes × 2 seeds).
func TestSweepExampleFile(t *testing.T) {
	f := newSweepFlags()
	if err := f.fs.Parse([]string{"--sweep", filepath.Join(repoTestdata, "sweep.yaml")}); err != nil {
		t.Fatal(err)
	}
	g, _, err := f.grid()
	if err != nil {
		t.Fatal(err)
	}
	if g.Size() != 30 || g.DurationS != 120 || g.Base.Pools[1].Count != 131 {
		t.Errorf("size %d, duration %v, long pool %d; want 30, 120, 131", g.Size(), g.DurationS, g.Base.Pools[1].Count)
	}
}

// TestSweepBadWorkload: a missing CDF file is bad input found before any
// run: exit 2, one line, no output directory.
func TestSweepBadWorkload(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	code, _, stderr := runCLI(t, sweepArgs(out, "--workload", filepath.Join(t.TempDir(), "none.json"), "--rates", "1")...)
	if code != 2 || !strings.Contains(stderr, "none.json") || strings.Count(stderr, "\n") != 1 {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("created %s", out)
	}
}

// TestSweepInterruptedLeavesNothing: a sweep stopped before it ends
// removes the directories it created and the per-point files it wrote.
func TestSweepInterruptedLeavesNothing(t *testing.T) {
	f := newSweepFlags()
	out := filepath.Join(t.TempDir(), "out")
	if err := f.fs.Parse(append([]string{"--out", out, "--points", "--rates", "20,40,60", "--workers", "1"}, smallSweep...)); err != nil {
		t.Fatal(err)
	}
	g, shard, err := f.grid()
	if err != nil {
		t.Fatal(err)
	}
	// Stop once the first point's request file exists.
	stop := func() bool {
		m, _ := filepath.Glob(filepath.Join(out, pointsDir, "point-*.parquet"))
		return len(m) > 0
	}
	var stdout, stderr bytes.Buffer
	if err := f.runGrid(g, shard, &stdout, &stderr, stop); err == nil || !strings.Contains(err.Error(), "interrupted") {
		t.Fatalf("runGrid = %v, want interrupted", err)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("%s left behind", out)
	}
}
