package engine

import "fmt"

// Prefix describes the content of a job's prompt as a hash chain, for the
// prefix cache (Config.CacheBlocks > 0; see docs/model.md, "Prefix cache").
//
// Hashes[k] names the prompt's tokens [k·Tokens, (k+1)·Tokens) given every
// token before them: two prompts share their first k+1 hash units exactly
// when Hashes[0..k] are equal. Tokens is a positive multiple of the engine's
// BlockTokens, so each hash covers Tokens/BlockTokens whole KV blocks: a
// Mooncake trace's 512-token hash_ids cover 32 blocks of 16 tokens, and
// Tokens = BlockTokens gives one hash per block. Hashes may cover fewer or
// more tokens than the prompt: only the blocks inside both the prompt and the
// hashes can be shared; the rest of the prompt is the job's own.
//
// The engine reads a Prefix and never changes it; jobs may share one.
type Prefix struct {
	Hashes []uint64 // chain of content hashes, one per Tokens tokens
	Tokens int      // tokens each hash covers, a positive multiple of BlockTokens
}

// maxPrefixTokens bounds Prefix.Tokens (so that hash counts times tokens
// stay far from overflow).
const maxPrefixTokens = 1 << 30

// prefixReason returns why p cannot be used by an engine with blocks of bt
// tokens, or "".
func prefixReason(p *Prefix, bt int) string {
	if p.Tokens < 1 || p.Tokens%bt != 0 || p.Tokens > maxPrefixTokens {
		return fmt.Sprintf("prefix hash unit %d tokens, must be a positive multiple of the KV block size %d, at most %d", p.Tokens, bt, maxPrefixTokens)
	}
	return ""
}

// hashableBlocks returns how many of p's leading KV blocks (bt tokens each)
// lie inside both the hashes and a prompt of in tokens.
func hashableBlocks(p *Prefix, in, bt int) int {
	return min(in, len(p.Hashes)*p.Tokens) / bt
}

// mix64 is the SplitMix64 finalizer, a bijection on uint64 that spreads
// every input bit over the output.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// blockKeys yields the cache keys of a prefix's KV blocks in order: block b
// of hash unit k has key mix(chain_k + b+1), where chain_k folds every hash
// up to and including Hashes[k], so a key names the block and everything
// before it (vLLM's chained block hash).
type blockKeys struct {
	p     *Prefix
	per   int    // blocks per hash unit
	k, j  int    // next block: unit k, block j inside it
	chain uint64 // chain value of unit k (valid when j > 0)
}

func newBlockKeys(p *Prefix, bt int) blockKeys {
	return blockKeys{p: p, per: p.Tokens / bt, chain: 0x9e3779b97f4a7c15}
}

// next returns the key of the next block; the caller stays within
// hashableBlocks.
func (it *blockKeys) next() uint64 {
	if it.j == 0 {
		it.chain = mix64(it.chain ^ mix64(it.p.Hashes[it.k]+0x632be59bd9b4e019))
	}
	key := mix64(it.chain + uint64(it.j+1)*0x9e3779b97f4a7c15)
	if it.j++; it.j == it.per {
		it.j = 0
		it.k++
	}
	return key
}
