package sim

import (
	"fmt"

	"github.com/fleetsim/fleetsim/pools/catalog"
)

// DisaggConfig makes a pool prefill/decode-disaggregated (issue 18,
// docs/prefix.md "Disaggregated pools"): Prefill instances prefill every
// request (a job with L_out = 1), its KV cache moves over Link to one of
// Decode instances, which decodes the rest. The pool's count is
// Prefill + Decode.
type DisaggConfig struct {
	Prefill int `json:"prefill" yaml:"prefill"` // prefill instances, >= 1
	Decode  int `json:"decode" yaml:"decode"`   // decode instances, >= 1
	// Link is the prefill → decode link (bandwidth one way, GB/s, and a
	// fixed latency, s); nil = the GPU's interconnect (catalog.Hardware
	// LinkGBs / 2 one way), no latency.
	Link *catalog.KVLink `json:"link,omitempty" yaml:"link,omitempty"`
	// KVBytesPerToken is the KV cache of one prompt token, bytes; 0 = the
	// pool's model's (a computed instance), or Llama-3-70B's 327,680 for the
	// a100 and h100 profiles, which serve it.
	KVBytesPerToken float64 `json:"kv_bytes_per_token,omitempty" yaml:"kv_bytes_per_token,omitempty"`
}

// disaggLink returns the link and KV bytes per token of a disaggregated
// pool with instance profile g.
func (d *DisaggConfig) disaggLink(p PoolConfig, g catalog.GPU) (catalog.KVLink, float64, error) {
	var link catalog.KVLink
	var err error
	if d.Link != nil {
		link = *d.Link
	} else if link, err = catalog.DefaultKVLink(p.GPU, g); err != nil {
		return link, 0, err
	}
	kv := d.KVBytesPerToken
	if !(kv > 0) {
		if kv, err = catalog.DefaultKVBytesPerToken(g); err != nil {
			return link, 0, err
		}
	}
	return link, kv, nil
}

// validate checks the disaggregation of pool f (field path).
func (d *DisaggConfig) validate(f string, p PoolConfig, g catalog.GPU) error {
	if d == nil {
		return nil
	}
	f += ".disaggregated"
	switch {
	case d.Prefill < 1:
		return bad(f+".prefill", d.Prefill, "a disaggregated pool needs at least 1 prefill instance")
	case d.Decode < 1:
		return bad(f+".decode", d.Decode, "a disaggregated pool needs at least 1 decode instance")
	case d.Prefill+d.Decode != p.Count:
		return bad(f, fmt.Sprintf("{prefill: %d, decode: %d}", d.Prefill, d.Decode), "prefill + decode must equal the pool's count %d", p.Count)
	case p.Dispatch != "" && p.Dispatch != DispatchJSQ:
		return bad(f, p.Name, "a disaggregated pool dispatches to private queues: dispatch jsq or none (pool dispatch %q)", p.Dispatch)
	case !(d.KVBytesPerToken >= 0) || d.KVBytesPerToken > 1e12:
		return bad(f+".kv_bytes_per_token", d.KVBytesPerToken, "must be in [0, 1e12] bytes (0 = the model's)")
	}
	if d.Link != nil {
		if err := d.Link.Validate(); err != nil {
			return bad(f+".link", fmt.Sprintf("%+v", *d.Link), "%v", err)
		}
	}
	link, kv, err := d.disaggLink(p, g)
	if err != nil {
		return bad(f, p.Name, "%v", err)
	}
	// The longest prompt is max_ctx − 1 tokens (L_out >= 1).
	if err := link.CheckLongest(p.MaxContext-1, kv); err != nil {
		return bad(f, fmt.Sprintf("link %+v, kv_bytes_per_token %g", link, kv), "%v", err)
	}
	return nil
}
