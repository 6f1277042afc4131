package experiments

import (
	"fmt"

	"github.com/fleetsim/fleetsim/pools/fleetopt"
	"github.com/fleetsim/fleetsim/sim"
	"github.com/fleetsim/fleetsim/workload"
)

// traceRate is the arrival rate of the trace-driven comparison, req/s: the
// 28,185 requests then span 282 s, long enough for a 20% warm-up of
// several long-pool service times.
const traceRate = 100

// AzureTrace runs the Azure PR fleet (B = 4,096, planned with exact
// moments at 100 req/s) twice: driven by the azure CDF (Poisson arrivals,
// L_in = ⌊0.8·L⌋) and driven by the Azure LLM Inference Trace 2023 itself
// (code and conversation files merged, timestamps rescaled to 100 req/s,
// the trace's own L_in and L_out). Both runs have 28,185 requests and a
// 20% warm-up.
func AzureTrace(o Options) ([]Table, error) {
	t := Table{
		Name:    "azure-trace",
		Title:   "Azure PR fleet driven by the CDF and by the Azure 2023 trace (100 req/s, B = 4,096)",
		Source:  "FleetOpt (arXiv 2603.16514) §7.1 workload and Table 5's DES, trace-driven",
		Columns: append([]string{"pool", "quantity", "CDF-driven (Poisson)"}, CompareColumns...),
	}
	pl, _, err := newPlanner("azure", fleetopt.Config{Rate: traceRate, BShort: 4096})
	if err != nil {
		return nil, err
	}
	plan, err := pl.Run([]string{fleetopt.MethodPR})
	if err != nil {
		return nil, err
	}
	seed := o.seed(1)
	cfg := sim.PapersDefaults() // the papers' convention: kv timing
	cfg.Seed = seed
	cfg.Workload = workload.Spec{CDF: "azure", Rate: traceRate, Requests: workload.Azure2023Requests}
	cfg.Pools = nil
	for _, p := range plan.Methods[0].Pools {
		cfg.Pools = append(cfg.Pools, sim.PoolConfig{Name: p.Name, GPU: p.GPU, Count: p.GPUs, MaxContext: p.MaxCtx})
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	run := func(src workload.Source) (*sim.Summary, error) { return sim.Run(cfg, src, nil, sim.Options{}) }
	o.say("azure-trace: CDF-driven run")
	cdfSrc, err := workload.NewSource(cfg.Workload, seed)
	if err != nil {
		return nil, err
	}
	byCDF, err := run(cdfSrc)
	if err != nil {
		return nil, err
	}
	o.say("azure-trace: trace-driven run")
	trSrc, err := workload.NewAzure2023Source(traceRate, 0, seed)
	if err != nil {
		return nil, err
	}
	byTrace, err := run(trSrc)
	if err != nil {
		return nil, err
	}
	for i, c := range byCDF.Pools {
		tr := byTrace.Pools[i]
		k := []any{fmt.Sprintf("%s (%d GPUs)", c.Name, c.GPUs)}
		add := func(q string, cdf, trace float64, digits int) {
			t.Rows = append(t.Rows, row(append(k, q, Num{cdf, digits}), Compare(trace, nan, digits)))
		}
		add("arrival rate req/s", c.ArrivalRPS, tr.ArrivalRPS, 2)
		add("slot utilization", c.SlotUtilization, tr.SlotUtilization, 3)
		add("TTFT p50 s", c.TTFT.P50, tr.TTFT.P50, 3)
		add("TTFT p99 s", c.TTFT.P99, tr.TTFT.P99, 3)
		add("TPOT p50 ms", 1000*c.TPOT.P50, 1000*tr.TPOT.P50, 1)
		add("TPOT p99 ms", 1000*c.TPOT.P99, 1000*tr.TPOT.P99, 1)
		add("rejected", float64(c.Rejected), float64(tr.Rejected), 0)
		add("overloaded (1 = yes)", b2f(c.Overloaded), b2f(tr.Overloaded), 0)
	}
	t.Notes = []string{
		fmt.Sprintf("'ours' is the trace-driven run: workload.NewAzure2023Source, the embedded Azure LLM Inference Trace 2023 (CC BY 4.0; 8,819 code + 19,366 conversation requests merged by timestamp, rescaled from 8.02 to %d req/s, the trace's own L_in/L_out; code rows are category code). The CDF-driven column draws the same number of requests from the azure CDF (built from the same trace) with Poisson arrivals and L_in = ⌊0.8·L⌋. Fleet: the planner's PR fleet at %d req/s (exact moments, kv timing), %d + %d GPUs; sim seed %d, 20%% warm-up.", traceRate, traceRate, plan.Methods[0].Pools[0].GPUs, plan.Methods[0].Pools[1].GPUs, seed),
		"No paper column: FleetOpt's DES (Table 5) is CDF-driven. The two runs differ in three ways the CDF cannot carry: the trace's output lengths (conversation mean L_out 211 tokens, code 28: far below the CDF's 20% of L), its arrival process (bursty, and the code and conversation streams interleave unevenly), and its time order of lengths. Shorter outputs mean fewer decode iterations per request, so the trace-driven pools are less busy at the same rate — most of all the long pool: the trace's 2,869 requests above 4,096 tokens generate 51.8 tokens on average (computed from the two CSVs), where the CDF-driven split gives each at least 820.",
	}
	return []Table{t}, nil
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
