package sweep

import (
	"math"

	"github.com/fleetsim/fleetsim/sim"
)

// Verdict is an over-saturation verdict for one pool or for the fleet.
type Verdict struct {
	Fired bool    // the detector found the pool (or fleet) over-saturated
	AtS   float64 // simulated time of the first detection, s; NaN when not fired or unknown
}

// VerdictFunc reads a finished run's verdicts: the fleet's and one per pool
// (the scenario's pool order).
type VerdictFunc func(sum *sim.Summary) (fleet Verdict, pools []Verdict)

// Detector gives the over-saturation verdicts of runs. Sweeps and searches
// call Begin before each run; it may change the run's options, wrap the
// run's sink (which may be nil) to watch its records, and returns the sink
// to use and the function that reads the verdicts once the run ended. With
// enforce the run may stop at the first detection (a search needs only the
// verdict). Begin is called from several goroutines at once, one run each.
type Detector interface {
	Begin(cfg *sim.Config, opts *sim.Options, sink sim.Sink, enforce bool) (sim.Sink, VerdictFunc)
}

// BacklogDetector reads the summary's post-hoc backlog-slope flag
// (PoolMetrics.Overloaded): a pool fired when it is set, at an unknown time
// (NaN); the fleet fired when its own flag or any pool's is set.
type BacklogDetector struct{}

// Begin keeps the sink and reads the flags after the run.
func (BacklogDetector) Begin(_ *sim.Config, _ *sim.Options, sink sim.Sink, _ bool) (sim.Sink, VerdictFunc) {
	return sink, func(sum *sim.Summary) (Verdict, []Verdict) {
		pools := make([]Verdict, len(sum.Pools))
		fleet := Verdict{Fired: sum.Fleet.Overloaded, AtS: math.NaN()}
		for i, p := range sum.Pools {
			pools[i] = Verdict{Fired: p.Overloaded, AtS: math.NaN()}
			fleet.Fired = fleet.Fired || p.Overloaded
		}
		return fleet, pools
	}
}

// DefaultDetector is the detector sweeps use when Options.Detector is nil.
var DefaultDetector Detector = SimDetector{}
