package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// `fleetsim plan --service-model occupancy`: each pool keeps the paper
// model's count in gpus_paper, gets the occupancy model's gpus (fewer: the
// pools of the PR fleets run at slot utilization 0.31–0.69 at the paper's
// sizes, issue 8) and its prediction, and meets the utilization cap.
func TestPlanOccupancy(t *testing.T) {
	code, out, errs := runCLI(t, "plan", "--workload", "azure", "--b-short", "4096", "--method", "pr",
		"--service-model", "occupancy", "--slo-ttft-p99", "500ms", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc struct {
		ServiceModel string `json:"service_model"`
		Methods      []struct {
			Pools []struct {
				Name      string  `json:"name"`
				GPUs      int     `json:"gpus"`
				GPUsPaper int     `json:"gpus_paper"`
				Util      float64 `json:"utilization"`
				TTFT      float64 `json:"p99_ttft_s"`
				Occ       *struct {
					PWait float64 `json:"p_wait"`
					TPOT  float64 `json:"p99_tpot_s"`
				} `json:"occupancy"`
			} `json:"pools"`
		} `json:"methods"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.ServiceModel != "occupancy" {
		t.Errorf("service_model %q", doc.ServiceModel)
	}
	// Paper counts: docs/planner.md §7 (44 + 131).
	paper := map[string]int{"short": 44, "long": 131}
	for _, p := range doc.Methods[0].Pools {
		if p.GPUsPaper != paper[p.Name] || !(p.GPUs < p.GPUsPaper) || p.Util > 0.85 || p.TTFT > 0.5 || p.Occ == nil || !(p.Occ.TPOT > 0) {
			t.Errorf("pool %+v", p)
		}
	}
}

func TestPlanOccupancyBadInput(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--service-model", "mm1"}, "--service-model"},
		{[]string{"--slo-tpot-p99", "20ms"}, "needs --service-model occupancy"},
		{[]string{"--service-model", "occupancy", "--workload", "agent-heavy", "--b-short", "8192", "--slo-ttft-p99", "0.5"}, "unreachable"},
		{[]string{"--service-model", "occupancy", "--slo-tpot-p99", "1ms"}, "unreachable"},
	} {
		args := append([]string{"plan", "--method", "pr", "--b-short", "4096"}, tt.args...)
		code, _, errs := runCLI(t, args...)
		if code != 2 || !strings.Contains(errs, tt.want) || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
			t.Errorf("%v: exit %d, stderr %q (want one line with %q)", tt.args, code, errs, tt.want)
		}
	}
}

// TestPlanOccupancyRecordsSLO: the occupancy plan records the targets it
// applied (issue 19: `--slo-ttft-p99 500ms` sized the pools but the table
// said "P99 TTFT SLO none" and the JSON "slo_ttft_p99_s": 0), and its table
// names them.
func TestPlanOccupancyRecordsSLO(t *testing.T) {
	args := []string{"plan", "--workload", "azure", "--b-short", "4096", "--method", "pr",
		"--service-model", "occupancy", "--slo-ttft-p99", "500ms", "--slo-tpot-p99", "50ms"}
	code, out, errOut := runCLI(t, append(args, "--format", "json")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var doc struct {
		TTFT float64 `json:"slo_ttft_p99_s"`
		TPOT float64 `json:"slo_tpot_p99_s"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.TTFT != 0.5 || doc.TPOT != 0.05 {
		t.Errorf("slo_ttft_p99_s = %g, slo_tpot_p99_s = %g; want 0.5 and 0.05", doc.TTFT, doc.TPOT)
	}
	code, out, errOut = runCLI(t, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if first, _, _ := strings.Cut(out, "\n"); !strings.Contains(first, "P99 TTFT SLO 0.5 s") || !strings.Contains(first, "P99 TPOT SLO 0.05 s") {
		t.Errorf("table header %q: want the P99 TTFT SLO 0.5 s and P99 TPOT SLO 0.05 s", first)
	}
}
