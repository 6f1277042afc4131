package sim

import (
	"fmt"

	"github.com/fleetsim/fleetsim/engine"
)

// EngineOverride replaces parts of the engine configuration a pool takes
// from its GPU's catalog entry; zero fields keep the catalog's. It is how a
// pool runs with a fitted variant profile (pools/variants, `fleetsim fit`):
// the CLI reads PoolConfig.Profile into Timing; `optimize --simulate` also
// sets the batch limit and the KV budget of the variant it checks.
type EngineOverride struct {
	Timing      *engine.Timing `json:"timing,omitempty"`       // iteration-time coefficients, s
	MaxSeqs     int            `json:"max_seqs,omitempty"`     // batch slots
	KVBlocks    int            `json:"kv_blocks,omitempty"`    // KV-cache capacity, blocks
	ChunkTokens int            `json:"chunk_tokens,omitempty"` // prefill chunk, tokens
}

// apply overlays o on c (a nil o changes nothing).
func (o *EngineOverride) apply(c *engine.Config) {
	if o == nil {
		return
	}
	if o.Timing != nil {
		c.Timing = *o.Timing
	}
	if o.MaxSeqs > 0 {
		c.MaxSeqs = o.MaxSeqs
	}
	if o.KVBlocks > 0 {
		c.KVBlocks = o.KVBlocks
	}
	if o.ChunkTokens > 0 {
		c.ChunkTokens = o.ChunkTokens
	}
}

// validate checks o for pool field f ("pools[i]").
func (o *EngineOverride) validate(f string, p PoolConfig) error {
	if p.ProfileName != "" && p.Profile == "" {
		return bad(f+".profile_name", p.ProfileName, "names a profile of the pool's profile file; set profile")
	}
	if o == nil {
		if p.Profile != "" {
			return bad(f+".profile", p.Profile, "profile file not loaded (the CLI loads it)")
		}
		return nil
	}
	if o.MaxSeqs < 0 || o.KVBlocks < 0 || o.ChunkTokens < 0 {
		return bad(f+".override", fmt.Sprintf("%+v", *o), "max_seqs, kv_blocks and chunk_tokens must be >= 0 (0 = the catalog's)")
	}
	if o.Timing != nil {
		c := engine.Config{MaxSeqs: 1, KVBlocks: 1, BlockTokens: 1, ChunkTokens: 1, MaxModelLen: 2, Timing: *o.Timing}
		if err := c.Validate(); err != nil {
			return bad(f+".profile", p.Profile, "%v", err)
		}
	}
	return nil
}
