package experiments

import (
	"fmt"
	"math"

	"github.com/fleetsim/fleetsim/router"
	"github.com/fleetsim/fleetsim/workload"
)

// tokenBudgetTable4Paper is token-budget Table 4 (Azure trace, β = 0.95,
// γ = 1.0): true c_k, ĉ_k at n = 50, relative error (%) and mis-route rate
// (%) per category; the last row is the global static c = 4.
var tokenBudgetTable4Paper = []struct {
	Cat                     workload.Category
	Label                   string
	True, Hat, RelErr, Miss float64
}{
	{workload.Prose, "English prose", 4.48, 4.41, 1.6, 0.3},
	{workload.Code, "Source code", 3.52, 3.47, 1.4, 0.2},
	{workload.CJK, "CJK text", 2.01, 2.08, 3.5, 0.8},
	{workload.Mixed, "Mixed / other", 3.81, 3.74, 1.8, 0.4},
}

// tokenBudgetStaticMiss is Table 4's "Global static (c = 4)" mis-route rate, %.
const tokenBudgetStaticMiss = 4.1

// Table 4 sample sizes.
const (
	table4Seeds       = 20      // calibration runs per category (ĉ at n = 50 is averaged over them)
	table4Obs         = 50      // observations per category (the paper's n)
	table4MisRequests = 100_000 // requests routed per category for the mis-route rate
	// table4BShort is the short pool's threshold. The paper evaluates at
	// 8,192 on its "Azure-Derived" trace, where α = 0.92; our azure CDF has
	// F(8192) = 0.999965 (almost no traffic near the threshold, so no
	// mis-routes to measure) and F(4096) = 0.898, the paper's traffic split.
	table4BShort = 4096
)

// table4Pools are the two pools (short at table4BShort, long at 65,536).
var table4Pools = []router.Pool{
	{Name: "short", MaxContext: table4BShort, GPUs: 1, Slots: 256},
	{Name: "long", MaxContext: 65536, GPUs: 1, Slots: 16},
}

// table4Source returns Azure-CDF requests (lengths, fixed 0.8 split) of the
// given category mix with the workload package's byte model (true ratio ×
// (1 + 0.05·z)).
func table4Source(mix map[string]float64, n int, seed uint64) (workload.Source, error) {
	return workload.NewSource(workload.Spec{CDF: "azure", Rate: 1, Requests: n, Categories: mix}, seed)
}

// misroute routes calib + n requests through a token-budget router built
// from cfg, feeding back each request's true prompt tokens, and returns the
// fraction of the last n sent to a pool whose max context is below their
// true L_total.
func misroute(cfg router.Config, mix map[string]float64, calib, n int, seed uint64) (float64, error) {
	rt, err := router.New(cfg, table4Pools, seed)
	if err != nil {
		return 0, err
	}
	src, err := table4Source(mix, calib+n, seed)
	if err != nil {
		return 0, err
	}
	var r workload.Request
	bad, i := 0, 0
	for src.Next(&r) {
		d := rt.Route(&r, nil)
		if i >= calib && r.TotalTokens() > table4Pools[d.Pool].MaxContext {
			bad++
		}
		rt.Observe(&r, r.InputTokens)
		i++
	}
	if err := src.Err(); err != nil {
		return 0, err
	}
	return float64(bad) / float64(n), nil
}

// TokenBudgetTable4 reproduces token-budget Table 4 with the router
// package: for each category, ĉ_k after 50 observations (mean over 20
// seeds) and its relative error, and the mis-route rate of the conservative
// estimate (Eq. 5) over Options.Requests (default 100,000) Azure-CDF
// requests after the 50 calibration requests, beside the static c = 4.0.
func TokenBudgetTable4(o Options) ([]Table, error) {
	n := table4MisRequests
	if o.Requests > 0 {
		n = o.Requests
	}
	base := o.seed(1)
	t := Table{
		Name:    "tokenbudget-table4",
		Title:   fmt.Sprintf("token-budget Table 4 — per-category EMA calibration at n = %d and mis-route rates (B_short = %d)", table4Obs, table4BShort),
		Source:  "token-budget pool routing (arXiv 2604.09613) Table 4",
		Columns: append([]string{"category", "quantity"}, CompareColumns...),
	}
	conservative := router.Config{Kind: router.KindTokenBudget, BShort: table4BShort}
	static := router.Config{Kind: router.KindTokenBudget, BShort: table4BShort, MinObservations: math.MaxInt}
	for _, p := range tokenBudgetTable4Paper {
		mix := map[string]float64{p.Cat.String(): 1}
		var sumHat, sumErr float64
		for s := uint64(0); s < table4Seeds; s++ {
			seed := base + s
			rt, err := router.New(router.Config{Kind: router.KindTokenBudget, BShort: table4BShort}, table4Pools, seed)
			if err != nil {
				return nil, err
			}
			tb, ok := rt.(*router.TokenBudget)
			if !ok {
				return nil, fmt.Errorf("router.New(token-budget) returned %T, want *router.TokenBudget", rt)
			}
			src, err := table4Source(mix, table4Obs, seed)
			if err != nil {
				return nil, err
			}
			var r workload.Request
			for src.Next(&r) {
				tb.Observe(&r, r.InputTokens)
			}
			hat := tb.Estimator().Ratio(p.Cat)
			sumHat += hat
			sumErr += math.Abs(hat/p.Cat.BytesPerToken() - 1)
		}
		mc, err := misroute(conservative, mix, table4Obs, n, base)
		if err != nil {
			return nil, err
		}
		ms, err := misroute(static, mix, table4Obs, n, base)
		if err != nil {
			return nil, err
		}
		k := []any{p.Label}
		t.Rows = append(t.Rows,
			row(append(k, "true c_k bytes/token"), Compare(p.Cat.BytesPerToken(), p.True, 2)),
			row(append(k, fmt.Sprintf("ĉ_k at n = %d (mean of %d seeds)", table4Obs, table4Seeds)), Compare(sumHat/table4Seeds, p.Hat, 2)),
			row(append(k, "relative error % (mean |ĉ/c − 1|)"), Compare(100*sumErr/table4Seeds, p.RelErr, 1)),
			row(append(k, "mis-route rate %, conservative ĉ − σ̂"), Compare(100*mc, p.Miss, 3)),
			row(append(k, "mis-route rate %, static c = 4.0"), Compare(100*ms, nan, 3)),
		)
	}
	even := map[string]float64{"prose": 0.25, "code": 0.25, "cjk": 0.25, "mixed": 0.25}
	ms, err := misroute(static, even, table4Obs, n, base)
	if err != nil {
		return nil, err
	}
	mc, err := misroute(conservative, even, table4Obs, n, base)
	if err != nil {
		return nil, err
	}
	t.Rows = append(t.Rows,
		row([]any{"Global static (c = 4), equal mix", "mis-route rate %"}, Compare(100*ms, tokenBudgetStaticMiss, 3)),
		row([]any{"Conservative, equal mix", "mis-route rate %"}, Compare(100*mc, nan, 3)),
	)
	t.Notes = []string{
		fmt.Sprintf("Requests: Azure CDF lengths, L_in = floor(0.8·L), bytes = L_in·c_k·(1 + 0.05·z) (workload.BytesJitter; the paper does not state its spread). Router: router.New token-budget, EMA β = 0.95, σ weight 1, cold start 4.0 until 10 observations; pools 8,192 / 65,536 tokens, B_short = %d.", table4BShort),
		fmt.Sprintf("Mis-route = sent to a pool whose max context is below the request's true L_total (the pool would reject it); %d requests per row after %d calibration requests, seed %d. Static c = 4.0 never leaves the cold start.", n, table4Obs, base),
		"Our EMAs are bias-corrected (docs/router.md), so ĉ at n = 50 is a plain weighted mean of the observations: its error is the 5% per-request jitter averaged down, well under the paper's 1.4–3.5%.",
		"B_short = 4,096, not the paper's 8,192: our azure CDF has F(8192) = 0.999965 (0.0035% of requests above 8,192), so almost no request lies near 8,192 tokens and no mis-route could be measured; F(4096) = 0.898 is close to the paper's α = 0.92 at 8,192 on its own trace.",
		"Mis-routes only happen to requests whose true length is just above B_short; the rates depend on the density of the CDF there and on the per-request spread of bytes/token, neither of which the paper states. Static 4.0 under-counts tokens of every category whose true ratio is below 4 (code, CJK, mixed), most for CJK (2.01); it over-counts prose (4.48), which it therefore never mis-routes.",
		"Ranking: the paper's conservative rates rank CJK 0.8% > mixed 0.4% > prose 0.3% > code 0.2%; ours are equal for every category (0.064–0.065%). With bytes = L_in·c_k·(1 + 0.05·z) and a converged ĉ_k − σ̂_k, the estimate L_in·(1 + 0.05·z)·c_k/(ĉ_k − σ̂_k) does not depend on c_k, so only the spread decides a mis-route, and our spread is the same 5% for every category. The paper's ranking (CJK worst) holds here only for the static ratio: 8.5% CJK, 1.6% code, 0.65% mixed, 0.002% prose.",
	}
	return []Table{t}, nil
}
