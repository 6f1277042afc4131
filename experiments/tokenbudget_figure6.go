package experiments

import (
	"fmt"
	"math"

	"github.com/fleetsim/fleetsim/pools/catalog"
	"github.com/fleetsim/fleetsim/pools/fleetopt"
	"github.com/fleetsim/fleetsim/sim/export"
)

// figure6Thresholds are Figure 6's x values, tokens.
var figure6Thresholds = []int{1024, 2048, 4096, 8192, 16384, 32768}

// figure6Paper holds the savings (%) the token-budget paper states in the
// text around Figure 6 (§4.2, §4.6); the figure's other points are not
// printed. Azure: 16.6% at 8K and "the curve plateaus at ∼20%" (taken at 32K);
// LMSYS: 38.5% at 8K.
var figure6Paper = map[string]map[int]float64{
	"azure": {8192: 16.6, 32768: 20},
	"lmsys": {8192: 38.5},
}

// profilerGPUs is the token-budget paper's analytical profiler,
// ⌈λ/μ·β⌉ (App. A), as pools computes it.
func profilerGPUs(lambda, mu, headroom float64) int {
	if lambda <= 0 {
		return 0
	}
	return int(math.Ceil(lambda / mu * headroom * (1 - 1e-12)))
}

// figure6Savings returns the token-budget fleet's savings against the
// homogeneous one at threshold b, with the short pool's slots by rule.
func figure6Savings(cal *fleetopt.Calibrator, g catalog.GPU, b int, rule string, rate float64) (float64, int, error) {
	pt := func(slots int) fleetopt.PoolTiming {
		return fleetopt.PoolTiming{W: g.W, H: g.H, CalibCtx: g.CalibCtx, Slots: slots, Preset: catalog.TimingPaper}
	}
	longSlots := g.Slots(fleetopt.DefaultLongCtx)
	homo, err := cal.Exact(0, fleetopt.DefaultLongCtx, pt(longSlots))
	if err != nil {
		return 0, 0, err
	}
	sSlots, err := g.SlotsByRule(b, rule)
	if err != nil {
		return 0, 0, err
	}
	short, err := cal.Exact(0, b, pt(sSlots))
	if err != nil {
		return 0, 0, err
	}
	alpha := cal.F(b)
	n := profilerGPUs(alpha*rate, short.MuGPU, fleetopt.HeadroomShort)
	if alpha < 1 {
		long, err := cal.Exact(b, fleetopt.DefaultLongCtx, pt(longSlots))
		if err != nil {
			return 0, 0, err
		}
		n += profilerGPUs((1-alpha)*rate, long.MuGPU, fleetopt.HeadroomLong)
	}
	h := profilerGPUs(rate, homo.MuGPU, fleetopt.HeadroomHomo)
	return 100 * (1 - float64(n)/float64(h)), sSlots, nil
}

// TokenBudgetFigure6 reproduces token-budget Figure 6: the GPU savings of
// the token-budget fleet against the homogeneous one as the threshold
// B_short goes from 1K to 32K, for Azure and LMSYS, sized by the paper's
// analytical profiler (timing W + H·n_slots, the normal split's mean as a
// fixed split). Both slot rules are shown: the paper's capped N_seq =
// min(128, ⌊65,536/⌈B/16⌉⌋) and FleetOpt's scaled rule (catalog.GPU.Slots).
func TokenBudgetFigure6(Options) ([]Table, error) {
	t := Table{
		Name:    "tokenbudget-figure6",
		Title:   "token-budget Figure 6 — GPU savings vs threshold B_short at 1,000 req/s (analytical profiler)",
		Source:  "token-budget pool routing (arXiv 2604.09613) Figure 6 and §4.6",
		Columns: append([]string{"workload", "B_short", "short slots (capped)", "savings % (scaled slots)"}, CompareColumns...),
	}
	g, err := catalog.LookupGPU("a100")
	if err != nil {
		return nil, err
	}
	fig := export.Figure{Name: "tokenbudget-figure6", Title: "token-budget Figure 6: savings vs B_short",
		XLabel: "threshold B_short (tokens)", YLabel: "GPU savings vs homogeneous (%)", LogX: true}
	for _, p := range tokenBudgetTable2Paper {
		cal, err := tokenBudgetCalibrator(p.Workload, p.InputFraction, g)
		if err != nil {
			return nil, err
		}
		capped := export.FigureSeries{Name: p.Label + " (capped slots, paper rule)"}
		scaled := export.FigureSeries{Name: p.Label + " (scaled slots)"}
		paper := export.FigureSeries{Name: p.Label + " (paper, stated points)", Dashed: true}
		for _, b := range figure6Thresholds {
			sc, slots, err := figure6Savings(cal, g, b, catalog.SlotRuleCapped, 1000)
			if err != nil {
				return nil, fmt.Errorf("%s B %d: %w", p.Workload, b, err)
			}
			ss, _, err := figure6Savings(cal, g, b, catalog.SlotRuleScaled, 1000)
			if err != nil {
				return nil, fmt.Errorf("%s B %d: %w", p.Workload, b, err)
			}
			pv, ok := figure6Paper[p.Workload][b]
			if !ok {
				pv = nan
			} else {
				paper.X, paper.Y = append(paper.X, float64(b)), append(paper.Y, pv)
			}
			t.Rows = append(t.Rows, row([]any{p.Label, b, slots, Num{ss, 1}}, Compare(sc, pv, 1)))
			capped.X, capped.Y = append(capped.X, float64(b)), append(capped.Y, sc)
			scaled.X, scaled.Y = append(scaled.X, float64(b)), append(scaled.Y, ss)
		}
		fig.Series = append(fig.Series, capped, paper, scaled)
	}
	t.Figures = []export.Figure{fig}
	t.Notes = []string{
		"Ours ('ours' column): the capped slot rule of the paper (catalog.SlotRuleCapped), profiler GPUs ⌈λα/μ_s·1.05⌉ + ⌈λ(1−α)/μ_l·1.02⌉ against ⌈λ/μ_h·1.08⌉, exact moments, timing W + H·n_slots, L_in = ⌊0.9·L⌋ (Azure) or ⌊0.25·L⌋ (LMSYS), our built-in CDFs. The scaled-slot column uses FleetOpt's rule (more slots below 8K).",
		"The paper prints only three points of the figure (Azure 16.6% at 8K and ~20% at 32K, LMSYS 38.5% at 8K); the rest of its curve is read off a plot and not compared. Its traces are its own 10,000-request 'Azure-Derived' and 'LMSYS-Derived' sets, not our CDFs, so the levels differ as in tokenbudget-table2 (our Azure CDF has F(8192) = 0.999965, nearly no long tail, hence larger savings; our LMSYS CDF is longer than the paper's).",
		"Shape: our Azure curve peaks at 8K and then falls, where the paper's keeps rising to 32K: above 8,192 tokens our Azure CDF has almost no traffic left to move (1 − F(8192) = 3.5·10⁻⁵), while the capped short pool's slots halve at 16K and again at 32K; the paper's Azure-Derived trace keeps 8% of its traffic above 8K. LMSYS peaks at 8K in both, for the paper's reason (slots halve, no traffic gained).",
	}
	return []Table{t}, nil
}
