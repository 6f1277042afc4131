package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fleetsim/fleetsim/pools/catalog"
	"github.com/fleetsim/fleetsim/sim"
	"github.com/fleetsim/fleetsim/sim/export"
)

// TestAutoChargesPromptTokensForPaperProfiles (issue 21, "Prefill is
// charged"): the default timing (auto) charges the papers' hand-written
// a100 profile its prompt tokens — kv + calibrated prefill, P = 86.88
// µs/token (catalog.TestPrefillCostByHand) — so on the papers' fleet the
// default run is slower than --timing kv, where prompt tokens are free;
// the summary line and the Parquet metadata name the resolved form, and a
// run under a named preset has no such key (its bytes stay c9db118's).
func TestAutoChargesPromptTokensForPaperProfiles(t *testing.T) {
	dir := t.TempDir()
	type pool struct {
		TTFT struct {
			P50 float64 `json:"p50"`
		} `json:"ttft_s"`
	}
	read := func(args ...string) (string, map[string]string, []pool) {
		out := filepath.Join(dir, strings.Join(args, "_"))
		code, stdout, errs := runCLI(t, append([]string{"simulate", "--requests", "3000", "--out", out, "--format", "table",
			"--pool", "short:a100:43:4096", "--pool", "long:a100:131:65536"}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
		_, meta, err := export.ReadFileInfo(filepath.Join(out, requestsFile))
		if err != nil {
			t.Fatal(err)
		}
		var sum struct {
			Pools []pool `json:"pools"`
		}
		if err := json.Unmarshal(readBytes(t, filepath.Join(out, summaryFile)), &sum); err != nil {
			t.Fatal(err)
		}
		return stdout, meta, sum.Pools
	}
	outA, metaA, poolsA := read()
	outK, metaK, poolsK := read("--timing", "kv")
	if !strings.Contains(outA, "seed 1, auto (kv + calibrated prefill) timing,") || !strings.Contains(outK, "seed 1, kv timing,") {
		t.Errorf("summary lines:\n%s\n%s", strings.SplitN(outA, "\n", 2)[0], strings.SplitN(outK, "\n", 2)[0])
	}
	if metaA[metaTiming] != "auto (kv + calibrated prefill)" {
		t.Errorf("metadata %s = %q under auto", metaTiming, metaA[metaTiming])
	}
	if v, ok := metaK[metaTiming]; ok {
		t.Errorf("metadata %s = %q under --timing kv: want none", metaTiming, v)
	}
	// A short request (Azure's median prompt is about 1,000 tokens: two
	// chunks) pays about 2 × 512 × 86.88 µs = 89 ms more to its first
	// token; the median TTFT must rise by at least half of that.
	for i := range poolsA {
		if d := poolsA[i].TTFT.P50 - poolsK[i].TTFT.P50; !(d > 0.045) {
			t.Errorf("pool %d: median TTFT %.4f s under auto, %.4f s under kv: prompt tokens not charged", i, poolsA[i].TTFT.P50, poolsK[i].TTFT.P50)
		}
	}
}

// TestCompatPapersIsTimingKV: `simulate --compat papers` is the papers'
// fleet under --timing kv, byte for byte (requests.parquet and
// summary.json), and TestRequestsByteIdenticalC9DB118 pins it to the
// baseline binary's default run.
func TestCompatPapersIsTimingKV(t *testing.T) {
	dir := t.TempDir()
	run := func(name string, args ...string) (req, sum []byte) {
		out := filepath.Join(dir, name)
		if code, _, errs := runCLI(t, append([]string{"simulate", "--requests", "3000", "--out", out}, args...)...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
		return readBytes(t, filepath.Join(out, requestsFile)), readBytes(t, filepath.Join(out, summaryFile))
	}
	reqC, sumC := run("compat", "--compat", "papers")
	reqK, sumK := run("kv", papersFleet...)
	if !bytes.Equal(reqC, reqK) {
		t.Errorf("requests.parquet: --compat papers differs from --timing kv on the papers' fleet")
	}
	if !bytes.Equal(bytes.ReplaceAll(sumC, []byte("/compat/"), []byte("/kv/")), sumK) {
		t.Errorf("summary.json: --compat papers differs from --timing kv on the papers' fleet")
	}
	reqD, _ := run("default")
	if bytes.Equal(reqD, reqK) {
		t.Errorf("the default run equals the papers' kv run: the default should charge prompt tokens on its own fleet")
	}
}

// TestCompatBadInput: a --compat other than papers, or beside a flag that
// would replace the papers' fleet or timing, exits 2 with one line naming
// the flag, and writes nothing.
func TestCompatBadInput(t *testing.T) {
	dir := t.TempDir()
	scen := writeFile(t, dir, "s.yaml", "seed: 2\n")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--compat", "foo"}, `--compat "foo": allowed: papers`},
		{[]string{"--compat", ""}, `--compat "": allowed: papers`},
		{[]string{"--compat", "papers", "--timing", "auto"}, "--timing: not with --compat papers"},
		{[]string{"--compat", "papers", "--pool", "a:a100:1:4096"}, "--pool: not with --compat papers"},
		{[]string{"--compat", "papers", "--config", scen}, "--config: not with --compat papers"},
	} {
		out := filepath.Join(dir, "out")
		code, _, errs := runCLI(t, append([]string{"simulate", "--requests", "100", "--out", out}, c.args...)...)
		if code != 2 || !strings.Contains(errs, c.want) || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
			t.Errorf("%v: exit %d, stderr %q; want 2 and one line with %q", c.args, code, errs, c.want)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("%v: %s exists (err %v)", c.args, out, err)
		}
	}
}

// TestTimingLabel: under auto the label names each resolved preset and
// flags those that charge no prompt tokens (kv, paper: a computed instance
// on a GPU without calibration); a preset named by the user is printed as
// given.
func TestTimingLabel(t *testing.T) {
	paper := sim.PoolConfig{Name: "short", GPU: "a100", Count: 1, MaxContext: 4096}
	computed := sim.PoolConfig{Name: "long", GPU: "a100/llama-3.1-70b/tp8", Count: 1, MaxContext: 65536}
	l40s := sim.PoolConfig{Name: "l", GPU: "l40s/llama-3.1-8b/tp1", Count: 1, MaxContext: 8192} // no calibration: kv
	for _, c := range []struct {
		timing string
		pools  []sim.PoolConfig
		want   string
	}{
		{catalog.TimingAuto, []sim.PoolConfig{paper}, "auto (kv + calibrated prefill)"},
		{catalog.TimingAuto, []sim.PoolConfig{paper, computed}, "auto (kv + calibrated prefill, calibrated)"},
		{catalog.TimingAuto, []sim.PoolConfig{computed}, "auto (calibrated)"},
		{catalog.TimingAuto, []sim.PoolConfig{l40s}, "auto (kv: prompt tokens free)"},
		{catalog.TimingKV, []sim.PoolConfig{paper}, "kv"},
	} {
		if got := (sim.Config{Timing: c.timing, Pools: c.pools}).TimingLabel(); got != c.want {
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

// TestPlanCheckedUnderItsTiming: a plan is simulated under the timing that
// sized it, not under the simulator's default (auto, which charges prompt
// tokens the planners do not): simulate --plan takes the plan's recorded
// timing, kv when a plan records none (the old code left such a plan under
// auto); validate and size simulate under their own --timing (kv or paper,
// as their JSON says) and refuse auto.
func TestPlanCheckedUnderItsTiming(t *testing.T) {
	dir := t.TempDir()
	plan := filepath.Join(dir, "plan.json")
	if code, _, errs := runCLI(t, "plan", "--workload", "azure", "--rate", "50", "--b-short", "4096", "--format", "json", "--out", plan); code != 0 {
		t.Fatalf("plan: exit %d: %s", code, errs)
	}
	var doc map[string]any
	if err := json.Unmarshal(readBytes(t, plan), &doc); err != nil {
		t.Fatal(err)
	}
	if doc["timing"] != catalog.TimingKV {
		t.Fatalf("plan records timing %v, want kv", doc["timing"])
	}
	delete(doc, "timing")
	bare, _ := json.Marshal(doc)
	noTiming := writeFile(t, dir, "notiming.json", string(bare))
	for _, p := range []string{plan, noTiming} {
		code, out, errs := runCLI(t, "simulate", "--plan", p, "--plan-method", "pr", "--requests", "2000", "--no-parquet", "--out", filepath.Join(dir, "o"))
		if code != 0 || !strings.Contains(out, ", kv timing,") {
			t.Errorf("simulate --plan %s: exit %d, %s; want a kv run:\n%s", filepath.Base(p), code, errs, strings.SplitN(out, "\n", 2)[0])
		}
	}
	for _, c := range []struct {
		cmd  []string
		want string
	}{
		{[]string{"validate", "--workload", "azure", "--rate", "50", "--requests", "1000"}, "kv"},
		{[]string{"validate", "--workload", "azure", "--rate", "50", "--requests", "1000", "--timing", "paper"}, "paper"},
		{[]string{"size", "--workload", "azure", "--rate", "20", "--b-short", "4096", "--seeds", "1", "--requests", "1000"}, "kv"},
	} {
		code, out, errs := runCLI(t, append(c.cmd, "--format", "json")...)
		var v struct {
			Timing string `json:"timing"`
		}
		if code != 0 || json.Unmarshal([]byte(out), &v) != nil || v.Timing != c.want {
			t.Errorf("%v: exit %d (%s), timing %q, want %q", c.cmd, code, errs, v.Timing, c.want)
		}
		code, _, errs = runCLI(t, append(c.cmd[:1:1], "--timing", "auto")...)
		if code != 2 || !strings.Contains(errs, `--timing "auto": allowed kv, paper`) {
			t.Errorf("%s --timing auto: exit %d, %q; want 2 and the allowed presets", c.cmd[0], code, errs)
		}
	}
}
