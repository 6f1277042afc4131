// Package engine models one serving instance (a GPU or a tensor-parallel
// group) running continuous batching with chunked prefill and a paged KV
// cache of fixed-size blocks. It is pure: it has no clock, does no I/O and
// draws no random numbers; time only moves when the caller advances it.
//
// See docs/model.md for the equations and the order of the steps inside one
// iteration.
package engine

import (
	"fmt"
	"math"
)

// Timing holds the coefficients of the iteration-time model
//
//	t_iter = W + HSeq*n_active + HKV*kv_tokens + P*prefill_tokens
//
// in seconds. HSeq alone is the papers' W + H*n; HKV = H/8192 alone is the
// attention-proportional form.
type Timing struct {
	W    float64 // fixed cost of an iteration, s
	HSeq float64 // cost per active sequence, s/sequence
	HKV  float64 // cost per token held in the KV cache by active sequences, s/token
	P    float64 // cost per prompt token prefilled in the iteration, s/token
}

// MinIterationS is the shortest Timing.W Config.Validate accepts, s: every
// iteration takes at least one picosecond, the engine's time unit.
const MinIterationS = 1e-12

// Config is the static configuration of one instance.
type Config struct {
	MaxSeqs          int    // batch slots: most sequences running at once
	KVBlocks         int    // KV-cache capacity, blocks
	BlockTokens      int    // tokens per KV block (16)
	ChunkTokens      int    // most prompt tokens one sequence prefills per iteration (512)
	BatchTokenBudget int    // most tokens per iteration (decode first), 0 = no cap (lockstep)
	MaxModelLen      int    // longest L_in + L_out accepted, tokens
	Timing           Timing // iteration-time coefficients
	// CacheBlocks turns the prefix cache on (> 0) and bounds the
	// unreferenced blocks it keeps, blocks; it lives in the KV blocks, so
	// it is at most KVBlocks (KVBlocks: every free block may keep its
	// content). 0 = no prefix cache.
	CacheBlocks int
}

// Validate reports the first invalid field of c, naming the field, its value
// and what is allowed.
func (c Config) Validate() error {
	switch {
	case c.MaxSeqs < 1:
		return fmt.Errorf("engine: MaxSeqs = %d, must be >= 1 (batch slots)", c.MaxSeqs)
	case c.BlockTokens < 1:
		return fmt.Errorf("engine: BlockTokens = %d, must be >= 1 (tokens per KV block, usually 16)", c.BlockTokens)
	case c.KVBlocks < 1:
		return fmt.Errorf("engine: KVBlocks = %d, must be >= 1 (KV-cache capacity in blocks)", c.KVBlocks)
	case c.ChunkTokens < 1:
		return fmt.Errorf("engine: ChunkTokens = %d, must be >= 1 (prefill chunk, tokens)", c.ChunkTokens)
	case c.BatchTokenBudget < 0:
		return fmt.Errorf("engine: BatchTokenBudget = %d, must be >= 0 (0 = no cap)", c.BatchTokenBudget)
	case c.MaxModelLen < 2:
		return fmt.Errorf("engine: MaxModelLen = %d, must be >= 2 (longest L_in+L_out, tokens)", c.MaxModelLen)
	case c.CacheBlocks < 0 || c.CacheBlocks > c.KVBlocks:
		return fmt.Errorf("engine: CacheBlocks = %d, must be in [0, KVBlocks = %d] (the prefix cache lives in the instance's KV blocks; 0 = off)", c.CacheBlocks, c.KVBlocks)
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"Timing.W", c.Timing.W}, {"Timing.HSeq", c.Timing.HSeq}, {"Timing.HKV", c.Timing.HKV}, {"Timing.P", c.Timing.P}} {
		if !(f.v >= 0) || math.IsInf(f.v, 0) {
			return fmt.Errorf("engine: %s = %v, must be a finite number >= 0 (seconds)", f.name, f.v)
		}
	}
	if !(c.Timing.W >= MinIterationS) {
		return fmt.Errorf("engine: Timing.W = %v, must be >= %g (every iteration takes at least one picosecond, the engine's time unit; seconds)", c.Timing.W, MinIterationS)
	}
	// The longest iteration: every slot active and prefilling a full chunk
	// (of at most MaxModelLen tokens, and no more prompt tokens in all than
	// the KV cache holds: each is written to a block of its own), holding
	// the most KV tokens it can: the whole KV cache, or with a prefix cache,
	// whose blocks sequences share (each counts its whole context), every
	// slot at MaxModelLen tokens if that is more.
	tm := c.Timing
	kvTokens := float64(c.KVBlocks) * float64(c.BlockTokens)
	prefill := min(float64(c.MaxSeqs)*float64(min(c.ChunkTokens, c.MaxModelLen)), kvTokens)
	held := kvTokens
	if c.CacheBlocks > 0 {
		held = max(held, float64(c.MaxSeqs)*float64(c.MaxModelLen))
	}
	worst := tm.W + tm.HSeq*float64(c.MaxSeqs) + tm.HKV*held + tm.P*prefill
	if !(worst <= MaxIterationS) {
		return fmt.Errorf("engine: Timing %+v: the longest iteration takes %.4g s, must be <= %g s (MaxIterationS)", tm, worst, float64(MaxIterationS))
	}
	return nil
}
