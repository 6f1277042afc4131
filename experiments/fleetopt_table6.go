package experiments

import (
	"fmt"

	"github.com/fleetsim/fleetsim/pools/fleetopt"
)

// fleetOptTable6Paper is FleetOpt Table 6 (agent-heavy, B = 8,192, γ* from
// Algorithm 1): λ, homogeneous, PR and FleetOpt GPUs, γ*, PR and FleetOpt
// savings (%).
var fleetOptTable6Paper = []struct {
	Rate                   float64
	Homo, PR, FleetOpt     float64
	Gamma                  float64
	PRSaving, FleetOptSave float64
}{
	{100, 240, 227, 225, 1.2, 5.4, 6.2},
	{200, 480, 454, 448, 1.5, 5.4, 6.7},
	{500, 1199, 1134, 1119, 1.5, 5.4, 6.7},
	{1000, 2397, 2266, 2236, 1.5, 5.5, 6.7},
	{2000, 4794, 4531, 4470, 1.5, 5.5, 6.8},
}

// FleetOptTable6 reproduces FleetOpt Table 6: the agent-heavy fleets
// (B = 8,192, p_c = 0.75) at five arrival rates, from the planner with exact
// calibration (FleetOpt sweeps γ at the fixed B).
func FleetOptTable6(o Options) ([]Table, error) {
	compat, err := fleetOptTable6Compat()
	if err != nil {
		return nil, err
	}
	if o.Compat == CompatPapers {
		return []Table{compat}, nil
	}
	t := Table{
		Name:    "fleetopt-table6",
		Title:   "FleetOpt Table 6 — agent-heavy fleet size and savings vs arrival rate (B = 8,192, p_c = 0.75, exact calibration)",
		Source:  "FleetOpt (arXiv 2603.16514) Table 6",
		Columns: append([]string{"λ req/s", "quantity"}, CompareColumns...),
	}
	for _, p := range fleetOptTable6Paper {
		pl, _, err := newPlanner("agent-heavy", fleetopt.Config{Rate: p.Rate, BShort: 8192, PC: 0.75, FixB: true})
		if err != nil {
			return nil, err
		}
		plan, err := pl.Run([]string{fleetopt.MethodHomo, fleetopt.MethodPR, fleetopt.MethodFleetOpt})
		if err != nil {
			return nil, fmt.Errorf("agent-heavy at %g req/s: %w", p.Rate, err)
		}
		h, pr, fo := plan.Methods[0], plan.Methods[1], plan.Methods[2]
		save := func(m fleetopt.MethodPlan) float64 { return 100 * (1 - float64(m.TotalGPUs)/float64(h.TotalGPUs)) }
		k := []any{int(p.Rate)}
		t.Rows = append(t.Rows,
			row(append(k, "homogeneous GPUs"), Compare(float64(h.TotalGPUs), p.Homo, 0)),
			row(append(k, "PR GPUs"), Compare(float64(pr.TotalGPUs), p.PR, 0)),
			row(append(k, "FleetOpt GPUs"), Compare(float64(fo.TotalGPUs), p.FleetOpt, 0)),
			row(append(k, "FleetOpt γ*"), Compare(fo.Gamma, p.Gamma, 1)),
			row(append(k, "PR saving %"), Compare(save(pr), p.PRSaving, 1)),
			row(append(k, "FleetOpt saving %"), Compare(save(fo), p.FleetOptSave, 1)),
		)
	}
	t.Notes = []string{
		"Savings are in GPUs, 1 − fleet/homogeneous (one GPU type, so equal to the cost savings).",
		"γ*: at λ = 200, 500 and 1,000 our γ 1.4 and the paper's 1.5 cost the same (452, 1,129, 2,256 GPUs) and the planner keeps the smaller γ on ties (docs/planner.md §4). At λ = 100 it is not a tie: γ 1.5 gives 226 GPUs against 228 at the paper's 1.2, so our γ* is 1.5; the paper's 1.2 is the first of five γ its Monte Carlo draw ties at 225 (see the papers-compatible table).",
	}
	return []Table{t, compat}, nil
}
