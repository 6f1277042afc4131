package variants

import (
	"errors"
	"os"
	"strings"
	"testing"
)

func exampleConfig(t testing.TB) *Config {
	t.Helper()
	data, err := os.ReadFile("../../examples/variants.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := ParseConfig(data)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// TestUnlimitedOneVariant: unlimited mode on a single variant is the
// per-replica sizing: replicas = ⌈rate / throughput(λ*)⌉, the predicted
// metrics are the model's at rate/replicas. With the H100 reference (λ* =
// 72.031 req/s) and 500 req/s: ⌈500/72.031⌉ = 7 replicas at 71.43 req/s.
func TestUnlimitedOneVariant(t *testing.T) {
	prio := 1
	cfg := &Config{
		Variants: []Variant{{Name: "h100", Model: "m", Accelerator: "H100", UnitCost: 3.9,
			Profile: &Profile{Alpha: 7.47, Beta: 0.044, Gamma: 15.415, Delta: 0.000337, MaxBatch: 512, AtTokens: 211}}},
		Workloads: []Workload{{Name: "w", Model: "m", RateRPM: 500 * 60, InTokens: 1155, OutTokens: 211,
			SLO: Targets{TTFT: 500, ITL: 24}, Priority: &prio}},
	}
	r, err := Optimize(cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewModel(h100, 512, 1155, 211)
	if err != nil {
		t.Fatal(err)
	}
	s, _ := m.Size(Targets{TTFT: 500, ITL: 24})
	at, _ := m.Analyze(500.0 / 7)
	a := r.Allocations[0]
	if a.Replicas != 7 || a.Status != StatusOK || a.MaxRate != s.Rate || *a.Predicted != at || a.Cost != 7*3.9 {
		t.Errorf("allocation %+v; want 7 replicas, max rate %v, predicted %+v", a, s.Rate, at)
	}
	if relErr(a.MaxRate, 72.031) > 1e-3 || a.Predicted.ITL > 24 || a.Predicted.TTFT > 500 {
		t.Errorf("max rate %v, ITL %v, TTFT %v", a.MaxRate, a.Predicted.ITL, a.Predicted.TTFT)
	}
}

func TestExampleModes(t *testing.T) {
	cfg := exampleConfig(t)
	for _, mode := range []string{ModeUnlimited, ModeLimited} {
		r, err := Optimize(cfg, Options{Mode: mode})
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range r.Allocations {
			if a.Status != StatusOK || a.Predicted == nil || a.Predicted.TTFT > cfg.Workloads[allocIdx(r, a.Workload)].SLO.TTFT {
				t.Errorf("%s: %+v", mode, a)
			}
		}
		for k, u := range r.Used {
			if mode == ModeLimited && u > cfg.Inventory[k] {
				t.Errorf("limited: %s uses %d of %d", k, u, cfg.Inventory[k])
			}
		}
	}
}

func allocIdx(r *Result, w string) int {
	for i, a := range r.Allocations {
		if a.Workload == w {
			return i
		}
	}
	return -1
}

func TestTransitionPenalty(t *testing.T) {
	// Upstream rule: same accelerator, same replicas: 0; same accelerator:
	// the cost change; another accelerator: 0.1·(old + new) + change.
	a := Candidate{Accelerator: "A", Replicas: 3, Cost: 30}
	for _, c := range []struct {
		b    Candidate
		want float64
	}{
		{Candidate{Accelerator: "A", Replicas: 3, Cost: 30}, 0},
		{Candidate{Accelerator: "A", Replicas: 2, Cost: 20}, -10},
		{Candidate{Accelerator: "B", Replicas: 2, Cost: 20}, 0.1*50 - 10},
	} {
		if got := transition(a, c.b, 0.1); got != c.want {
			t.Errorf("transition to %+v = %v, want %v", c.b, got, c.want)
		}
	}
}

func TestConfigErrors(t *testing.T) {
	data, err := os.ReadFile("../../examples/variants.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ from, to, want string }{
		{"priority: 2", "priority: 0", "workloads[1].priority = 0"},
		{"policy: None", "policy: nope", `policy = "nope"`},
		{"mode: unlimited", "mode: greedy", `mode = "greedy"`},
		{"beta_ms: 0.075", "beta_ms: -0.075", "variants[1].profile.beta_ms = -0.075"},
		{"model: granite-20b\n    rate_rpm", "model: nobody\n    rate_rpm", "no variant serves this model"},
		{"variant: llama3-8b-a100", "variant: granite-20b-h100x2", "serves model"},
		{"rate_rpm: 6000", "rate_rpm: -1", "rate_rpm = -1"},
		{"out_tokens: 211", "out_tokens: 0", "out_tokens = 0"},
		{"unit_cost: 1.30", "unit_cost: .nan", "unit_cost = NaN"},
		{"mode: unlimited", "modes: unlimited", "field modes not found"},
		// One document per file, as the scenario reader (docs/cli.md).
		{"mode: unlimited", "mode: unlimited\n---\nmode: limited", "more than one document"},
	} {
		s := strings.Replace(string(data), c.from, c.to, 1)
		if s == string(data) {
			t.Fatalf("%q not in the example", c.from)
		}
		_, err := ParseConfig([]byte(s))
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q → %q: err = %v, want one line containing %q", c.from, c.to, err, c.want)
		}
	}
	if _, err := ParseConfig(nil); err == nil {
		t.Error("empty file accepted")
	}
	var fe *FieldError
	if _, err := ParsePolicy("x"); !errors.As(err, &fe) {
		t.Errorf("ParsePolicy: %v", err)
	}
	if p, err := ParsePolicy("priority-round-robin"); err != nil || p != PolicyPriorityRoundRobin {
		t.Errorf("ParsePolicy(priority-round-robin) = %q, %v", p, err)
	}
}

// FuzzParseConfig: the variants parser never panics, and whatever it
// accepts optimizes without panicking (small batches keep it fast).
func FuzzParseConfig(f *testing.F) {
	data, err := os.ReadFile("../../examples/variants.yaml")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add([]byte("variants: []\nworkloads: []\n"))
	f.Add([]byte("variants:\n  - {name: v, model: m, accelerator: A, unit_cost: 1, profile: {alpha_ms: 1, beta_ms: 0.1, gamma_ms: 0, delta_ms: 0}}\nworkloads:\n  - {name: w, model: m, rate_rpm: 60, in_tokens: 10, out_tokens: 5, max_batch: 4, slo: {ttft_ms: 100, itl_ms: 2}, priority: 1}\n"))
	f.Add([]byte("[1, 2]"))
	f.Add([]byte("mode: limited\ninventory: {A: -1}\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		cfg, err := ParseConfig(b)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("multi-line error %q", err)
			}
			return
		}
		for _, w := range cfg.Workloads {
			if w.MaxBatch > 64 {
				return
			}
		}
		for _, v := range cfg.Variants {
			if v.Profile != nil && v.Profile.MaxBatch*v.Profile.AtTokens > 4096 {
				return
			}
		}
		if cfg.Validate() == nil {
			for _, mode := range []string{ModeUnlimited, ModeLimited} {
				_, _ = Optimize(cfg, Options{Mode: mode})
			}
		}
	})
}
