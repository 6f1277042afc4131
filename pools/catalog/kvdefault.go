package catalog

import (
	"fmt"
	"strings"
)

// DefaultKVLink returns the prefill → decode link of a disaggregated pool
// whose configuration names none: half the interconnect of the pool's GPU
// (Hardware.LinkGBs is both directions together), no latency. gpu is the
// pool's GPU name as configured and g its profile (a computed instance's
// own GPU is used when it has one).
func DefaultKVLink(gpu string, g GPU) (KVLink, error) {
	hw := gpu
	if g.Inst != nil {
		hw = g.Inst.GPU.Name
	}
	h, err := LookupHardware(strings.SplitN(hw, "/", 2)[0])
	if err != nil || !(h.LinkGBs > 0) {
		return KVLink{}, fmt.Errorf("no interconnect in the catalog for GPU %q: set disaggregated.link.gb_s", gpu)
	}
	return KVLink{GBs: h.LinkGBs / 2}, nil
}

// DefaultKVBytesPerToken returns the KV cache of one prompt token that a
// disaggregated pool of profile g moves, bytes: a computed instance's
// model's, or Llama-3-70B's 327,680 for the hand-written a100 and h100
// profiles, which serve it.
func DefaultKVBytesPerToken(g GPU) (float64, error) {
	switch {
	case g.Inst != nil:
		return g.Inst.Model.KVBytesPerToken(), nil
	case g.Name == "a100" || g.Name == "h100":
		m, err := LookupModel("llama-3-70b")
		if err != nil {
			return 0, err
		}
		return m.KVBytesPerToken(), nil
	}
	return 0, fmt.Errorf("the KV bytes per token of profile %q are unknown: set disaggregated.kv_bytes_per_token", g.Name)
}
