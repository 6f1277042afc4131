package experiments

import (
	"fmt"
	"strings"

	"github.com/fleetsim/fleetsim/pools/catalog"
	"github.com/fleetsim/fleetsim/pools/fleetopt"
	"github.com/fleetsim/fleetsim/pools/queueing"
	"github.com/fleetsim/fleetsim/router"
	"github.com/fleetsim/fleetsim/sim"
	"github.com/fleetsim/fleetsim/workload"
)

// tokenBudgetTable3Paper is token-budget Table 3 (Azure, 1,000 req/s):
// TTFT p50/p99 (s) and TPOT p50/p99 (ms), homogeneous then token-budget.
var tokenBudgetTable3Paper = [2][4]float64{{0.02, 0.91, 12, 13}, {0.09, 1.60, 25, 29}}

// tb3Run is one simulated fleet of Table 3.
type tb3Run struct {
	label       string
	short, long int // GPUs (short = 0: homogeneous)
	sum         *sim.Summary
}

// runTB3 simulates Azure at 1,000 req/s with the paper's timing and normal
// split on the given fleet: one homogeneous pool (short = 0, length router)
// or the token-budget router over short (8,192) and long (65,536) pools.
func runTB3(short, long, requests int, seed uint64) (*sim.Summary, error) {
	cfg := sim.Defaults()
	cfg.Seed = seed
	cfg.Timing = catalog.TimingPaper
	cfg.Workload = workload.Spec{CDF: "azure", Rate: 1000, Requests: requests, Split: "normal", OutputMu: 0.10, OutputSigma: 0.05}
	cfg.WarmupFraction = 0.2
	cfg.SLO = sim.SLO{TTFTS: 2, TPOTS: 0.08}
	if short == 0 {
		cfg.Pools = []sim.PoolConfig{{Name: "homogeneous", GPU: "a100", Count: long, MaxContext: fleetopt.DefaultLongCtx}}
		cfg.Router = sim.RouterConfig{Config: router.Config{Kind: sim.RouterLength}}
	} else {
		cfg.Pools = []sim.PoolConfig{{Name: "short", GPU: "a100", Count: short, MaxContext: 8192},
			{Name: "long", GPU: "a100", Count: long, MaxContext: fleetopt.DefaultLongCtx}}
		cfg.Router = sim.RouterConfig{Config: router.Config{Kind: sim.RouterTokenBudget, BShort: 8192}}
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	src, err := workload.NewSource(cfg.Workload, cfg.Seed)
	if err != nil {
		return nil, err
	}
	return sim.Run(cfg, src, nil, sim.Options{})
}

// TokenBudgetTable3 reproduces token-budget Table 3: TTFT and TPOT of the
// homogeneous and token-budget fleets on Azure at 1,000 req/s, simulated
// with the paper's timing (t_iter = W + H·n_active) and its normal
// input/output split (output fraction N(0.10, 0.05)). The fleets are
// tokenbudget-table2's profiler sizes, except that the long pool is sized
// for the traffic the token-budget router really sends it: a pilot run
// measures the long pool's slot utilization, and the long pool gets
// ⌈n_pilot·u/0.85⌉ GPUs. The 125 + 1 fleet of tokenbudget-table2 is run
// too, to show that its long pool overloads.
func TokenBudgetTable3(o Options) ([]Table, error) {
	t := Table{
		Name:    "tokenbudget-table3",
		Title:   "token-budget Table 3 — latency at 1,000 req/s, Azure (simulated, paper timing, normal split)",
		Source:  "token-budget pool routing (arXiv 2604.09613) Table 3 and §4.4",
		Columns: append([]string{"fleet", "quantity"}, CompareColumns...),
	}
	n := o.Requests
	if n == 0 {
		n = 60000
	}
	seed := o.seed(1)
	// tokenbudget-table2's profiler fleets (ours): homogeneous and short.
	homo, short, long0, err := tb2Fleet()
	if err != nil {
		return nil, err
	}
	// The smallest long pool that holds the router's traffic: not
	// overloaded and slot utilization at most ρ_max.
	long, tried := 0, []string{}
	for l := long0; l <= 64; l++ {
		o.say("tokenbudget-table3: sizing the long pool: %d + %d", short, l)
		s, err := runTB3(short, l, n, seed)
		if err != nil {
			return nil, err
		}
		lp := s.Pools[1]
		tried = append(tried, fmt.Sprintf("%d: %.1f req/s, utilization %.3f%s", l, lp.ArrivalRPS, lp.SlotUtilization, map[bool]string{true: ", overloaded", false: ""}[lp.Overloaded]))
		if !lp.Overloaded && lp.SlotUtilization <= queueing.DefaultRhoMax {
			long = l
			break
		}
	}
	if long == 0 {
		return nil, fmt.Errorf("no long pool of at most 64 GPUs holds the token-budget router's traffic: %v", tried)
	}
	runs := []tb3Run{{label: fmt.Sprintf("homogeneous (%d)", homo), long: homo},
		{label: fmt.Sprintf("token-budget (%d + %d, long sized for mis-routes)", short, long), short: short, long: long},
		{label: fmt.Sprintf("token-budget (%d + %d, tokenbudget-table2's fleet)", short, long0), short: short, long: long0}}
	for i := range runs {
		r := &runs[i]
		o.say("tokenbudget-table3: simulating %s", r.label)
		if r.sum, err = runTB3(r.short, r.long, n, seed); err != nil {
			return nil, fmt.Errorf("%s: %w", r.label, err)
		}
	}
	for i, r := range runs {
		p := tokenBudgetTable3Paper[min(i, 1)]
		if i == 2 {
			p = [4]float64{nan, nan, nan, nan}
		}
		f := r.sum.Fleet
		k := []any{r.label}
		t.Rows = append(t.Rows,
			row(append(k, "TTFT p50 s"), Compare(f.TTFT.P50, p[0], 3)),
			row(append(k, "TTFT p99 s"), Compare(f.TTFT.P99, p[1], 3)),
			row(append(k, "TPOT p50 ms"), Compare(1000*f.TPOT.P50, p[2], 1)),
			row(append(k, "TPOT p99 ms"), Compare(1000*f.TPOT.P99, p[3], 1)),
		)
		for _, pm := range r.sum.Pools {
			over := "no"
			if pm.Overloaded {
				over = "YES"
			}
			t.Rows = append(t.Rows, row(append(k, fmt.Sprintf("%s pool: %d GPUs, %.1f req/s, slot utilization, overloaded %s", pm.Name, pm.GPUs, pm.ArrivalRPS, over)),
				Compare(pm.SlotUtilization, nan, 3)))
		}
	}
	t.Notes = []string{
		fmt.Sprintf("Ours: sim.Run, %d requests per fleet (20%% warm-up), seed %d, our azure CDF, timing paper, split normal N(0.10, 0.05) clipped to [0.02, 0.95] (App. A), router token-budget at B = 8,192 (conservative estimate ĉ − σ̂, bytes jitter 5%%), central dispatch. Homogeneous and short pool: tokenbudget-table2's profiler counts.", n, seed),
		fmt.Sprintf("Long pool: our azure CDF puts only 0.0035%% of requests above 8,192 tokens, so tokenbudget-table2 sizes the long pool at %d GPU; but the token-budget router's conservative estimate (ĉ − σ̂) also sends requests just below 8,192 to the long pool, so that fleet's long pool overloads in our simulator (last block). The smallest long pool that holds the traffic (not overloaded, slot utilization ≤ 0.85), found by simulating each count: %d GPUs (runs: %s).", long0, long, strings.Join(tried, "; ")),
		fmt.Sprintf("TPOT follows occupancy: with the paper's timing a decode step costs W + H·n_active, and the measured p50s match W + H·u·slots (homogeneous %.1f ms, short pool %.1f ms, u the measured slot utilization). The paper's 12 and 25 ms imply far emptier pools: its fleets (361 and 72 + 229 GPUs on its own Azure-Derived trace, 8%% of requests above 8K) are not ours (207 and %d + %d on our CDF), so the latencies compare the method, not the same fleet. The P99 TTFTs (ours %.2f and %.2f s against 0.91 and 1.60 s) cannot be attributed without the paper's trace; both fleets meet its 2 s target in our runs as in the paper.",
			1000*tpotAt(runs[0].sum.Pools[0]), 1000*tpotAt(runs[1].sum.Pools[0]), short, long, runs[0].sum.Fleet.TTFT.P99, runs[1].sum.Fleet.TTFT.P99),
	}
	return []Table{t}, nil
}

// tpotAt is the decode step W + H·u·slots of a pool at its measured slot
// utilization u (the paper's timing, A100), s.
func tpotAt(p sim.PoolMetrics) float64 {
	g, _ := catalog.LookupGPU("a100")
	return g.W + g.H*p.SlotUtilization*float64(p.Slots)
}

// tb2Fleet returns tokenbudget-table2's Azure profiler counts: homogeneous,
// short and long GPUs.
func tb2Fleet() (homo, short, long int, err error) {
	tabs, err := TokenBudgetTable2(Options{})
	if err != nil {
		return 0, 0, 0, err
	}
	get := func(q string) int {
		for _, r := range tabs[0].Rows {
			if r[0] == "Azure" && r[1] == q {
				return int(r[2].(Num).V)
			}
		}
		return 0
	}
	return get("homogeneous instances"), get("token-budget short"), get("token-budget long"), nil
}
