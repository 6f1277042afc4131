package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const convTrace = "../../workload/testdata/AzureLLMInferenceTrace_conv.csv"

// TestCapacityAzureConv runs issue 10's throughput and latency plans on the
// Azure 2023 conversation trace. The unit counts are regression values
// recorded from this implementation (docs/capacity.md shows them); the
// relations between the fields are the model's own rules.
func TestCapacityAzureConv(t *testing.T) {
	code, out, errs := runCLI(t, "capacity", "--trace", convTrace, "--percentile", "0.95,0.99", "--headroom", "0.2",
		"--latency-slo", "1s", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rep capacityReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Requests != 19366 || len(rep.Throughput) != 2 || rep.Latency == nil {
		t.Fatalf("report: %d requests, %d plans, latency %v", rep.Requests, len(rep.Throughput), rep.Latency)
	}
	for i, want := range []int{28, 34} {
		pl := rep.Throughput[i]
		if pl.Units != want || float64(pl.Covered) < pl.Required || float64(pl.WithHeadroom) < 1.2*float64(pl.Covered)-1e-9 {
			t.Errorf("p%g plan: %+v (want %d units)", 100*pl.Percentile, pl, want)
		}
		if len(pl.Windows) != 3 || pl.Windows[0].Buckets != 3502 { // ⌊3501.7/1⌋ + 1
			t.Errorf("windows %+v", pl.Windows)
		}
	}
	if lp := rep.Latency.Plan; lp.MinUnits != 24 || lp.AtMin.P99S > 1 || lp.Units != 29 {
		t.Errorf("latency plan %+v", lp)
	}
}

// TestCapacityWorkloadCDF plans requests sampled from a built-in CDF.
func TestCapacityWorkloadCDF(t *testing.T) {
	code, out, errs := runCLI(t, "capacity", "--workload", "lmsys", "--rate", "50", "--requests", "5000", "--arrival", "bursty", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rep capacityReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil || rep.Requests != 5000 || rep.Throughput[0].Units < 1 {
		t.Errorf("report %+v, %v", rep, err)
	}
}

func TestCapacityBadInput(t *testing.T) {
	dir := t.TempDir()
	gen := func(name, rows string) string {
		return writeFile(t, dir, name, "arrival_s,input_tokens,output_tokens,cached_tokens,thinking_tokens\n"+rows)
	}
	neg := gen("neg.csv", "0,100,10,0,-3\n")
	cached := gen("cached.csv", "0,100,10,101,0\n")
	negIn := gen("negin.csv", "0,-100,10,0,0\n")
	badProfile := writeFile(t, dir, "p.yaml", "tau: -1\n")
	ok := gen("ok.csv", "0,100,10,0,0\n1,200,20,50,0\n")
	plotDir := filepath.Join(dir, "plots")
	if err := os.MkdirAll(filepath.Join(plotDir, "capacity_timeline.png"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string // in the message
	}{
		{[]string{"--trace", neg, "--trace-format", "generic"}, "thinking_tokens"},
		{[]string{"--trace", cached, "--trace-format", "generic"}, "cached_tokens"},
		{[]string{"--trace", negIn, "--trace-format", "generic"}, "input_tokens"},
		{[]string{"--trace", ok, "--trace-format", "generic", "--windows", "0"}, "--windows"},
		{[]string{"--trace", ok, "--trace-format", "generic", "--windows", "1,-5"}, "--windows"},
		{[]string{"--trace", ok, "--trace-format", "generic", "--percentile", "1"}, "--percentile"},
		{[]string{"--trace", ok, "--trace-format", "generic", "--percentile", "0"}, "--percentile"},
		{[]string{"--trace", ok, "--trace-format", "generic", "--percentile", "1.5"}, "--percentile"},
		{[]string{"--trace", ok, "--trace-format", "generic", "--latency-slo", "1s", "--latency-percentile", "1"}, "--latency-percentile"},
		{[]string{"--trace", ok, "--trace-format", "generic", "--profile", "nope"}, "unknown profile"},
		{[]string{"--trace", ok, "--trace-format", "generic", "--profile", badProfile}, "tau"},
		{[]string{"--trace", ok, "--trace-format", "generic", "--max-overload-prob", "1"}, "--max-overload-prob"},
		{[]string{"--trace", ok, "--trace-format", "generic", "--headroom", "-0.1"}, "--headroom"},
		// --simulate's flags without --simulate were ignored without a word
		// (review of issue 10).
		{[]string{"--trace", ok, "--trace-format", "generic", "--instances", "2"}, "--instances: only with --simulate"},
		// A rate so small that arrival times overflow named an internal
		// field (requests[2].arrival_s = +Inf), not the flag.
		{[]string{"--workload", "azure", "--rate", "1e-308", "--requests", "100"}, "--rate 1e-308"},
		{[]string{"--trace", ok, "--trace-format", "generic", "--gpu", "h100"}, "--gpu: only with --simulate"},
		{[]string{"--trace", ok, "--trace-format", "generic", "--format", "xml"}, "--format"},
		{[]string{"--trace", ok, "--trace-format", "generic", "--simulate", "--gpu", "tpu"}, "gpu"},
		{[]string{"--trace", ok, "--trace-format", "generic", "--simulate", "--max-ctx", "100"}, "--max-ctx = 100"},
		{[]string{"--trace", ok, "--trace-format", "generic", "--simulate", "--instances", "0"}, "--instances"},
		{[]string{"--trace", ok, "--trace-format", "generic", "--latency-slo", "fast"}, "--latency-slo"},
		{[]string{"--trace", filepath.Join(dir, "missing.csv")}, "missing.csv"},
		{[]string{"--trace", ok, "--trace-format", "generic", "--plot-dir", plotDir}, "not a regular file"},
		{[]string{}, "--trace FILE or --workload"},
		{[]string{"--workload", "azure"}, "--rate"},
		// An overload target no G up to the bound meets (issue 10).
		{[]string{"--trace", convTrace, "--max-overload-prob", "0", "--max-units", "30"}, "max-units 30"},
		// A latency target the baseline alone breaks.
		{[]string{"--trace", convTrace, "--latency-slo", "100ms"}, "baseline latency alone"},
	} {
		code, out, errs := runCLI(t, append([]string{"capacity"}, c.args...)...)
		if code != 2 || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and one line with %q", c.args, code, out, errs, c.want)
		}
	}
}

// TestCapacitySimulate checks the simulation report's shape on the first
// 3,000 requests of the conversation trace, and the plots.
func TestCapacitySimulate(t *testing.T) {
	if testing.Short() {
		t.Skip("simulation")
	}
	dir := t.TempDir()
	code, out, errs := runCLI(t, "capacity", "--trace", convTrace, "--requests", "3000", "--simulate", "--instances", "1,2,4",
		"--format", "json", "--plot-dir", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rep capacityReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	// Deterministic: the same command gives the same bytes.
	if _, again, _ := runCLI(t, "capacity", "--trace", convTrace, "--requests", "3000", "--simulate", "--instances", "1,2,4",
		"--format", "json", "--plot-dir", dir); again != out {
		t.Error("a second run printed different JSON")
	}
	s := rep.Simulation
	if s == nil || len(s.Points) != 3 || s.Calibration.InstanceTokS <= 0 || !s.Calibration.Baseline.Fitted {
		t.Fatalf("simulation %+v", s)
	}
	for i, pt := range s.Points {
		if pt.Units != float64(pt.Instances)*s.Calibration.UnitsPerInstance || !(pt.SimP99S >= pt.SimP95S) || !(pt.FluidP99S >= pt.FluidP95S) {
			t.Errorf("point %d: %+v", i, pt)
		}
	}
	for _, name := range []string{"capacity_timeline.png", "capacity_distribution.png"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || !strings.HasPrefix(string(b), "\x89PNG") {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestCapacitySimulateAzureConv is issue 10's simulation check on the whole
// conversation trace: at least three fleets around the latency plan, and
// the fluid model below the simulated p99 at each of them (docs/capacity.md
// §5: it underestimates by 4–12% at these loads).
func TestCapacitySimulateAzureConv(t *testing.T) {
	if testing.Short() {
		t.Skip("simulation of 19,366 requests on 3 fleets")
	}
	code, out, errs := runCLI(t, "capacity", "--trace", convTrace, "--latency-slo", "1s", "--simulate", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rep capacityReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	s := rep.Simulation
	if s == nil || len(s.Points) < 3 || s.PlanUnits != 24 {
		t.Fatalf("simulation %+v", s)
	}
	for _, pt := range s.Points {
		if !(pt.Under99 > 0.02 && pt.Under99 < 0.2) {
			t.Errorf("%d instances: fluid p99 %.3f s, simulated %.3f s: underestimate %.1f%%, documented 4–12%%",
				pt.Instances, pt.FluidP99S, pt.SimP99S, 100*pt.Under99)
		}
	}
}

// TestCapacityTinyWindowMessage (review5): a window of 1e-300 s is refused in
// one short line; the window count was printed with %.0f (a 300-digit number).
func TestCapacityTinyWindowMessage(t *testing.T) {
	args := []string{"capacity", "--workload", "azure", "--rate", "10", "--requests", "100", "--windows", "1e-300"}
	code, _, errs := runCLI(t, args...)
	oneErrLine(t, args, code, errs, "windows, at most")
	if len(errs) > 200 {
		t.Errorf("stderr is %d bytes: %q", len(errs), errs)
	}
}
