package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/fleetsim/fleetsim/sim"
	"github.com/fleetsim/fleetsim/sim/export"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// repoTestdata is the repository's testdata directory (scenario examples,
// golden files).
const repoTestdata = "../../testdata"

// runCLI runs the command line in-process and returns its exit status,
// stdout and stderr.
func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestSimulateBadInput: every bad input exits with status 2, prints one
// line naming the field or flag and the value, and writes nothing: the
// --out directory is not even created.
func TestSimulateBadInput(t *testing.T) {
	dir := t.TempDir()
	nonMonotone := writeFile(t, dir, "nonmono.json", `[[100, 0.5], [200, 0.4], [300, 1]]`)
	malformed := writeFile(t, dir, "malformed.json", `[[100, 0.5], [200`)
	emptyCDF := writeFile(t, dir, "empty.json", `[]`)
	badTrace := writeFile(t, dir, "bad.csv", "TIMESTAMP,ContextTokens,GeneratedTokens\n"+
		"2023-11-16 18:17:03.9799600,4808,10\n2023-11-16 18:17:04.0319600,many,8\n")
	unknownKey := writeFile(t, dir, "unknown.yaml", "seed: 1\nworklaod:\n  rate: 5\n")
	badValue := writeFile(t, dir, "badvalue.yaml", "workload:\n  rate: -3\n")
	badJSON := writeFile(t, dir, "bad.json", `{"seed": "one"}`)
	badGPU := writeFile(t, dir, "gpu.json", `{"pools": [{"name": "x", "gpu": "b200", "count": 1, "max_ctx": 4096}]}`)
	badBShort := writeFile(t, dir, "bshort.yaml", "router: {kind: cr, b_short: 9000}\n")

	tests := []struct {
		name string
		args []string
		want []string // substrings of the one stderr line
	}{
		{"negative rate", []string{"--rate", "-5"}, []string{"workload.rate", "-5"}},
		{"zero rate", []string{"--rate", "0"}, []string{"workload.rate", "0"}},
		{"rate not a number", []string{"--rate", "fast"}, []string{"rate", "fast"}},
		{"zero requests", []string{"--requests", "0"}, []string{"workload.requests", "0"}},
		{"unknown GPU", []string{"--pool", "x:b200:1:4096"}, []string{"pools[0].gpu", "b200", "a100"}},
		{"max ctx over KV budget", []string{"--pool", "x:a100:1:2000000"}, []string{"pools[0].max_ctx", "2000000", "KV budget"}},
		{"duplicate pool", []string{"--pool", "a:a100:1:4096", "--pool", "a:a100:2:8192"}, []string{"pools[1].name", `"a"`, "duplicate"}},
		{"zero count", []string{"--pool", "a:a100:0:4096"}, []string{"pools[0].count", "0"}},
		{"pool syntax", []string{"--pool", "a:a100:4096"}, []string{"--pool", "a:a100:4096", "NAME:GPU:COUNT:MAXCTX"}},
		{"pool count not int", []string{"--pool", "a:a100:x:4096"}, []string{"--pool", "COUNT", `"x"`}},
		{"unknown dispatch", []string{"--dispatch", "random"}, []string{"pools[0].dispatch", "random", "jsq"}},
		{"unknown timing", []string{"--timing", "fast"}, []string{"timing", "fast", "paper"}},
		{"unknown router", []string{"--router", "magic"}, []string{"router.kind", "magic"}},
		{"warmup 1", []string{"--warmup", "1"}, []string{"warmup_fraction", "1", "[0, 1)"}},
		{"warmup negative", []string{"--warmup", "-0.5"}, []string{"warmup_fraction", "-0.5"}},
		{"negative queue limit", []string{"--queue-limit", "-1"}, []string{"queue_limit", "-1"}},
		{"unknown workload", []string{"--workload", "nosuch"}, []string{"nosuch"}},
		{"non-monotone CDF", []string{"--workload", nonMonotone}, []string{"nonmono.json"}},
		{"malformed CDF", []string{"--workload", malformed}, []string{"malformed.json"}},
		{"empty CDF", []string{"--workload", emptyCDF}, []string{"empty.json"}},
		{"unparseable trace row", []string{"--trace", badTrace}, []string{"bad.csv", "many"}},
		{"missing trace", []string{"--trace", filepath.Join(dir, "nosuch.csv")}, []string{"nosuch.csv"}},
		{"unknown trace format", []string{"--trace", badTrace, "--trace-format", "parquet"}, []string{"trace_format", "parquet"}},
		{"workload and trace", []string{"--workload", "azure", "--trace", badTrace}, []string{"--workload", "--trace"}},
		{"unknown arrival", []string{"--arrival", "uniform"}, []string{"arrival", "uniform"}},
		{"unknown format", []string{"--format", "xml"}, []string{"--format", "xml"}},
		{"unknown flag", []string{"--speed", "9"}, []string{"speed"}},
		{"positional argument", []string{"extra"}, []string{"unknown command", "extra"}},
		{"stray argument", []string{"--seed", "1", "extra"}, []string{"unexpected argument", "extra"}},
		{"missing config", []string{"--config", filepath.Join(dir, "nosuch.yaml")}, []string{"--config", "nosuch.yaml"}},
		{"config unknown key", []string{"--config", unknownKey}, []string{"--config", "worklaod"}},
		{"config bad value", []string{"--config", badValue}, []string{"workload.rate", "-3"}},
		{"config bad JSON type", []string{"--config", badJSON}, []string{"--config", "seed"}},
		{"config unknown GPU", []string{"--config", badGPU}, []string{"pools[0].gpu", "b200"}},
		{"router b_short above the short pool", []string{"--config", badBShort}, []string{"b_short", "9000"}},
		{"zero SLO", []string{"--slo-ttft", "0"}, []string{"slo.ttft_s", "0"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			args := append(append([]string{}, tt.args...), "--out", out)
			if tt.name == "positional argument" {
				args = tt.args
			} else {
				args = append([]string{"simulate"}, args...)
			}
			code, stdout, stderr := runCLI(t, args...)
			if code != 2 {
				t.Fatalf("exit status %d, want 2; stderr: %q", code, stderr)
			}
			if stdout != "" {
				t.Errorf("stdout not empty: %q", stdout)
			}
			if strings.Count(stderr, "\n") != 1 || !strings.HasSuffix(stderr, "\n") {
				t.Errorf("stderr is not one line: %q", stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr %q does not name %q", stderr, w)
				}
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("--out %s was created on bad input", out)
			}
		})
	}
}

// TestSimulateBadInputExistingOut: on bad input an existing --out directory
// is left untouched (no file added).
func TestSimulateBadInputExistingOut(t *testing.T) {
	out := t.TempDir()
	if code, _, _ := runCLI(t, "simulate", "--rate", "-1", "--out", out); code != 2 {
		t.Fatalf("exit status %d, want 2", code)
	}
	if entries, _ := os.ReadDir(out); len(entries) != 0 {
		t.Errorf("--out holds %v after bad input", entries)
	}
}

func TestSimulateHelp(t *testing.T) {
	code, stdout, _ := runCLI(t, "simulate", "--help")
	if code != 0 {
		t.Fatalf("exit status %d", code)
	}
	for _, f := range []string{"--config", "--workload", "--trace", "--trace-format", "--arrival", "--rate", "--requests",
		"--seed", "--pool", "--timing", "--dispatch", "--queue-limit", "--router", "--warmup", "--slo-ttft",
		"--slo-tpot", "--out", "--no-parquet", "--csv", "--format", "short:a100:43:4096", "docs/cli.md"} {
		if !strings.Contains(stdout, f) {
			t.Errorf("--help does not mention %s", f)
		}
	}
}

// smallArgs is a quick scenario: the example file testdata/small.json.
func smallArgs(out string, extra ...string) []string {
	return append([]string{"simulate", "--config", filepath.Join(repoTestdata, "small.json"), "--out", out}, extra...)
}

func readBytes(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestSimulateOutputs: a run writes requests.parquet (one row per request,
// readable back) and summary.json, says where, and leaves no temp file.
func TestSimulateOutputs(t *testing.T) {
	out := filepath.Join(t.TempDir(), "a", "b")
	code, stdout, stderr := runCLI(t, smallArgs(out, "--csv")...)
	if code != 0 {
		t.Fatalf("exit status %d, stderr %q", code, stderr)
	}
	for _, f := range []string{requestsFile, summaryFile, poolsCSVFile} {
		if !strings.Contains(stdout, filepath.Join(out, f)) {
			t.Errorf("stdout does not say it wrote %s:\n%s", f, stdout)
		}
	}
	if !strings.Contains(stdout, "| short ") || !strings.Contains(stdout, "| fleet ") {
		t.Errorf("no per-pool table on stdout:\n%s", stdout)
	}
	entries, _ := os.ReadDir(out)
	if len(entries) != 3 {
		t.Errorf("--out holds %d entries, want 3 (no temporary files): %v", len(entries), entries)
	}
	recs, err := export.ReadParquet(filepath.Join(out, requestsFile))
	if err != nil {
		t.Fatal(err)
	}
	var sum struct {
		Requests int64 `json:"requests"`
		Seed     uint64
		Outputs  []export.OutputFile
	}
	if err := json.Unmarshal(readBytes(t, filepath.Join(out, summaryFile)), &sum); err != nil {
		t.Fatal(err)
	}
	// testdata/small.json: 2,000 requests, seed 3.
	if len(recs) != 2000 || sum.Requests != 2000 || sum.Seed != 3 {
		t.Errorf("%d rows, summary requests %d, seed %d; want 2000, 2000, 3", len(recs), sum.Requests, sum.Seed)
	}
	var outTok int64
	seen := make(map[int64]bool)
	for _, r := range recs {
		outTok += int64(r.OutputTokens)
		seen[r.ID] = true
	}
	if len(seen) != len(recs) {
		t.Errorf("%d distinct ids in %d rows", len(seen), len(recs))
	}
	if len(sum.Outputs) == 0 || sum.Outputs[0].Stats == nil || sum.Outputs[0].Stats.SumOutputTokens != outTok {
		t.Errorf("summary outputs %+v; read back sum(output_tokens) = %d", sum.Outputs, outTok)
	}
}

// TestSimulateJSON: --format json prints summary.json's content, and only
// it, on stdout.
func TestSimulateJSON(t *testing.T) {
	out := t.TempDir()
	code, stdout, stderr := runCLI(t, smallArgs(out, "--format", "json", "--no-parquet")...)
	if code != 0 {
		t.Fatalf("exit status %d, stderr %q", code, stderr)
	}
	if stdout != string(readBytes(t, filepath.Join(out, summaryFile))) {
		t.Error("stdout differs from summary.json")
	}
	if !strings.Contains(stderr, "wrote ") {
		t.Errorf("stderr %q does not say where it wrote", stderr)
	}
	if _, err := os.Stat(filepath.Join(out, requestsFile)); !os.IsNotExist(err) {
		t.Error("--no-parquet wrote requests.parquet")
	}
}

// TestSimulateDeterministic: the same seed gives byte-identical
// requests.parquet and summary.json across runs and across GOMAXPROCS 1
// and 2; another seed gives another file.
func TestSimulateDeterministic(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	var first, firstSum []byte
	for i, procs := range []int{1, 2, 2, 1} {
		runtime.GOMAXPROCS(procs)
		out := t.TempDir()
		if code, _, stderr := runCLI(t, smallArgs(out)...); code != 0 {
			t.Fatalf("run %d: exit status %d, stderr %q", i, code, stderr)
		}
		pq := readBytes(t, filepath.Join(out, requestsFile))
		sm := readBytes(t, filepath.Join(out, summaryFile))
		if i == 0 {
			first, firstSum = pq, sm
			continue
		}
		if !bytes.Equal(pq, first) {
			t.Errorf("run %d (GOMAXPROCS=%d): requests.parquet differs from run 0 (GOMAXPROCS=1)", i, procs)
		}
		if !bytes.Equal(sm, firstSum) {
			t.Errorf("run %d (GOMAXPROCS=%d): summary.json differs from run 0", i, procs)
		}
	}
	out := t.TempDir()
	if code, _, _ := runCLI(t, smallArgs(out, "--seed", "4")...); code != 0 {
		t.Fatal("seed 4 run failed")
	}
	if bytes.Equal(readBytes(t, filepath.Join(out, requestsFile)), first) {
		t.Error("seeds 3 and 4 gave the same requests.parquet")
	}
}

// TestSummaryGolden compares summary.json of the small scenario with
// testdata/small.summary.golden.json; regenerate with
// `go test ./cmd/fleetsim -run TestSummaryGolden -update`.
func TestSummaryGolden(t *testing.T) {
	out := t.TempDir()
	if code, _, stderr := runCLI(t, smallArgs(out)...); code != 0 {
		t.Fatalf("exit status %d, stderr %q", code, stderr)
	}
	got := readBytes(t, filepath.Join(out, summaryFile))
	golden := filepath.Join(repoTestdata, "small.summary.golden.json")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
		for i := range max(len(gl), len(wl)) {
			g, w := "", ""
			if i < len(gl) {
				g = gl[i]
			}
			if i < len(wl) {
				w = wl[i]
			}
			if g != w {
				t.Errorf("summary.json differs from %s at line %d: got %q, want %q (run `go test ./cmd/fleetsim -run TestSummaryGolden -update` if the change is intended)",
					golden, i+1, strings.TrimSpace(g), strings.TrimSpace(w))
				break
			}
		}
	}
}

// TestScenarioFiles: the example scenario files load, and flags override
// them.
func TestScenarioFiles(t *testing.T) {
	f := newSimFlags()
	if err := f.fs.Parse([]string{"--config", filepath.Join(repoTestdata, "scenario.yaml"), "--requests", "500", "--pool", "x:h100:2:8192"}); err != nil {
		t.Fatal(err)
	}
	cfg, err := f.scenario()
	if err != nil {
		t.Fatal(err)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	if cfg.Workload.Requests != 500 || cfg.Workload.Rate != 1000 || len(cfg.Pools) != 1 || cfg.Pools[0].GPU != "h100" {
		t.Errorf("flags did not override the file: %+v", cfg)
	}

	// A trace file without a rate replays its own timestamps, and its
	// relative path is relative to the scenario file.
	f = newSimFlags()
	f.fs.Parse([]string{"--config", filepath.Join(repoTestdata, "trace.yaml")})
	cfg, err = f.scenario()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Workload.CDF != "" || cfg.Workload.Rate != 0 || cfg.Workload.Trace != filepath.Join("..", "..", "workload", "testdata", "AzureLLMInferenceTrace_code.csv") {
		t.Errorf("trace scenario: %+v", cfg.Workload)
	}
	out := t.TempDir()
	if code, _, stderr := runCLI(t, "simulate", "--config", filepath.Join(repoTestdata, "trace.yaml"), "--out", out); code != 0 {
		t.Fatalf("trace scenario: exit status %d, stderr %q", code, stderr)
	}
}

// TestDefaultScenario runs the default command (no subcommand) on a smaller
// request count.
func TestDefaultScenario(t *testing.T) {
	out := t.TempDir()
	code, stdout, stderr := runCLI(t, "--requests", "3000", "--out", out)
	if code != 0 {
		t.Fatalf("exit status %d, stderr %q", code, stderr)
	}
	if !strings.Contains(stdout, "azure workload") || !strings.Contains(stdout, "| long ") {
		t.Errorf("unexpected output:\n%s", stdout)
	}
}

func TestParsePool(t *testing.T) {
	p, err := parsePool("short:a100:43:4096")
	if err != nil || p.Name != "short" || p.GPU != "a100" || p.Count != 43 || p.MaxContext != 4096 {
		t.Errorf("parsePool: %+v, %v", p, err)
	}
}

// TestSimulateOutIsFile: an --out that is a regular file is bad input, and
// the file is left as it was.
func TestSimulateOutIsFile(t *testing.T) {
	p := writeFile(t, t.TempDir(), "out", "keep")
	code, _, stderr := runCLI(t, "simulate", "--requests", "10", "--out", p)
	if code != 2 || !strings.Contains(stderr, "not a directory") {
		t.Fatalf("exit status %d, stderr %q; want 2 and 'not a directory'", code, stderr)
	}
	if b := readBytes(t, p); string(b) != "keep" {
		t.Errorf("the file was changed to %q", b)
	}
}

// TestStopSink: once stopped, the sink refuses records, so sim.Run fails
// and the Parquet file is discarded.
func TestStopSink(t *testing.T) {
	out := t.TempDir()
	pq, err := export.NewParquetSink(filepath.Join(out, requestsFile))
	if err != nil {
		t.Fatal(err)
	}
	var stop atomic.Bool
	s := stopSink{sink: pq, stop: &stop}
	var r sim.Record
	if err := s.Write(&r); err != nil {
		t.Fatal(err)
	}
	stop.Store(true)
	if err := s.Write(&r); !errors.Is(err, errInterrupted) {
		t.Fatalf("Write after stop: %v, want errInterrupted", err)
	}
	pq.Abort()
	if entries, _ := os.ReadDir(out); len(entries) != 0 {
		t.Errorf("output directory holds %v", entries)
	}
}
