package main

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestValidateCommand(t *testing.T) {
	code, out, errs := runCLI(t, "validate", "--workload", "lmsys", "--rate", "200", "--b-short", "1536", "--requests", "3000", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var v struct {
		Method   string `json:"method"`
		Requests int    `json:"requests"`
		Pools    []struct {
			Name    string  `json:"name"`
			GPUs    int     `json:"gpus"`
			UtilAna float64 `json:"utilization_ana"`
			UtilSim float64 `json:"utilization_sim"`
		} `json:"pools"`
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if v.Method != "pr" || v.Requests != 3000 || len(v.Pools) != 2 || v.Pools[0].Name != "short" || v.Pools[0].GPUs < 1 {
		t.Errorf("validate json: %+v", v)
	}
	code, out, errs = runCLI(t, "validate", "--workload", "azure", "--rate", "100", "--requests", "2000")
	if code != 0 || !strings.Contains(out, "util ana") || !strings.Contains(out, "short") || !strings.Contains(out, "long") {
		t.Errorf("validate table: exit %d, err %q, out:\n%s", code, errs, out)
	}
}

// TestValidateShortCalibration validates Azure retrofit (B = 4,096,
// γ = 1.5) with 100,000 requests (20% warm-up): under the default model
// (mix, σ = 0.05: 76 + 48 GPUs, docs/planner.md §4) no pool is overloaded
// and no C&R warning is printed; under --short-calibration paper (48 + 45)
// the short pool is overloaded (docs/planner.md §5: +162 req/s backlog
// growth at 200,000 requests) and the warning names the paper model.
func TestValidateShortCalibration(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates 2 × 100,000 requests")
	}
	tests := []struct {
		args       []string
		model      string
		noise      float64
		short      int
		overloaded bool
	}{
		{nil, "mix", 0.05, 76, false},
		{[]string{"--short-calibration", "paper"}, "paper", 0, 48, true},
	}
	for _, tt := range tests {
		args := append([]string{"validate", "--method", "retrofit", "--requests", "100000", "--warmup", "0.2", "--format", "json"}, tt.args...)
		code, out, errs := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("%q: exit %d: %s", tt.args, code, errs)
		}
		var v struct {
			ShortCalibration string   `json:"short_calibration"`
			EstimateNoise    float64  `json:"estimate_noise"`
			Warnings         []string `json:"warnings"`
			Pools            []struct {
				Name       string `json:"name"`
				GPUs       int    `json:"gpus"`
				GPUsSelf   int    `json:"gpus_self_consistent_estimate"`
				Overloaded bool   `json:"overloaded"`
			} `json:"pools"`
		}
		if err := json.Unmarshal([]byte(out), &v); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		if v.ShortCalibration != tt.model || v.EstimateNoise != tt.noise || len(v.Pools) != 2 || v.Pools[0].GPUs != tt.short {
			t.Fatalf("%q: model %q σ %v, pools %+v; want %s σ %v with %d short GPUs", tt.args, v.ShortCalibration, v.EstimateNoise, v.Pools, tt.model, tt.noise, tt.short)
		}
		if v.Pools[0].Overloaded != tt.overloaded || v.Pools[1].Overloaded {
			t.Errorf("%q: overloaded short %v long %v; want short %v, long false", tt.args, v.Pools[0].Overloaded, v.Pools[1].Overloaded, tt.overloaded)
		}
		warned := strings.Contains(strings.Join(v.Warnings, "\n"), "--short-calibration paper (FleetOpt Algorithm 1)")
		if warned != tt.overloaded {
			t.Errorf("%q: C&R warning %v, want %v: %q", tt.args, warned, tt.overloaded, v.Warnings)
		}
	}
	// The table names the model.
	code, out, errs := runCLI(t, "validate", "--method", "retrofit", "--requests", "2000")
	if code != 0 || !strings.Contains(out, "short-calibration mix (") || !strings.Contains(out, "σ = 0.05") || !strings.Contains(out, "GPUs self (est.)") {
		t.Errorf("validate table: exit %d, err %q, out:\n%s", code, errs, out)
	}
	code, out, _ = runCLI(t, "validate", "--method", "retrofit", "--requests", "2000", "--short-calibration", "paper")
	if code != 0 || !strings.Contains(out, "short-calibration paper (FleetOpt Algorithm 1") || !strings.Contains(out, "warning: pool short: no stable operating point") {
		t.Errorf("validate table (paper): exit %d, out:\n%s", code, out)
	}
}

func TestValidateBadInput(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--gpu", "tpu"}, `--gpu "tpu": unknown GPU "tpu" (allowed: a100`},
		{[]string{"--gpu-long", "tpu"}, `--gpu-long "tpu": unknown`},
		{[]string{"--rate", "-1"}, "--rate -1: must be in [1e-06, 1e+09]"},
		{[]string{"--rate", "abc"}, `invalid argument "abc"`},
		{[]string{"--workload", "nope"}, `--workload "nope": not a built-in`},
		{[]string{"--method", "best"}, `--method "best": allowed: homo, pr, retrofit, fleetopt`},
		{[]string{"--b-short", "70000"}, "--b-short 70000 tokens: must be in [1, 65536)"},
		{[]string{"--format", "xml"}, `--format "xml": allowed: table, json`},
		{[]string{"--requests", "-3"}, "--requests -3"},
		{[]string{"--warmup", "1"}, "--warmup 1: must be in [0, 1)"},
		{[]string{"--seed", "0"}, "--seed 0"},
		{[]string{"--rho-max", "1.5"}, "--rho-max 1.5"},
		{[]string{"--calibration", "guess"}, `--calibration "guess": allowed exact, montecarlo`},
		{[]string{"--timing", "fast"}, `--timing "fast": allowed kv, paper`},
		{[]string{"--method", "retrofit", "--gamma", "0.5"}, "--gamma 0.5: must be in [1, 16]"},
		{[]string{"--method", "retrofit", "--p-c", "0"}, "--p-c 0"},
		{[]string{"extra"}, `unexpected argument "extra"`},
		{[]string{"--short-calibration", "exact"}, `--short-calibration "exact": allowed: mix, paper`},
		{[]string{"--method", "retrofit", "--estimate-noise", "0.9"}, "--estimate-noise 0.9"},
		{[]string{"--estimate-noise", "x"}, `invalid argument "x"`},
	}
	for _, tt := range tests {
		code, out, errs := runCLI(t, append([]string{"validate"}, tt.args...)...)
		if code != 2 || !strings.Contains(errs, tt.want) || out != "" || strings.Count(errs, "\n") != 1 {
			t.Errorf("validate %q: exit %d, stderr %q, stdout %q; want exit 2 and one line containing %q", tt.args, code, errs, out, tt.want)
		}
	}
}
