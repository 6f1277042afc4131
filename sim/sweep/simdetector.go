package sweep

import (
	"math"

	"github.com/fleetsim/fleetsim/sim"
)

// SimDetector reads the verdicts of the simulator's own over-saturation
// detector (sim.Config.OSD: guidellm's detector fed live, per pool and for
// the fleet). A scenario whose mode is off is run in monitor mode, since a
// sweep reports the verdict; with enforce the run stops at the first
// detection.
type SimDetector struct{}

// Begin sets the run's OSD mode and keeps the sink.
func (SimDetector) Begin(cfg *sim.Config, _ *sim.Options, sink sim.Sink, enforce bool) (sim.Sink, VerdictFunc) {
	switch {
	case enforce:
		cfg.OSD.Mode = sim.OSDEnforce
	case cfg.OSD.Mode == "" || cfg.OSD.Mode == sim.OSDOff:
		cfg.OSD.Mode = sim.OSDMonitor
	}
	return sink, func(sum *sim.Summary) (Verdict, []Verdict) {
		pools := make([]Verdict, len(sum.Pools))
		for i := range sum.Pools {
			pools[i] = simVerdict(sum.Pools[i].OSD)
		}
		return simVerdict(sum.Fleet.OSD), pools
	}
}

func simVerdict(v sim.OSDVerdict) Verdict {
	if !v.Fired || v.FiredAtS == nil {
		return Verdict{Fired: v.Fired, AtS: math.NaN()}
	}
	return Verdict{Fired: true, AtS: *v.FiredAtS}
}
