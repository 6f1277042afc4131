package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFitFromSim: `fit --from-sim` under the paper timing recovers the
// catalog's constants (pools/catalog/gpu.go: a100 W = 8 ms, H = 0.65 ms; a10g 6 ms,
// 0.5 ms) to 1e-6 relative (issue 11), and writes a profile file and a plot.
func TestFitFromSim(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		gpu         string
		alpha, beta float64
	}{{"a100", 8, 0.65}, {"a10g", 6, 0.5}} {
		out := filepath.Join(dir, c.gpu+".json")
		png := filepath.Join(dir, c.gpu+".svg")
		code, stdout, errs := runCLI(t, "fit", "--from-sim", "--gpu", c.gpu, "--timing", "paper", "--out", out, "--plot", png, "--format", "json")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.gpu, code, errs)
		}
		var f struct {
			Profiles []struct {
				Alpha float64 `json:"alpha_ms"`
				Beta  float64 `json:"beta_ms"`
			} `json:"profiles"`
		}
		if err := json.Unmarshal([]byte(stdout), &f); err != nil || len(f.Profiles) != 1 {
			t.Fatalf("%s: %v\n%s", c.gpu, err, stdout)
		}
		p := f.Profiles[0]
		if rel(p.Alpha, c.alpha) > 1e-6 || rel(p.Beta, c.beta) > 1e-6 {
			t.Errorf("%s: α = %.9f, β = %.9f; want %v, %v", c.gpu, p.Alpha, p.Beta, c.alpha, c.beta)
		}
		if b, err := os.ReadFile(out); err != nil || string(b) != stdout {
			t.Errorf("%s: --out file differs from stdout (%v)", c.gpu, err)
		}
		if fi, err := os.Stat(png); err != nil || fi.Size() == 0 {
			t.Errorf("%s: no plot: %v", c.gpu, err)
		}
	}
}

func rel(a, b float64) float64 {
	d := (a - b) / b
	if d < 0 {
		return -d
	}
	return d
}

// TestFitBench: the two-point fit of issue 11 through the CLI.
func TestFitBench(t *testing.T) {
	dir := t.TempDir()
	csv := writeFile(t, dir, "b.csv", "mm,hw,prec,bb,itl,thp,dp,tp\nllama,H100,fp16,1,7.0,,1,1\nllama,H100,fp16,64,8.7,,1,1\n")
	code, out, errs := runCLI(t, "fit", "--bench", csv)
	if code != 0 || !strings.Contains(out, "α = 6.973016 ms, β = 0.026984 ms") {
		t.Errorf("exit %d, err %q, out:\n%s", code, errs, out)
	}
}

// TestVariantsBadInput: every bad input ends in one line on stderr and
// exit status 2 (issue 11's list).
func TestVariantsBadInput(t *testing.T) {
	dir := t.TempDir()
	neg := writeFile(t, dir, "neg.csv", "mm,hw,prec,bb,itl\nm,h,p,1,10\nm,h,p,8,9\n")
	one := writeFile(t, dir, "one.csv", "mm,hw,prec,bb,itl\nm,h,p,8,10\nm,h,p,8,11\n")
	empty := writeFile(t, dir, "empty.csv", "mm,hw,prec,bb,itl\n")
	ex, _ := filepath.Abs("../../examples/variants.yaml")
	data, err := os.ReadFile(ex)
	if err != nil {
		t.Fatal(err)
	}
	edit := func(name, from, to string) string {
		s := strings.Replace(string(data), from, to, 1)
		if s == string(data) {
			t.Fatalf("%s: %q not in the example", name, from)
		}
		return writeFile(t, dir, name, s)
	}
	prio0 := edit("prio.yaml", "priority: 2", "priority: 0")
	negBeta := edit("beta.yaml", "beta_ms: 0.075", "beta_ms: -0.075")
	badPol := edit("pol.yaml", "policy: None", "policy: Greedy")
	// A request longer than the simulated instance's KV budget (h100:
	// 1,048,576 tokens) is valid for the model, but --simulate cannot run it:
	// it exited with status 1 (review of issue 11).
	huge := writeFile(t, dir, "huge.yaml", `variants:
  - {name: v1, model: m, accelerator: H100, unit_cost: 1, profile: {alpha_ms: 7.47, beta_ms: 0.044, gamma_ms: 15, delta_ms: 0.0003, max_batch: 512, at_tokens: 211}}
workloads:
  - {name: big, model: m, rate_rpm: 1, in_tokens: 1000000, out_tokens: 100000}
`)
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"β < 0 fitted", []string{"fit", "--bench", neg}, "β < 0"},
		{"β < 0 in a profile", []string{"optimize", "--config", negBeta}, "beta_ms = -0.075"},
		{"empty benchmark", []string{"fit", "--bench", empty}, "no measurements"},
		{"empty group", []string{"fit", "--bench", neg, "--group", "x/y/z/tp1"}, "no such benchmark group"},
		{"one batch size", []string{"fit", "--bench", one}, "2 distinct"},
		{"unknown policy flag", []string{"optimize", "--config", ex, "--policy", "Greedy"}, "--policy"},
		{"unknown policy file", []string{"optimize", "--config", badPol}, `policy = "Greedy"`},
		{"priority < 1", []string{"optimize", "--config", prio0}, "priority = 0"},
		{"no config", []string{"optimize"}, "--config"},
		// A type given twice kept the last count silently.
		{"inventory type twice", []string{"optimize", "--config", ex, "--mode", "limited", "--inventory", "H100=1,H100=2"}, "H100 given twice"},
		{"request beyond the simulated KV", []string{"optimize", "--config", huge, "--simulate", "--requests", "10"}, "--simulate: workload big"},
		// Flags of another mode were ignored without a word (review of
		// issue 11).
		{"--seed without --simulate", []string{"optimize", "--config", ex, "--seed", "7"}, "--seed: only with --simulate"},
		{"--gpu with --bench", []string{"fit", "--bench", ex, "--gpu", "a100"}, "--gpu: only with --from-sim"},
		{"from-sim no gpu", []string{"fit", "--from-sim"}, "--gpu"},
	} {
		code, _, errs := runCLI(t, c.args...)
		if code != 2 || !strings.Contains(errs, c.want) || strings.Count(errs, "\n") != 1 {
			t.Errorf("%s: exit %d, stderr %q; want exit 2 and one line containing %q", c.name, code, errs, c.want)
		}
	}
}

// TestOptimizeSimulateExample runs the documented example (docs/variants.md):
// the unlimited allocation meets every SLO in the simulation.
func TestOptimizeSimulateExample(t *testing.T) {
	code, out, errs := runCLI(t, "optimize", "--config", "../../examples/variants.yaml", "--simulate", "--requests", "5000", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rep struct {
		Allocations []struct {
			Workload, Status, Variant string
			Replicas                  int
		} `json:"allocations"`
		Simulation []struct {
			Workload string   `json:"workload"`
			Misses   []string `json:"misses"`
		} `json:"simulation"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Allocations) != 3 || len(rep.Simulation) != 3 {
		t.Fatalf("%d allocations, %d simulated:\n%s", len(rep.Allocations), len(rep.Simulation), out)
	}
	for _, s := range rep.Simulation {
		if len(s.Misses) > 0 {
			t.Errorf("%s: simulated misses %q", s.Workload, s.Misses)
		}
	}
}

// TestSimulatePoolProfile: a pool whose profile is the paper timing's own
// constants (α = W, β = H, γ = δ = 0) simulates exactly like the GPU's
// paper preset.
func TestSimulatePoolProfile(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "a100.json", `{"profiles": [{"name": "a100", "alpha_ms": 8, "beta_ms": 0.65, "gamma_ms": 0, "delta_ms": 0}]}`)
	base := "workload: {cdf: azure, rate: 100, requests: 3000}\ntiming: paper\npools:\n  - {name: p, gpu: a100, count: 12, max_ctx: 8192%s}\n"
	withProf := writeFile(t, dir, "prof.yaml", strings.Replace(base, "%s", ", profile: a100.json", 1))
	plain := writeFile(t, dir, "plain.yaml", strings.Replace(base, "%s", "", 1))
	summary := func(cfg, out string) map[string]any {
		code, _, errs := runCLI(t, "simulate", "--config", cfg, "--out", filepath.Join(dir, out))
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		b, err := os.ReadFile(filepath.Join(dir, out, "summary.json"))
		if err != nil {
			t.Fatal(err)
		}
		var s map[string]any
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	a, b := summary(withProf, "a"), summary(plain, "b")
	ja, _ := json.Marshal(a["fleet"])
	jb, _ := json.Marshal(b["fleet"])
	if string(ja) != string(jb) {
		t.Errorf("profile run differs from the paper preset:\n%s\n%s", ja, jb)
	}
	bad := writeFile(t, dir, "bad.yaml", strings.Replace(base, "%s", ", profile: missing.json", 1))
	if code, _, errs := runCLI(t, "simulate", "--config", bad); code != 2 || !strings.Contains(errs, "pools[0].profile") {
		t.Errorf("missing profile: exit %d, %q", code, errs)
	}
}

// TestOptimizeProfileFile: a variant's profile_file is the file `fit --out`
// writes, found relative to the variants file.
func TestOptimizeProfileFile(t *testing.T) {
	dir := t.TempDir()
	if code, _, errs := runCLI(t, "fit", "--from-sim", "--gpu", "a100", "--out", filepath.Join(dir, "a100.json")); code != 0 {
		t.Fatalf("fit: exit %d: %s", code, errs)
	}
	cfg := `variants:
  - {name: v, model: llama-70b, accelerator: A100, unit_cost: 2.21, profile_file: a100.json%s}
workloads:
  - {name: w, model: llama-70b, rate_rpm: 600, in_tokens: 100, out_tokens: 64, slo: {ttft_ms: 2000, itl_ms: 60}, priority: 1}
`
	good := writeFile(t, dir, "good.yaml", strings.Replace(cfg, "%s", "", 1))
	code, out, errs := runCLI(t, "optimize", "--config", good, "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var r struct {
		Allocations []struct {
			Status   string  `json:"status"`
			Replicas int     `json:"replicas"`
			MaxRate  float64 `json:"max_rate_rps"`
		} `json:"allocations"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil || len(r.Allocations) != 1 || r.Allocations[0].Status != "ok" || r.Allocations[0].MaxRate <= 0 {
		t.Errorf("%v: %s", err, out)
	}
	bad := writeFile(t, dir, "bad.yaml", strings.Replace(cfg, "%s", ", profile_name: nope", 1))
	if code, _, errs := runCLI(t, "optimize", "--config", bad); code != 2 || !strings.Contains(errs, `no profile named "nope"`) {
		t.Errorf("unknown profile_name: exit %d, %q", code, errs)
	}
}
