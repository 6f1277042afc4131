package experiments

import (
	"fmt"
	"math"
	"strings"
)

// Options tune an experiment's sample sizes; zero values take each
// experiment's defaults. Options never change what is compared, only how
// many samples the simulated or Monte Carlo side uses.
type Options struct {
	// Requests overrides the number of requests an experiment simulates or
	// routes (per simulated fleet for fleetopt-table5, per category for
	// tokenbudget-table4). 0 = the experiment's default.
	Requests int
	// Seed overrides the experiment's seed (0 = its default).
	Seed uint64
	// Progress, when set, receives one-line status messages (which fleet is
	// being simulated, ...).
	Progress func(msg string)
	// Stop, when set, is polled by the simulations an experiment runs
	// (sim.Options.Stop); once it returns true they end with
	// sim.ErrStopped.
	Stop func() bool
	// Compat "papers" replaces the planner's exact moments by the papers'
	// simulator's own sizing (pools/fleetopt/papercompat) where an experiment has
	// it (FleetOpt Tables 3 and 6, §7.4); "" = the default.
	Compat string
	// Timing adds wall-clock measurements (planner time, compressor
	// latency); without it those rows are left out so that the output is
	// byte-identical for a seed.
	Timing bool
	// ThreadCPU, when set with Timing, returns the calling OS thread's CPU
	// time, s (ok false where the platform has none): fleetopt-table4 then
	// prints thread-CPU rows beside wall time. The caller supplies it so the
	// package stays free of system calls (cmd passes internal/cputime.Thread).
	ThreadCPU func() (s float64, ok bool)
}

// CompatPapers is the Options.Compat value of the papers-compatible mode.
const CompatPapers = "papers"

func (o Options) say(format string, args ...any) {
	if o.Progress != nil {
		o.Progress(fmt.Sprintf(format, args...))
	}
}

func (o Options) seed(def uint64) uint64 {
	if o.Seed != 0 {
		return o.Seed
	}
	return def
}

// Experiment is one reproduced paper table.
type Experiment struct {
	Name    string // command-line name, e.g. "fleetopt-table3"
	Summary string // one line
	// Slow marks experiments that run the simulator (seconds to a minute
	// at the default sizes).
	Slow bool
	// ByName marks experiments that run only when named (minutes of
	// simulation on a full trace): `experiment all` and the docs/results
	// report leave them out (InAll).
	ByName bool
	Run    func(Options) ([]Table, error)
}

// InAll returns the experiments `experiment all` runs: All without the
// ByName ones.
func InAll() []Experiment {
	var out []Experiment
	for _, e := range All() {
		if !e.ByName {
			out = append(out, e)
		}
	}
	return out
}

// All returns every experiment in documentation order.
func All() []Experiment {
	return []Experiment{
		{Name: "fleetopt-table1", Summary: "FleetOpt Table 1: the cost cliff at B = 8,192 (slots per GPU, KV per slot, cost ratio)", Run: FleetOptTable1},
		{Name: "fleetopt-headline", Summary: "FleetOpt headline: savings range, C&R gain over PR per workload, PR-alone savings, planner time (--timing)", Run: FleetOptHeadline},
		{Name: "fleetopt-table2", Summary: "FleetOpt Table 2: α, β, cliff ratio and archetype per workload", Run: FleetOptTable2},
		{Name: "fleetopt-table3", Summary: "FleetOpt Table 3: fleet GPUs, annual cost and savings (homo, PR, PR+C&R, FleetOpt) at λ = 1,000", Run: FleetOptTable3},
		{Name: "fleetopt-table4", Summary: "FleetOpt Table 4: compressor latency per borderline band (wall and thread CPU with --timing)", Run: FleetOptTable4},
		{Name: "fleetopt-table5", Summary: "FleetOpt Table 5: analytic vs simulated slot utilization of the PR fleets (runs the simulator)", Slow: true, Run: FleetOptTable5},
		{Name: "fleetopt-ttft", Summary: "FleetOpt §7.4: analytical P99 TTFT of the PR fleets (P99 wait + mean prefill at one sequence)", Run: FleetOptTTFT},
		{Name: "fleetopt-table6", Summary: "FleetOpt Table 6: agent-heavy fleet size and savings vs arrival rate", Run: FleetOptTable6},
		{Name: "fleetopt-table7", Summary: "FleetOpt Table 7: compression fidelity (ROUGE-L, TF-IDF cosine) on CC BY prose; BERTScore not reproducible", Run: FleetOptTable7},
		{Name: "azure-trace", Summary: "Azure PR fleet driven by the Azure 2023 trace (rescaled) beside the CDF-driven run (runs the simulator)", Slow: true, Run: AzureTrace},
		{Name: "tokenbudget-table1", Summary: "token-budget Table 1: pool configurations and μ per instance (Azure, LMSYS)", Run: TokenBudgetTable1},
		{Name: "tokenbudget-table2", Summary: "token-budget Table 2: homogeneous vs token-budget fleet at B = 8,192 (profiler headroom)", Run: TokenBudgetTable2},
		{Name: "occupancy-sweep", Summary: "issue 8: paper and occupancy models vs the slot, engine and KV-bound fidelities, ρ 0.3–1.1, one long pool per workload (runs the simulator; figures with --out)", Slow: true, Run: OccupancySweep},
		{Name: "tokenbudget-table5", Summary: "token-budget Table 5: Qwen3-235B on MI300X (memory model and cost arithmetic; node counts not reproducible)", Run: TokenBudgetTable5},
		{Name: "tokenbudget-figure6", Summary: "token-budget Figure 6: savings vs threshold B_short from 1K to 32K (Azure, LMSYS; capped and scaled slots)", Run: TokenBudgetFigure6},
		{Name: "step-times", Summary: "step times: calibrated/uncalibrated roofline and kv/paper presets vs measured GPU data (Vidur A100/H100), held-out errors, papers' W + H·n on Llama-2-70B, FleetOpt PR fleets re-planned (runs the simulator)", Slow: true, Run: StepTimes},
		{Name: "tokenbudget-table3", Summary: "token-budget Table 3: TTFT and TPOT of the homogeneous and token-budget fleets (runs the simulator)", Slow: true, Run: TokenBudgetTable3},
		{Name: "prefix-cache", Summary: "issue 18 (a): Mooncake conversation trace on one pool, no prefix cache vs a cache under least-loaded, prefix-affinity and weighted routing, and the instances each needs for P99 TTFT <= 10 s (runs the simulator)", Slow: true, ByName: true, Run: PrefixCache},
		{Name: "disagg-goodput", Summary: "issue 18 (b): goodput of 8 H100 TP4 instances, colocated vs prefill/decode splits, Azure and agent-heavy (runs the simulator)", Slow: true, ByName: true, Run: DisaggGoodput},
		{Name: "disagg-routing", Summary: "issue 18 (c): goodput of 16 H100 TP4 instances on Azure, one pool vs short/long pools, each colocated or disaggregated (runs the simulator)", Slow: true, ByName: true, Run: DisaggRouting},
		{Name: "day", Summary: "issue 17: the Azure PR fleet through one simulated day (sinusoid, mean 500 req/s, 3:1) under static-peak, threshold, wva and schedule; adaptive vs static B_short (runs the simulator; a tenth of the day unless --requests 43200000)", Slow: true, Run: Day},
		{Name: "tokenbudget-table4", Summary: "token-budget Table 4: per-category EMA calibration at n = 50 and mis-route rates vs static 4.0", Run: TokenBudgetTable4},
	}
}

// Names returns the experiments' names in documentation order.
func Names() []string {
	var out []string
	for _, e := range All() {
		out = append(out, e.Name)
	}
	return out
}

// Lookup returns the experiment with the given name, or an error listing
// the names allowed.
func Lookup(name string) (Experiment, error) {
	for _, e := range All() {
		if e.Name == name {
			return e, nil
		}
	}
	return Experiment{}, fmt.Errorf("experiment %q: unknown (allowed: %s, all)", name, strings.Join(Names(), ", "))
}

// nan marks a number the paper does not give.
var nan = math.NaN()
