package main

import (
	"slices"
	"strings"

	"github.com/fleetsim/fleetsim/pools/catalog"
	"github.com/fleetsim/fleetsim/sim"
)

// timingLabel is the run's timing preset for the summary line; under auto,
// or when a pool sets its own, it names what the pools run, e.g.
// "auto (kv)" or "kv (measured, kv)".
func timingLabel(cfg sim.Config) string {
	var got []string
	own := false
	for _, p := range cfg.Pools {
		g, err := p.InstanceProfile()
		if err != nil {
			continue
		}
		own = own || p.Timing != ""
		if r := g.ResolveTiming(p.TimingOf(cfg.Timing)); !slices.Contains(got, r) {
			got = append(got, r)
		}
	}
	if cfg.Timing != catalog.TimingAuto && !own {
		return cfg.Timing
	}
	return cfg.Timing + " (" + strings.Join(got, ", ") + ")"
}
