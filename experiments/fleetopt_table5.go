package experiments

import (
	"fmt"
	"strings"

	"github.com/fleetsim/fleetsim/pools/fleetopt"
	"github.com/fleetsim/fleetsim/pools/fleetopt/papercompat"
)

// fleetOptTable5Paper is FleetOpt Table 5 (λ = 1,000 req/s, PR fleets,
// "DES uses 30,000 requests per pool"): GPUs, analytic utilization ρ_ana,
// DES utilization ρ̂ and the error (ρ_ana − ρ̂)/ρ̂ in percent, per workload
// and pool; plus the analytic P99 TTFT of §7.4, s.
var fleetOptTable5Paper = map[string]map[string]struct {
	GPUs, RhoAna, RhoDES, ErrPct, P99TTFT float64
}{
	"azure": {
		"short": {43, 0.848, 0.865, -2.1, 0.020},
		"long":  {131, 0.845, 0.847, -0.1, 0.080},
	},
	"lmsys": {
		"short": {7, 0.771, 0.792, -2.7, 0.011},
		"long":  {74, 0.845, 0.853, -1.0, 0.048},
	},
	"agent-heavy": {
		"short": {229, 0.848, 0.868, -2.2, 0.047},
		"long":  {2037, 0.850, 0.850, -0.1, 0.220},
	},
}

// FleetOptTable5 reproduces FleetOpt Table 5: each workload's pool-routing
// fleet is planned (exact calibration) and simulated with sim.Run (kv
// timing, Poisson arrivals at 1,000 req/s, length router, central dispatch).
// The number of requests per fleet is Options.Requests, or by default
// enough for 30,000 measured requests in the smaller pool after a warm-up of
// five mean service times of the slowest pool (see Validate).
func FleetOptTable5(o Options) ([]Table, error) {
	t := Table{
		Name:    "fleetopt-table5",
		Title:   "FleetOpt Table 5 — analytic vs simulated slot utilization of the PR fleets at λ = 1,000 req/s",
		Source:  "FleetOpt (arXiv 2603.16514) Table 5 and §7.4",
		Columns: append([]string{"workload", "pool", "quantity"}, CompareColumns...),
	}
	var runs []string
	for _, c := range fleetOptCases {
		o.say("fleetopt-table5: simulating the %s PR fleet (B = %d)", c.Workload, c.BShort)
		calib := ""
		if o.Compat == CompatPapers {
			calib = papercompat.Calibration
		}
		v, err := Validate(ValidateConfig{Workload: c.Workload, Rate: FleetOptRate, BShort: c.BShort, Method: fleetopt.MethodPR,
			Requests: o.Requests, Seed: o.seed(1), Calibration: calib, Stop: o.Stop})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.Workload, err)
		}
		runs = append(runs, fmt.Sprintf("%s: %d requests, warm-up %.0f%% (%.0f s), window %.0f s, measured %s",
			c.Label, v.Requests, 100*v.WarmupFraction, v.WarmupS, v.WindowS, measured(v)))
		for _, w := range v.Warnings {
			runs = append(runs, c.Label+": warning: "+w)
		}
		for _, p := range v.Pools {
			pp := fleetOptTable5Paper[c.Workload][p.Name]
			k := []any{c.Label, p.Name}
			t.Rows = append(t.Rows,
				row(append(k, "GPUs n"), Compare(float64(p.GPUs), pp.GPUs, 0)),
				row(append(k, "ρ_ana = λ_p/(n·μ_gpu)"), Compare(p.UtilAna, pp.RhoAna, 3)),
				row(append(k, "ρ̂ (DES slot utilization)"), Compare(p.UtilSim, pp.RhoDES, 3)),
				row(append(k, "error (ρ_ana − ρ̂)/ρ̂ %"), CompareAbs(100*p.UtilErr(), pp.ErrPct, 1)),
				row(append(k, "ρ self-consistent (t_iter at the batch held)"), Compare(p.UtilSelf, nan, 3)),
				row(append(k, "GPUs for self-consistent ρ = ρ_max (estimate, not a plan)"), Compare(float64(p.GPUsSelf), nan, 0)),
				row(append(k, "P99 TTFT analytic s"), Compare(p.P99TTFTAnaS, pp.P99TTFT, 3)),
				row(append(k, "P99 TTFT simulated s"), Compare(p.P99TTFTSimS, nan, 3)),
				row(append(k, "P99 queue wait analytic / simulated s"), []any{fmt.Sprintf("%.4f / %.4f", p.P99WaitAnaS, p.P99WaitSimS), nil, nil, nil}),
			)
		}
	}
	ours := "Ours: the planner's PR fleet (exact calibration, so Azure short has 44 GPUs where the paper has 43) simulated by sim.Run with the same kv timing preset, seed " + fmt.Sprint(o.seed(1)) + "."
	ttft := "The paper's P99 TTFTs (§7.4) follow its simulator's convention, P99 wait + mean prefill at one active sequence (t_iter(1) = W + H): experiment fleetopt-ttft reproduces them within 0.5 ms. The analytic column here is our planner's P99 wait + P99 prefill + one iteration at the operating point, a different quantity."
	if o.Compat == CompatPapers {
		ours = "Ours (--compat papers): the papers' own PR fleets and ρ_ana (pools/fleetopt/papercompat: 43 + 131, 7 + 74, 229 + 2,037), simulated by sim.Run with kv timing, seed " + fmt.Sprint(o.seed(1)) + "."
		ttft = "P99 TTFT analytic is the papers' convention here (P99 wait + mean prefill at t_iter(1) = W + H), as in fleetopt-ttft."
	}
	t.Notes = append([]string{
		ours,
		"ρ̂ is the time-averaged share of busy KV slots over the measurement window. Our simulator is iteration-level: an iteration costs W + H·(kv_tokens actually in the batch)/8192, so a batch that is not full, or holds shorter sequences than the pool's own-length calibration assumes, iterates faster and frees slots sooner. The analytic ρ_ana assumes every iteration runs at the request's own length with the pool's full slot count, so ρ̂ comes out well below ρ_ana (see docs/experiments.md).",
		"ρ self-consistent solves Little's law with the iteration time at the batch the pool holds, u = a·W/(1 − a·b) (experiments.selfConsistent): it lands within a few percent of ρ̂, so the gap is the calibration's full-batch iteration time, not queueing or simulation error.",
		"GPUs for self-consistent ρ = ρ_max is an estimate, not a plan: the GPU count at which that self-consistent utilization would reach ρ_max = 0.85, n = λ_p·E[k]·(W/ρ_max + b)/slots; W is small beside b, so it lies close to the saturation knee of that model and leaves no margin; it has no TTFT target and no queueing model.",
		ttft,
	}, runs...)
	return []Table{t}, nil
}

func measured(v *Validation) string {
	var parts []string
	for _, p := range v.Pools {
		parts = append(parts, fmt.Sprintf("%s %d", p.Name, p.Measured))
	}
	return strings.Join(parts, ", ")
}
