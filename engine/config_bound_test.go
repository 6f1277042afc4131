package engine

import "testing"

// TestLongestIterationBoundsPrefillByKV: the longest-iteration check
// counts the prompt tokens one iteration can prefill, at most MaxModelLen
// per sequence and the KV cache's tokens in all, not MaxSeqs full chunks.
// The case is the papers' a100 profile at a 2-token max context (65,536
// slots, 65,536 blocks of 16 tokens) with a prompt-token cost P = 86.88 µs
// (pools/catalog, the default timing): 65,536 × 2 tokens × 86.88 µs = 11.4 s
// of prefill, where 65,536 × 512 would claim 2,915 s > MaxIterationS.
func TestLongestIterationBoundsPrefillByKV(t *testing.T) {
	c := Config{MaxSeqs: 65536, KVBlocks: 65536, BlockTokens: 16, ChunkTokens: 512, MaxModelLen: 2,
		Timing: Timing{W: 0.008, HKV: 0.00065 / 8192, P: 86.88e-6}}
	if err := c.Validate(); err != nil {
		t.Errorf("valid config refused: %v", err)
	}
	// A bound that does bind: a P of 1 ms over 1,048,576 KV tokens.
	c.MaxModelLen, c.Timing.P = 4096, 1e-3
	if err := c.Validate(); err == nil {
		t.Errorf("an iteration of 1,049 s accepted")
	}
}

// TestLongestIterationBoundsKVTokens: the prompt-token bound binds where
// MaxSeqs full chunks would not (the old check refused this config at
// 65,536 × 512 × 50 µs = 1,678 s; at most 1,048,576 prompt tokens fit:
// 52 s), and with a prefix cache the KV tokens an iteration counts are
// its sequences' whole contexts, shared blocks counted by each (the
// engine's oracle saw 185 counted in a cache of 184): up to MaxSeqs ×
// MaxModelLen = 1,000 × 1,600 tokens × 10 ms = 16,000 s, where the cache's
// 1,600 tokens alone give 16 s.
func TestLongestIterationBoundsKVTokens(t *testing.T) {
	c := Config{MaxSeqs: 65536, KVBlocks: 65536, BlockTokens: 16, ChunkTokens: 512, MaxModelLen: 65536,
		Timing: Timing{W: 0.008, HKV: 0.00065 / 8192, P: 50e-6}}
	if err := c.Validate(); err != nil {
		t.Errorf("valid config refused: %v", err)
	}
	c = Config{MaxSeqs: 1000, KVBlocks: 100, BlockTokens: 16, ChunkTokens: 16, MaxModelLen: 1600,
		Timing: Timing{W: 0.008, HKV: 0.01}}
	if err := c.Validate(); err != nil {
		t.Errorf("without a prefix cache: valid config refused: %v", err)
	}
	c.CacheBlocks = 100
	if err := c.Validate(); err == nil {
		t.Errorf("with a prefix cache: an iteration of 16,000 s accepted")
	}
}
