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

// Detector turns a run into over-saturation verdicts. Searches and sweeps
// call Configure before a run and Verdicts after it.
type Detector interface {
	// Configure prepares a run; with enforce the run may stop at the first
	// detection (a search needs only the verdict).
	Configure(cfg *sim.Config, opts *sim.Options, enforce bool)
	// Verdicts returns the fleet's verdict and one per pool (cfg.Pools order).
	Verdicts(sum *sim.Summary) (fleet Verdict, pools []Verdict)
}

// BacklogDetector is the stand-in detector: a pool fired when the summary's
// post-hoc backlog-slope flag (PoolMetrics.Overloaded) is set; the time is
// unknown (NaN). The fleet fired when any pool did.
type BacklogDetector struct{}

// Configure does nothing: the backlog flag is always computed.
func (BacklogDetector) Configure(*sim.Config, *sim.Options, bool) {}

// Verdicts reads the backlog flags.
func (BacklogDetector) Verdicts(sum *sim.Summary) (Verdict, []Verdict) {
	pools := make([]Verdict, len(sum.Pools))
	fleet := Verdict{Fired: sum.Fleet.Overloaded, AtS: math.NaN()}
	for i, p := range sum.Pools {
		pools[i] = Verdict{Fired: p.Overloaded, AtS: math.NaN()}
		fleet.Fired = fleet.Fired || p.Overloaded
	}
	return fleet, pools
}

// DefaultDetector is the detector sweeps use when Options.Detector is nil.
var DefaultDetector Detector = BacklogDetector{}
