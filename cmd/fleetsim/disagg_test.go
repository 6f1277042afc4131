package main

import (
	"encoding/json"
	"os"
	"path/filepath"
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
		// Between 12·W = 96 ms and the idle P99 prefill with the prompt's own
		// KV tokens, 99.15 ms (size's occupancy floor, the simulator's): was
		// planned (1,213 prefill instances at 96.01 ms).
		{[]string{"plan", "--disaggregated", "--method", "homo", "--rate", "100", "--timing", "kv", "--slo-ttft-p99", "97ms"}, "P99 TTFT target 0.097 s: not above the P99 prefill of an idle instance, 0.09915 s"},
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

// TestPlanDisaggSimulate: plan --help says its --format json output can be
// given to 'simulate --plan'; a --disaggregated plan was refused ("no
// methods"). Now its pools are simulated as planned: pr at 100 req/s on
// A100s (docs/cli.md: short 1 + 5, long 1 + 13), each pool disaggregated
// with the plan's counts, link and KV bytes, the length router at the
// short pool's max context; two methods need --plan-method.
func TestPlanDisaggSimulate(t *testing.T) {
	dir := t.TempDir()
	code, out, errs := runCLI(t, "plan", "--disaggregated", "--b-short", "4096", "--rate", "100", "--timing", "kv", "--format", "json")
	if code != 0 {
		t.Fatalf("plan: exit %d: %s", code, errs)
	}
	plan := writeFile(t, dir, "plan.json", out)
	code, _, errs = runCLI(t, "simulate", "--plan", plan, "--requests", "3000", "--out", filepath.Join(dir, "both"))
	if code != 2 || !strings.Contains(errs, "holds methods homo, pr; name one with --plan-method") {
		t.Errorf("two methods: exit %d, stderr %q", code, errs)
	}
	od := filepath.Join(dir, "pr")
	code, _, errs = runCLI(t, "simulate", "--plan", plan, "--plan-method", "pr", "--requests", "3000", "--out", od)
	if code != 0 {
		t.Fatalf("simulate --plan: exit %d: %s", code, errs)
	}
	b, err := os.ReadFile(filepath.Join(od, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Config struct {
			Workload struct {
				CDF  string  `json:"cdf"`
				Rate float64 `json:"rate"`
			} `json:"workload"`
			Router struct {
				Kind   string `json:"kind"`
				BShort int    `json:"b_short"`
			} `json:"router"`
		} `json:"config"`
		Pools []struct {
			Name   string `json:"name"`
			GPUs   int    `json:"gpus"`
			MaxCtx int    `json:"max_ctx"`
			Disagg *struct {
				Prefill int     `json:"prefill"`
				Decode  int     `json:"decode"`
				LinkGBs float64 `json:"link_gb_s"`
			} `json:"disaggregated"`
		} `json:"pools"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	want := []struct {
		name        string
		ctx, np, nd int
	}{{"short", 4096, 1, 5}, {"long", 65536, 1, 13}}
	if len(s.Pools) != 2 || s.Config.Workload.CDF != "azure" || s.Config.Workload.Rate != 100 {
		t.Fatalf("summary: workload %+v, %d pools", s.Config.Workload, len(s.Pools))
	}
	for i, w := range want {
		p := s.Pools[i]
		if p.Name != w.name || p.MaxCtx != w.ctx || p.Disagg == nil || p.Disagg.Prefill != w.np || p.Disagg.Decode != w.nd || p.GPUs != w.np+w.nd || p.Disagg.LinkGBs != 300 {
			t.Errorf("pool %d: %+v (disaggregated %+v), want %s at %d tokens, %d + %d over 300 GB/s", i, p, p.Disagg, w.name, w.ctx, w.np, w.nd)
		}
	}
}

// TestSizeHelpTiming: size --disaggregated takes any timing preset (the
// stages and the simulation run it; docs/cli.md), but size --help said
// "kv or paper" only.
func TestSizeHelpTiming(t *testing.T) {
	code, out, _ := runCLI(t, "size", "--help")
	if code != 0 || !strings.Contains(strings.Join(strings.Fields(out), " "), "with --disaggregated any of auto, paper, kv, measured, calibrated") {
		t.Errorf("exit %d; size --help does not say --disaggregated takes every preset:\n%s", code, out)
	}
}
