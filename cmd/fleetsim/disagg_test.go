package main

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestDisaggBadInput(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"plan", "--disaggregated", "--method", "retrofit"}, "--method retrofit: --disaggregated sizes length-routed pools only"},
		{[]string{"plan", "--disaggregated", "--method", "pr", "--b-short", "4096", "--slo-ttft-p99", "10ms"}, "P99 TTFT target 0.01 s: not above the P99 prefill of an idle instance"},
		{[]string{"plan", "--disaggregated", "--rate", "0"}, "--rate 0"},
		{[]string{"plan", "--link-gb-s", "5"}, "--link-gb-s 5: needs --disaggregated"},
		{[]string{"plan", "--disaggregated", "--link-gb-s", "-1"}, "--link-gb-s -1"},
		{[]string{"plan", "--disaggregated", "--service-model", "occupancy"}, "--disaggregated: not with"},
		{[]string{"size", "--disaggregated", "--method", "fleetopt"}, "--method fleetopt"},
		{[]string{"size", "--disaggregated", "--rate", "0"}, "--rate 0"},
		{[]string{"size", "--disaggregated", "--link-gb-s", "inf"}, "--link-gb-s +Inf"},
		{[]string{"size", "--disaggregated", "--method", "homo", "--slo-ttft-p99", "10ms"}, "unreachable"},
		// A link so slow that a prompt's transfer overflowed the stage's
		// moments (the error blamed "service-time Cs^2 NaN") or, at 1e-9
		// GB/s, sized 127 million prefill instances: beyond
		// catalog.MaxTransferS, named by the flag.
		{[]string{"plan", "--disaggregated", "--method", "pr", "--b-short", "4096", "--link-gb-s", "1e-300"}, "--link-gb-s 1e-300: kv link: gb_s = 1e-300, latency_s = 0: moving a 4095-token prompt"},
		{[]string{"plan", "--disaggregated", "--method", "pr", "--b-short", "4096", "--link-gb-s", "1e-9"}, "--link-gb-s 1e-09: kv link"},
		{[]string{"size", "--disaggregated", "--method", "homo", "--link-gb-s", "1e-300"}, "--link-gb-s 1e-300: kv link"},
	} {
		code, _, errs := runCLI(t, tt.args...)
		if code != 2 || !strings.Contains(errs, tt.want) || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
			t.Errorf("%v: exit %d, stderr %q (want one line with %q)", tt.args, code, errs, tt.want)
		}
	}
}

// TestPlanDisaggJSON: plan --disaggregated gives both stages per pool;
// the decode stage sees λ·P(L_out >= 2) (every Azure request has
// L_out >= 2 but the shortest) and N_p + N_d is the total.
func TestPlanDisaggJSON(t *testing.T) {
	code, out, errs := runCLI(t, "plan", "--disaggregated", "--method", "pr", "--b-short", "4096", "--rate", "100", "--timing", "kv", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var p disaggPlan
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatal(err)
	}
	if len(p.Pools) != 2 {
		t.Fatalf("%d pools, want short and long", len(p.Pools))
	}
	for _, d := range p.Pools {
		if d.Prefill.Instances < 1 || d.Decode.Instances < 1 || d.Total != d.Prefill.Instances+d.Decode.Instances ||
			d.Decode.ArrivalRate > d.ArrivalRate || d.LinkGBs != 300 || d.Prefill.MeanS >= d.Decode.MeanS {
			t.Errorf("pool %s: %+v", d.Name, d)
		}
	}
}

// TestPlanDisaggTargetBeyondColocated: at P99 TTFT ≤ 150 ms the colocated
// paper model's homogeneous pool cannot (P99 prefill 0.1438 s + one
// iteration 0.0120 s at ρ_max, its own error), but the prefill stage, its
// P99 prefill taken at its own low load, can: exit 0, the colocated counts
// at ρ_max only, with a note.
func TestPlanDisaggTargetBeyondColocated(t *testing.T) {
	code, out, errs := runCLI(t, "plan", "--disaggregated", "--method", "homo", "--slo-ttft-p99", "150ms", "--timing", "kv", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var p disaggPlan
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatal(err)
	}
	if len(p.Pools) != 1 || !strings.Contains(p.ColocatedNote, "cannot meet the TTFT target") || p.SLOTTFTS != 0.15 ||
		p.Pools[0].Prefill.Instances < 1 || !(p.Pools[0].Prefill.P99WaitS <= p.Pools[0].Prefill.WaitBudgetS) {
		t.Errorf("plan %+v", p)
	}
}
