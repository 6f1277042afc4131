package main

import (
	"github.com/fleetsim/fleetsim/sim"
)

// metaTiming is the Parquet metadata key of the timing the pools ran
// (sim.Config.TimingLabel), written when it says more than the scenario's
// timing (auto, or a pool's own preset), e.g. "auto (kv + calibrated
// prefill)".
const metaTiming = "fleetsim.timing"

// timingMeta adds metaTiming to meta when the label differs from
// cfg.Timing, so a run under a named preset (--timing kv, --compat papers)
// writes the same bytes as before the key existed.
func timingMeta(cfg sim.Config, meta map[string]string) map[string]string {
	if l := cfg.TimingLabel(); l != cfg.Timing {
		meta[metaTiming] = l
	}
	return meta
}
