package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fleetsim/fleetsim/pools/catalog"
	"github.com/fleetsim/fleetsim/sim"
)

// TestAutoDefaultIsKVForPaperProfiles: the default timing (auto) runs the
// papers' hand-written a100 fleet exactly as --timing kv: the summary and
// the per-pool table are byte-identical but for the timing name; the
// summary line names what auto resolved to and, as auto charges prompt
// tokens where it can, says when a pool's preset does not.
func TestAutoDefaultIsKVForPaperProfiles(t *testing.T) {
	dir := t.TempDir()
	read := func(args ...string) (string, []byte, []byte) {
		out := filepath.Join(dir, strings.Join(args, "_"))
		code, stdout, errs := runCLI(t, append([]string{"simulate", "--requests", "3000", "--out", out, "--format", "table"}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
		sum, err := os.ReadFile(filepath.Join(out, "summary.json"))
		if err != nil {
			t.Fatal(err)
		}
		req, err := os.ReadFile(filepath.Join(out, "requests.parquet"))
		if err != nil {
			t.Fatal(err)
		}
		return stdout, sum, req
	}
	outA, sumA, reqA := read()
	outK, sumK, reqK := read("--timing", "kv")
	if !strings.Contains(outA, "seed 1, auto (kv: prompt tokens free) timing,") || !strings.Contains(outK, "seed 1, kv timing,") {
		t.Errorf("summary lines:\n%s\n%s", strings.SplitN(outA, "\n", 2)[0], strings.SplitN(outK, "\n", 2)[0])
	}
	if !bytes.Equal(bytes.Replace(sumA, []byte(`"timing": "auto"`), []byte(`"timing": "kv"`), 1), sumK) {
		t.Errorf("summary.json differs beyond the timing name")
	}
	// requests.parquet carries the run's configuration in its metadata
	// ("auto" is 2 bytes longer than "kv"); compare sizes and the printed
	// table rows instead.
	if len(reqA) != len(reqK)+2 {
		t.Errorf("requests.parquet: %d bytes by default, %d with --timing kv", len(reqA), len(reqK))
	}
	rows := func(s string) (out []string) {
		for _, ln := range strings.Split(s, "\n") {
			if strings.HasPrefix(ln, "|") {
				out = append(out, ln)
			}
		}
		return out
	}
	if a, k := strings.Join(rows(outA), "\n"), strings.Join(rows(outK), "\n"); a != k || a == "" {
		t.Errorf("per-pool tables differ:\n%s\n%s", a, k)
	}
}

// TestTimingLabel: under auto the label names each resolved preset and
// flags those that charge no prompt tokens (kv, paper); a preset named by
// the user is printed as given.
func TestTimingLabel(t *testing.T) {
	paper := sim.PoolConfig{Name: "short", GPU: "a100", Count: 1, MaxContext: 4096}
	computed := sim.PoolConfig{Name: "long", GPU: "a100/llama-3.1-70b/tp8", Count: 1, MaxContext: 65536}
	for _, c := range []struct {
		timing string
		pools  []sim.PoolConfig
		want   string
	}{
		{catalog.TimingAuto, []sim.PoolConfig{paper}, "auto (kv: prompt tokens free)"},
		{catalog.TimingAuto, []sim.PoolConfig{paper, computed}, "auto (kv: prompt tokens free, calibrated)"},
		{catalog.TimingAuto, []sim.PoolConfig{computed}, "auto (calibrated)"},
		{catalog.TimingKV, []sim.PoolConfig{paper}, "kv"},
	} {
		if got := timingLabel(sim.Config{Timing: c.timing, Pools: c.pools}); got != c.want {
			t.Errorf("%s %d pools: %q, want %q", c.timing, len(c.pools), got, c.want)
		}
	}
}

// TestTimingHelp: sweep's --timing axis and fit --from-sim --timing take
// every preset simulate takes (sweep's points are validated as scenarios,
// fit goes through catalog.GPU.EngineConfig); their help names them all.
func TestTimingHelp(t *testing.T) {
	for _, cmd := range []string{"sweep", "fit"} {
		_, stdout, stderr := runCLI(t, cmd, "--help")
		help := stdout + stderr
		i := strings.Index(help, "      --timing")
		if i < 0 {
			t.Fatalf("no --timing in %s --help:\n%s", cmd, help)
		}
		text := help[i+len("      --timing"):]
		if j := strings.Index(text, "\n      --"); j >= 0 {
			text = text[:j] // up to the next flag
		}
		line := strings.Join(strings.Fields(text), " ")
		for _, n := range catalog.TimingNames {
			if !strings.Contains(line, n) {
				t.Errorf("%s --help --timing %q does not name %s", cmd, line, n)
			}
		}
	}
}
