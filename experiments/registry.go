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
	// PlotDir, when set, is where experiments that draw figures write them
	// (PNG and SVG).
	PlotDir string
}

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
	Run  func(Options) ([]Table, error)
}

// All returns every experiment in documentation order.
func All() []Experiment {
	return []Experiment{
		{Name: "fleetopt-table2", Summary: "FleetOpt Table 2: α, β, cliff ratio and archetype per workload", Run: FleetOptTable2},
		{Name: "fleetopt-table3", Summary: "FleetOpt Table 3: fleet GPUs, annual cost and savings (homo, PR, PR+C&R, FleetOpt) at λ = 1,000", Run: FleetOptTable3},
		{Name: "fleetopt-table5", Summary: "FleetOpt Table 5: analytic vs simulated slot utilization of the PR fleets (runs the simulator)", Slow: true, Run: FleetOptTable5},
		{Name: "fleetopt-table6", Summary: "FleetOpt Table 6: agent-heavy fleet size and savings vs arrival rate", Run: FleetOptTable6},
		{Name: "tokenbudget-table2", Summary: "token-budget Table 2: homogeneous vs token-budget fleet at B = 8,192 (profiler headroom)", Run: TokenBudgetTable2},
		{Name: "occupancy-sweep", Summary: "issue 8: paper and occupancy models vs the slot, engine and KV-bound fidelities, ρ 0.3–1.1, one long pool per workload (runs the simulator; --plot-dir for the figure)", Slow: true, Run: OccupancySweep},
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
