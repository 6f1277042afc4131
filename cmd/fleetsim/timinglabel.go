package main

import (
	"slices"
	"strings"

	"github.com/fleetsim/fleetsim/pools/catalog"
	"github.com/fleetsim/fleetsim/sim"
)

// metaTiming is the Parquet metadata key of the timing the pools ran
// (timingLabel), written when it says more than the scenario's timing
// (auto, or a pool's own preset), e.g. "auto (kv + calibrated prefill)".
const metaTiming = "fleetsim.timing"

// timingMeta adds metaTiming to meta when the label differs from
// cfg.Timing, so a run under a named preset (--timing kv, --compat papers)
// writes the same bytes as before the key existed.
func timingMeta(cfg sim.Config, meta map[string]string) map[string]string {
	if l := timingLabel(cfg); l != cfg.Timing {
		meta[metaTiming] = l
	}
	return meta
}

// timingLabel is the run's timing preset for the summary line; under auto,
// or when a pool sets its own, it names what the pools run, e.g.
// "auto (kv + calibrated prefill)" (the hand-written profiles: their W and
// H plus the calibrated prompt-token cost of the instance each stands
// for), "auto (kv + calibrated prefill, calibrated)" or "kv (measured,
// kv)"; a pool that auto resolves to a preset charging no prompt tokens
// (a profile file's constants: kv) is flagged.
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
