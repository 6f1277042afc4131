package sim

import (
	"slices"
	"strings"

	"github.com/fleetsim/fleetsim/pools/catalog"
)

// TimingLabel is the run's timing preset as the summary line and the
// report print it; under auto, or when a pool sets its own, it names what
// the pools run, e.g. "auto (kv + calibrated prefill)" (the hand-written
// profiles: their W and H plus the calibrated prompt-token cost of the
// instance each stands for), "auto (kv + calibrated prefill, calibrated)"
// or "kv (measured, kv)"; a pool that auto resolves to a preset charging
// no prompt tokens (a profile file's constants: kv) is flagged, and a pool
// whose timing a variant profile replaces (PoolConfig.Profile) says
// "variant profile". A preset the user named for the whole run, where no
// pool departs from it, is printed as given.
func (c Config) TimingLabel() string {
	var got []string
	own := false
	for _, p := range c.Pools {
		g, err := p.InstanceProfile()
		if err != nil {
			continue
		}
		own = own || p.Timing != ""
		preset := p.TimingOf(c.Timing)
		r := g.ResolveTiming(preset)
		switch {
		case p.Override != nil && p.Override.Timing != nil:
			// a variant profile's W = α, H_seq = β, P = δ: no preset applies
			r, own = "variant profile", true
		case preset == catalog.TimingAuto && (r == catalog.TimingKV || r == catalog.TimingPaper):
			r += ": prompt tokens free" // auto charges them where it can; say where it does not
		}
		if !slices.Contains(got, r) {
			got = append(got, r)
		}
	}
	if c.Timing != catalog.TimingAuto && !own {
		return c.Timing
	}
	return c.Timing + " (" + strings.Join(got, ", ") + ")"
}
