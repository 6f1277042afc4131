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

func TestValidateBadInput(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--gpu", "tpu"}, `--gpu "tpu": unknown (allowed: a100`},
		{[]string{"--gpu-long", "tpu"}, `--gpu-long "tpu": unknown`},
		{[]string{"--rate", "-1"}, "--rate -1: must be a finite arrival rate > 0"},
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
		{[]string{"--method", "retrofit", "--gamma", "0.5"}, "--gamma 0.5: must be >= 1"},
		{[]string{"--method", "retrofit", "--p-c", "0"}, "--p-c 0"},
		{[]string{"extra"}, `unexpected argument "extra"`},
	}
	for _, tt := range tests {
		code, out, errs := runCLI(t, append([]string{"validate"}, tt.args...)...)
		if code != 2 || !strings.Contains(errs, tt.want) || out != "" || strings.Count(errs, "\n") != 1 {
			t.Errorf("validate %q: exit %d, stderr %q, stdout %q; want exit 2 and one line containing %q", tt.args, code, errs, out, tt.want)
		}
	}
}
