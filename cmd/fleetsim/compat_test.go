package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestPlanCompatPapers: `plan --compat papers` prints FleetOpt Table 3's
// fleets exactly (arXiv 2603.16514 Table 3, Azure: PR 43 + 131, PR + C&R
// 47 + 45, FleetOpt γ* 2.0 48 + 2, homogeneous 284) and §7.4's P99 TTFTs
// (20 / 80 ms within 0.5 ms).
func TestPlanCompatPapers(t *testing.T) {
	code, out, errs := runCLI(t, "plan", "--compat", "papers", "--workload", "azure", "--b-short", "4096", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc struct {
		Calibration string `json:"calibration"`
		Methods     []struct {
			Method string  `json:"method"`
			Gamma  float64 `json:"gamma"`
			Total  int     `json:"total_gpus"`
			Pools  []struct {
				GPUs int     `json:"gpus"`
				TTFT float64 `json:"p99_ttft_s"`
			} `json:"pools"`
		} `json:"methods"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Calibration != "papers" || len(doc.Methods) != 4 {
		t.Fatalf("calibration %q, %d methods", doc.Calibration, len(doc.Methods))
	}
	want := [][]int{{284}, {43, 131}, {47, 45}, {48, 2}}
	for i, m := range doc.Methods {
		var got []int
		for _, p := range m.Pools {
			got = append(got, p.GPUs)
		}
		if len(got) != len(want[i]) || got[0] != want[i][0] || (len(got) > 1 && got[1] != want[i][1]) {
			t.Errorf("%s: %v, paper %v", m.Method, got, want[i])
		}
	}
	if g := doc.Methods[3].Gamma; g != 2 {
		t.Errorf("γ* %v, paper 2.0", g)
	}
	if s, l := 1000*doc.Methods[1].Pools[0].TTFT, 1000*doc.Methods[1].Pools[1].TTFT; s < 19.5 || s > 20.5 || l < 79.5 || l > 80.5 {
		t.Errorf("P99 TTFT %.2f / %.2f ms, paper 20 / 80", s, l)
	}
}

func TestPlanCompatBadInput(t *testing.T) {
	for _, args := range [][]string{
		{"--compat", "paper", "--b-short", "4096"},
		{"--compat", "papers"},
		{"--compat", "papers", "--b-short", "4096", "--calibration", "exact"},
		{"--compat", "papers", "--b-short", "4096", "--pareto"},
		{"--compat", "papers", "--b-short", "70000"},
		{"--compat", "papers", "--b-short", "4096", "--gamma", "0.5"},
	} {
		code, _, errs := runCLI(t, append([]string{"plan"}, args...)...)
		if code != 2 || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
			t.Errorf("%v: exit %d, stderr %q (want 2 and one line)", args, code, errs)
		}
	}
}

// TestPlanSlotRule: --slot-rule capped plans the short pool with the
// token-budget paper's N_seq = min(128, 65,536/⌈4096/16⌉) = 128 slots
// (App. A), where the default scaled rule has 256 (FleetOpt §7.1); an
// unknown rule is exit 2.
func TestPlanSlotRule(t *testing.T) {
	for _, c := range []struct {
		rule  string
		slots float64
	}{{"scaled", 256}, {"capped", 128}} {
		code, out, errs := runCLI(t, "plan", "--workload", "azure", "--b-short", "4096", "--method", "pr", "--slot-rule", c.rule, "--format", "json")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.rule, code, errs)
		}
		var doc map[string]any
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatal(err)
		}
		p := doc["methods"].([]any)[0].(map[string]any)["pools"].([]any)[0].(map[string]any)
		if p["slots"].(float64) != c.slots {
			t.Errorf("%s: %v slots, want %v", c.rule, p["slots"], c.slots)
		}
	}
	if code, _, _ := runCLI(t, "plan", "--b-short", "4096", "--slot-rule", "tight"); code != 2 {
		t.Errorf("unknown slot rule: exit %d", code)
	}
}

// TestValidateCompatPapers: validate --calibration papers simulates the
// papers' own PR fleet (FleetOpt Table 3/5: 43 + 131 for Azure).
func TestValidateCompatPapers(t *testing.T) {
	code, out, errs := runCLI(t, "validate", "--calibration", "papers", "--requests", "3000", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc struct {
		Pools []struct {
			GPUs int `json:"gpus"`
		} `json:"pools"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Pools) != 2 || doc.Pools[0].GPUs != 43 || doc.Pools[1].GPUs != 131 {
		t.Errorf("pools %+v, want 43 + 131", doc.Pools)
	}
}

// TestSimulateCappedPlan: a plan made with --slot-rule capped records 128
// slots for the 4,096-token short pool (the token-budget paper's N_seq,
// App. A); simulate --plan reads the rule back from that count, so the
// simulated pool has 128 slots, not the scaled rule's 256.
func TestSimulateCappedPlan(t *testing.T) {
	dir := t.TempDir()
	plan := filepath.Join(dir, "plan.json")
	if code, _, errs := runCLI(t, "plan", "--workload", "azure", "--b-short", "4096", "--method", "pr", "--slot-rule", "capped",
		"--format", "json", "--out", plan); code != 0 {
		t.Fatalf("plan: exit %d: %s", code, errs)
	}
	code, out, errs := runCLI(t, "simulate", "--plan", plan, "--requests", "2000", "--no-parquet", "--format", "json", "--out", filepath.Join(dir, "run"))
	if code != 0 {
		t.Fatalf("simulate: exit %d: %s", code, errs)
	}
	var sum struct {
		Pools []struct {
			Name  string `json:"name"`
			Slots int    `json:"slots"`
		} `json:"pools"`
	}
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatal(err)
	}
	if len(sum.Pools) != 2 || sum.Pools[0].Slots != 128 || sum.Pools[1].Slots != 16 {
		t.Errorf("simulated pools %+v, want 128 and 16 slots", sum.Pools)
	}
}
