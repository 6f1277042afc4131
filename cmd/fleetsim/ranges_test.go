package main

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/fleetsim/fleetsim/sim/export"
)

// TestNumericRanges is issue 7 bug 5: every numeric input has a finite
// range; values outside it are exit 2 with one line naming the input.
// Before the fix `plan --gamma 1e16` overflowed γ·B (a 0-GPU short pool,
// −338% savings, exit 0), `plan --rate 5e-324 --format json` exited 1 on a
// NaN, and `plan --memory --mem-gb 1e308` printed +Inf GB and a negative
// block count.
func TestNumericRanges(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	scen := func(name, body string) string { return writeFile(t, dir, name, body) }
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"plan", "--gamma", "1e16", "--b-short", "4096", "--method", "retrofit"}, "--gamma"},
		{[]string{"plan", "--rate", "5e-324", "--format", "json", "--b-short", "4096"}, "--rate"},
		{[]string{"plan", "--memory", "--mem-gb", "1e308"}, "--mem-gb"},
		{[]string{"plan", "--memory", "--act-gb", "1e308"}, "--act-gb"},
		{[]string{"plan", "--memory", "--tp", "9223372036854775807"}, "--tp"},
		{[]string{"plan", "--slo-ttft-p99", "1e308", "--method", "homo"}, "--slo-ttft-p99"},
		{[]string{"plan", "--estimate-noise", "1e308", "--method", "homo"}, "--estimate-noise"},
		{[]string{"validate", "--gamma", "1e16", "--method", "retrofit"}, "--gamma"},
		{[]string{"validate", "--rate", "1e-300"}, "--rate"},
		{[]string{"simulate", "--router", "cr", "--gamma", "1e16", "--out", out}, "gamma"},
		{[]string{"simulate", "--config", scen("g.yaml", "router: {kind: cr, gamma: 1e16}\n"), "--out", out}, "gamma"},
		{[]string{"simulate", "--config", scen("r.yaml", "router: {retry_delay_s: 1e300}\n"), "--out", out}, "retry_delay_s"},
		{[]string{"simulate", "--config", scen("b.yaml", "workload: {arrival: bursty, burst_ratio: 1e300}\n"), "--out", out}, "burst_ratio"},
		{[]string{"simulate", "--config", scen("c.yaml", "workload: {arrival: bursty, calm_mean_s: 1e300}\n"), "--out", out}, "calm_mean_s"},
		{[]string{"simulate", "--slo-ttft", "1e300", "--out", out}, "slo.ttft_s"},
		{[]string{"simulate", "--rate", "1e300", "--out", out}, "rate"},
		{[]string{"simulate", "--requests", "9000000000000", "--out", out}, "requests"},
	}
	for _, c := range cases {
		code, _, errs := runCLI(t, c.args...)
		oneErrLine(t, c.args, code, errs, c.want)
	}
}

// TestTinyRates is issue 7 bug 10: a rate so low that the run would span
// more than 10^9 s (where float64 seconds lose the resolution iteration
// times need) is refused with exit 2 and the lower bound; at the lowest rate allowed
// the run is exact: every request is alone, so its TTFT is the same as at a
// rate 100 times higher. Before the fix --rate
// 1e-12 exited 1 ("engine did not progress").
func TestTinyRates(t *testing.T) {
	for _, r := range []string{"1e-12", "1e-11", "5e-324"} {
		args := []string{"simulate", "--rate", r, "--out", filepath.Join(t.TempDir(), "o")}
		code, _, errs := runCLI(t, args...)
		oneErrLine(t, args, code, errs, "must be >= 0.0001")
	}
	ttfts := func(rate string) map[int64]float64 {
		out := filepath.Join(t.TempDir(), "o")
		code, _, errs := runCLI(t, "simulate", "--rate", rate, "--requests", "1000", "--warmup", "0",
			"--pool", "x:a100:1:65536", "--out", out)
		if code != 0 {
			t.Fatalf("--rate %s: exit %d: %s", rate, code, errs)
		}
		recs, err := export.ReadParquet(filepath.Join(out, requestsFile))
		if err != nil {
			t.Fatal(err)
		}
		m := map[int64]float64{}
		for _, r := range recs {
			m[r.ID] = r.TTFTS
		}
		return m
	}
	// 1,000 requests at 1e-6 req/s (the lowest rate) span about 10^9 s,
	// the bound; at 1e-4 req/s (a request every 10^4 s) they are as
	// isolated: each finds the GPU idle, so its TTFT is its prefill alone.
	low, mid := ttfts("1e-6"), ttfts("1e-4")
	worst := 0.0
	for id, x := range mid {
		worst = math.Max(worst, math.Abs(low[id]-x))
	}
	// ulp(10^9 s) = 1.2e-7 s; arrival, admission and first token each round once.
	if worst > 1e-6 {
		t.Errorf("TTFT at 1e-6 req/s differs from 1e-4 req/s by up to %.3g s; want <= 1e-6 s", worst)
	}
}
