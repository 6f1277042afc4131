// Package engine models one serving instance (a GPU or a tensor-parallel
// group) running continuous batching with chunked prefill and a paged KV
// cache of fixed-size blocks. It is pure: it has no clock, does no I/O and
// draws no random numbers; time only moves when the caller advances it.
//
// See docs/model.md for the equations and the order of the steps inside one
// iteration.
package engine

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

// Config is the static configuration of one instance.
type Config struct {
	MaxSeqs          int    // batch slots: most sequences running at once
	KVBlocks         int    // KV-cache capacity, blocks
	BlockTokens      int    // tokens per KV block (16)
	ChunkTokens      int    // most prompt tokens one sequence prefills per iteration (512)
	BatchTokenBudget int    // most tokens per iteration (decode first), 0 = no cap (lockstep)
	MaxModelLen      int    // longest L_in + L_out accepted, tokens
	Timing           Timing // iteration-time coefficients
}
