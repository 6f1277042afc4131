package main

import (
	"cmp"
	"math"
	"path/filepath"
	"slices"
	"testing"

	"github.com/fleetsim/fleetsim/sim"
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
		// A models file's fields: before, 2^63-1 layers printed 3.8e22 bytes/token
		// and 0 blocks, kv_bytes 1e308 printed +Inf bytes/token (exit 0).
		{[]string{"plan", "--memory", "--model", "huge", "--models",
			scen("m1.json", `[{"name":"huge","layers":9223372036854775807,"kv_heads":8,"head_dim":128,"kv_bytes":2,"weight_bytes":1e9}]`)}, "layers"},
		{[]string{"plan", "--memory", "--model", "huge", "--models",
			scen("m2.json", `[{"name":"huge","layers":80,"kv_heads":8,"head_dim":128,"kv_bytes":1e308,"weight_bytes":1e9}]`)}, "kv_bytes"},
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

// TestTinyRates is issue 7 bug 10: a rate so low that the arrivals would
// pass the engines' time range (2^62 ps, about 53 days) is refused with exit
// 2 and the lower bound; near the lowest rate allowed the run is exact:
// a request alone on its GPU has the same TTFT as at a rate 10 times
// higher. Before the fix --rate 1e-12 exited 1 ("engine did not
// progress").
func TestTinyRates(t *testing.T) {
	for _, r := range []string{"1e-12", "1e-11", "5e-324"} {
		args := []string{"simulate", "--rate", r, "--out", filepath.Join(t.TempDir(), "o")}
		code, _, errs := runCLI(t, args...)
		// sim.MinRate(100000) = (100000 + 10·√100000 + 50)/MaxArrivalS
		// = 103212/4.6117e6 = 0.0224 (hand computation).
		oneErrLine(t, args, code, errs, "at least 0.0224 requests/s for 100000 requests")
	}
	// isolated returns the TTFT of every request that had the GPU to
	// itself: the previous request finished before it arrived and it
	// finished before the next arrived. Such a TTFT is its prefill time
	// alone, whatever the arrival time.
	isolated := func(rate string) map[int64]float64 {
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
		slices.SortFunc(recs, func(a, b sim.Record) int { return cmp.Compare(a.ID, b.ID) }) // ids are in arrival order
		m := map[int64]float64{}
		for i, r := range recs {
			if (i == 0 || recs[i-1].FinishS < r.ArrivalS) && (i == len(recs)-1 || r.FinishS < recs[i+1].ArrivalS) {
				m[r.ID] = r.TTFTS
			}
		}
		return m
	}
	// 1,000 requests at 3e-4 req/s, just above sim.MinRate(1000) =
	// 1366/4.6117e6 = 2.96e-4, span about 3.3e6 s, near the end of the
	// engines' range; at 3e-3 req/s they span 3.3e5 s.
	low, mid := isolated("3e-4"), isolated("3e-3")
	worst, both := 0.0, 0
	for id, x := range mid {
		if y, ok := low[id]; ok {
			both++
			worst = math.Max(worst, math.Abs(y-x))
		}
	}
	if both < 900 {
		t.Fatalf("only %d requests isolated at both rates; want most of the 1,000", both)
	}
	if worst > 1e-9 {
		t.Errorf("TTFT of %d isolated requests at 3e-4 req/s differs from 3e-3 req/s by up to %.3g s; want <= 1e-9 s", both, worst)
	}
}
