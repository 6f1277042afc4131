package main

import (
	"slices"
	"strings"

	"github.com/fleetsim/fleetsim/pools/catalog"
	"github.com/fleetsim/fleetsim/sim"
)

// timingLabel is the run's timing preset for the summary line; under auto,
// or when a pool sets its own, it names what the pools run, e.g.
// "auto (kv: prompt tokens free, calibrated)" or "kv (measured, kv)"; a
// pool that auto resolves to a preset charging no prompt tokens (the
// papers' hand-written profiles: kv) is flagged.
func timingLabel(cfg sim.Config) string {
	var got []string
	own := false
	for _, p := range cfg.Pools {
		g, err := p.InstanceProfile()
		if err != nil {
			continue
		}
		own = own || p.Timing != ""
		preset := p.TimingOf(cfg.Timing)
		r := g.ResolveTiming(preset)
		if preset == catalog.TimingAuto && (r == catalog.TimingKV || r == catalog.TimingPaper) {
			r += ": prompt tokens free" // auto charges them where it can; say where it does not
		}
		if !slices.Contains(got, r) {
			got = append(got, r)
		}
	}
	if cfg.Timing != catalog.TimingAuto && !own {
		return cfg.Timing
	}
	return cfg.Timing + " (" + strings.Join(got, ", ") + ")"
}
