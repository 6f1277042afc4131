package experiments

import (
	"fmt"

	"github.com/fleetsim/fleetsim/pools/catalog"
	"github.com/fleetsim/fleetsim/pools/fleetopt"
	"github.com/fleetsim/fleetsim/workload"
)

// fleetOptTTFTPaper is FleetOpt §7.4's analytical P99 TTFT of the PR
// fleets, ms (short, long).
var fleetOptTTFTPaper = map[string][2]float64{
	"azure": {20, 80}, "lmsys": {11, 48}, "agent-heavy": {47, 220},
}

// meanPrefillIters is E[⌈L_in/chunk⌉] over the integer lengths of the
// slice (lo, hi] of cdf (uniform inside each bucket, L_in = ⌊f·L⌋ ≥ 1).
func meanPrefillIters(cdf *workload.CDF, lo, hi, chunk int, f float64) float64 {
	var sum, mass float64
	prevT, prevF := 0, 0.0
	for _, p := range cdf.Points {
		a, b := max(prevT, lo)+1, min(p.Tokens, hi)
		if b >= a && p.F > prevF {
			w := (p.F - prevF) / float64(p.Tokens-prevT) // per integer length
			for L := a; L <= b; L++ {
				lin := max(1, int(f*float64(L)))
				sum += w * float64((lin+chunk-1)/chunk)
				mass += w
			}
		}
		prevT, prevF = p.Tokens, p.F
	}
	if mass == 0 {
		return 0
	}
	return sum / mass
}

// FleetOptTTFT reproduces FleetOpt §7.4's analytical P99 TTFTs of the PR
// fleets. The papers' simulator computes a pool's P99 TTFT as Kimura's P99
// slot wait plus the *mean* prefill time at one active sequence,
// E[⌈L_in/512⌉]·t_iter(1) with t_iter(1) = W + H = 8.65 ms. Ours applies
// that convention to exact moments (or, with --compat papers, to the
// papers' Monte Carlo draw); the planner's own prediction (P99 wait + P99
// prefill + one iteration at the operating point) is shown beside it.
func FleetOptTTFT(o Options) ([]Table, error) {
	t := Table{
		Name:    "fleetopt-ttft",
		Title:   "FleetOpt §7.4 — analytical P99 TTFT of the PR fleets (ms), the papers' convention: P99 wait + mean prefill at t_iter(1) = W + H",
		Source:  "FleetOpt (arXiv 2603.16514) §7.4",
		Columns: append([]string{"workload", "pool", "Monte Carlo (papers' draw)", "planner default (P99 prefill at the operating point)"}, CompareColumns...),
	}
	g, err := catalog.LookupGPU("a100")
	if err != nil {
		return nil, err
	}
	for _, c := range fleetOptCases {
		pl, _, err := newPlanner(c.Workload, fleetopt.Config{Rate: FleetOptRate, BShort: c.BShort, PC: c.PC})
		if err != nil {
			return nil, err
		}
		plan, err := pl.Run([]string{fleetopt.MethodPR})
		if err != nil {
			return nil, err
		}
		cp, err := compatPlan(c.Workload, FleetOptRate, c.BShort, c.PC, []string{fleetopt.MethodPR})
		if err != nil {
			return nil, err
		}
		cdf, err := workload.LoadCDF(c.Workload)
		if err != nil {
			return nil, err
		}
		for i, name := range []string{"short", "long"} {
			ep, _ := poolOf(plan.Methods[0], name)
			mc, _ := poolOf(cp.Methods[0], name)
			lo, hi := 0, c.BShort
			if name == "long" {
				lo, hi = c.BShort, fleetopt.DefaultLongCtx
			}
			exact := ep.P99WaitS + meanPrefillIters(cdf, lo, hi, g.ChunkTokens, workload.DefaultInputFraction)*(g.W+g.H)
			ours := exact
			if o.Compat == CompatPapers {
				ours = mc.P99TTFTS
			}
			t.Rows = append(t.Rows, row([]any{c.Label, name, Num{1000 * mc.P99TTFTS, 2}, Num{1000 * ep.P99TTFTS, 1}},
				Compare(1000*ours, fleetOptTTFTPaper[c.Workload][i], 2)))
		}
	}
	oursIs := "exact moments (E[⌈L_in/512⌉] summed over every integer length of the pool's slice) and the planner's exact Kimura wait (0: C(c, ϱ) ≪ 0.01 in every pool)"
	if o.Compat == CompatPapers {
		oursIs = "the papers' own Monte Carlo draw (pools/fleetopt/papercompat: 3,000 lengths from Python's random.Random(42))"
	}
	t.Notes = []string{
		fmt.Sprintf("Ours: the papers' convention with %s. The paper prints whole milliseconds, so |diff| ≤ 0.5 ms is a match.", oursIs),
		"The convention is the papers' simulator's (vllm-sr-sim fleet_sim optimizer: P99 TTFT = P99 slot wait + mean prefill, each prefill chunk at iter_latency(1) = W + H·1); it is neither §3.2's TTFT decomposition (P99 prefill, one decode step, batch-dependent t_iter) nor a P99 of anything but the wait. The planner's default column is our prediction at the operating point (docs/planner.md §3), an order of magnitude larger; the simulator's measured P99 TTFTs (fleetopt-table5, 0.07–1.4 s) lie between the two.",
		"With exact moments two cells are just outside 0.5 ms (LMSYS long +0.51, agent-heavy short +0.64 ms): the papers' 3,000-draw mean prefill, not the convention; with --compat papers all six are within 0.5 ms.",
	}
	return []Table{t}, nil
}
