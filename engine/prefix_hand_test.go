package engine

import "testing"

// prefixCfg is the hand cases' instance: W = 10 ms, P = 10 µs per prefilled
// token (both whole picoseconds, so iteration times are exact), chunks of
// 512 tokens, 16-token blocks, every free block may keep cached content.
func prefixCfg(kvBlocks int) Config {
	return Config{MaxSeqs: 4, KVBlocks: kvBlocks, BlockTokens: 16, ChunkTokens: 512, MaxModelLen: 8192,
		Timing: Timing{W: 0.010, P: 1e-5}, CacheBlocks: kvBlocks}
}

// Two 1,100-token prompts share their first two 512-token hash units
// (1,024 tokens, 64 blocks) and differ in the third.
var (
	prefixA = &Prefix{Hashes: []uint64{1, 2, 100}, Tokens: 512}
	prefixB = &Prefix{Hashes: []uint64{1, 2, 200}, Tokens: 512}
)

func runOne(t *testing.T, e *Engine, j Job, at Time) Result {
	t.Helper()
	if res, ok := e.Submit(j, at); !ok {
		t.Fatalf("rejected: %s", res.Reason)
	}
	res := e.AdvanceTo(Never, nil)
	if len(res) != 1 {
		t.Fatalf("%d results", len(res))
	}
	return res[0]
}

func wantTimes(t *testing.T, name string, r Result, first, fin float64, cached int) {
	t.Helper()
	if r.FirstToken != Seconds(first) || r.Finished != Seconds(fin) || r.Cached != cached {
		t.Errorf("%s: first %v fin %v cached %d, want %v %v %d", name, r.FirstToken.Seconds(), r.Finished.Seconds(), r.Cached, first, fin, cached)
	}
}

// TestPrefixSharedSecondPrefillsSuffix: A (1,100 tokens, 2 out) alone at 0:
// prefill 512 + 512 + 76 tokens in three iterations of 10 ms + 10 µs per
// token: 15.12 ms, 15.12 ms, 10.76 ms, first token at 41.00 ms; one decode
// iteration of 10 ms: finished at 51.00 ms. Its prefill publishes the 68
// whole blocks of its prompt (1,088 tokens). B, same first 1,024 tokens,
// arrives at 1 s: 64 blocks hit (the third hash differs), so it prefills
// only its 76-token suffix: 10.76 ms, first token at 1.01076 s, finished at
// 1.02076 s, Cached = 1,024.
func TestPrefixSharedSecondPrefillsSuffix(t *testing.T) {
	e, _ := New(prefixCfg(1000))
	a := runOne(t, e, Job{In: 1100, Out: 2, Prefix: prefixA}, 0)
	wantTimes(t, "A", a, 0.041, 0.051, 0)
	if got := e.CachedPrefix(prefixB, 1100); got != 1024 {
		t.Errorf("CachedPrefix(B) = %d, want 1024", got)
	}
	if got := e.CachedPrefix(prefixA, 1100); got != 1088 {
		t.Errorf("CachedPrefix(A) = %d, want 1088 (68 whole blocks)", got)
	}
	// A fully cached prompt still computes its last block: 1,088 tokens of
	// a 1,088-token prompt are cached, at most (1088-1)/16 = 67 blocks hit.
	if got := e.CachedPrefix(prefixA, 1088); got != 1072 {
		t.Errorf("CachedPrefix(A, 1088) = %d, want 1072", got)
	}
	b := runOne(t, e, Job{In: 1100, Out: 2, Prefix: prefixB}, Second)
	wantTimes(t, "B", b, 1.01076, 1.02076, 1024)
	if st := e.Stats(); st.CachedTokens != 1024 || st.CacheEvictions != 0 || st.FreeBlocks != 1000 || st.CachedBlocks != 72 {
		t.Errorf("stats %+v, want 1024 cached tokens, 0 evictions, 1000 free blocks of which 72 cached (68 + B's 4)", st)
	}
}

// TestPrefixSharedWhileRunning: A now has 3 output tokens. B arrives at
// 41 ms, exactly when A's prefill has completed (its blocks published) and
// its first decode iteration starts. That iteration admits B (64 blocks
// hit, referenced by both) and runs A's decode with B's 76-token prefill:
// 10.76 ms, so B's first token comes at 51.76 ms; the next iteration (both
// decode, 10 ms) ends both at 61.76 ms. While both run the 64 shared blocks
// count once: A holds 69 blocks, B 5 more.
func TestPrefixSharedWhileRunning(t *testing.T) {
	e, _ := New(prefixCfg(1000))
	e.Submit(Job{In: 1100, Out: 3, Prefix: prefixA, Tag: 1}, 0)
	out := e.AdvanceTo(Seconds(0.041), nil)
	e.Submit(Job{In: 1100, Out: 2, Prefix: prefixB, Tag: 2}, Seconds(0.041))
	out = e.AdvanceTo(Seconds(0.041)+1, out)
	if st := e.Stats(); st.Running != 2 || st.FreeBlocks != 1000-69-5 {
		t.Errorf("while both run: stats %+v, want 2 running, %d free", st, 1000-69-5)
	}
	out = e.AdvanceTo(Never, out)
	if len(out) != 2 {
		t.Fatalf("%d results", len(out))
	}
	wantTimes(t, "A", out[0], 0.041, 0.06176, 0)
	wantTimes(t, "B", out[1], 0.05176, 0.06176, 1024)
}

// TestPrefixEvictedIsRecomputed: 100 blocks. A runs alone and leaves its 68
// published blocks cached (100 free, 68 of them cached). C (1,000 tokens,
// no prefix) needs 63 blocks: 32 hold nothing, so 31 cached blocks are
// evicted, least recently released first; A released its blocks last block
// first, so blocks 37..67 go and blocks 0..36 (592 tokens) stay. B then
// hits 37 blocks and recomputes the rest of the shared prefix: it prefills
// 1,100 - 592 = 508 tokens in one iteration, 10 ms + 5.08 ms.
func TestPrefixEvictedIsRecomputed(t *testing.T) {
	e, _ := New(prefixCfg(100))
	runOne(t, e, Job{In: 1100, Out: 2, Prefix: prefixA}, 0)
	runOne(t, e, Job{In: 1000, Out: 1}, Second)
	if st := e.Stats(); st.CacheEvictions != 31 || st.CachedBlocks != 37 {
		t.Errorf("after C: stats %+v, want 31 evictions, 37 cached blocks", st)
	}
	if got := e.CachedPrefix(prefixB, 1100); got != 592 {
		t.Errorf("CachedPrefix(B) = %d, want 592", got)
	}
	b := runOne(t, e, Job{In: 1100, Out: 2, Prefix: prefixB}, 2*Second)
	wantTimes(t, "B", b, 2.01508, 2.02508, 592)

	// With CacheBlocks = 10 only A's first 10 blocks stay cached.
	cfg := prefixCfg(1000)
	cfg.CacheBlocks = 10
	e, _ = New(cfg)
	runOne(t, e, Job{In: 1100, Out: 2, Prefix: prefixA}, 0)
	if st := e.Stats(); st.CachedBlocks != 10 || st.CacheEvictions != 58 || e.CachedPrefix(prefixB, 1100) != 160 {
		t.Errorf("CacheBlocks 10: stats %+v, CachedPrefix %d, want 10 cached, 58 evicted, 160 tokens", st, e.CachedPrefix(prefixB, 1100))
	}
}

// TestPrefixReferencedNeverEvicted: 140 blocks. After A, its 68 blocks are
// cached and unreferenced (72 hold nothing). At 1 s, B is admitted first:
// it references A's 64 shared blocks and takes 5 plain ones (67 plain, 4
// cached unreferenced left: 71 free). D (1,100 tokens, no prefix) is
// admitted by the same iteration and takes 69 blocks: 67 plain, then the 2
// least recently released cached ones (A's blocks 67 and 66). B's 64
// referenced blocks stay: the prefix A shares with B is still cached, plus
// A's blocks 64 and 65 (1,056 tokens); 2 blocks are free, both cached.
func TestPrefixReferencedNeverEvicted(t *testing.T) {
	e, _ := New(prefixCfg(140))
	runOne(t, e, Job{In: 1100, Out: 2, Prefix: prefixA}, 0)
	e.Submit(Job{In: 1100, Out: 2, Prefix: prefixB}, Second)
	e.Submit(Job{In: 1100, Out: 2}, Second)
	e.AdvanceTo(Second+1, nil)
	st := e.Stats()
	if st.Running != 2 || st.CacheEvictions != 2 || st.FreeBlocks != 2 || st.CachedBlocks != 2 {
		t.Errorf("stats %+v, want 2 running, 2 evictions, 2 free blocks both cached", st)
	}
	if got := e.CachedPrefix(prefixA, 1100); got != 1056 {
		t.Errorf("CachedPrefix(A) = %d, want 1056", got)
	}
	// A third job that needs blocks waits: the referenced blocks are not
	// free. B's prefill (76 tokens, the same iteration) has published its
	// own 4 blocks: B's whole 1,088 tokens are cached.
	e.Submit(Job{In: 100, Out: 2}, Second+1)
	e.AdvanceTo(Second+2, nil)
	if st := e.Stats(); st.Queued != 1 || e.CachedPrefix(prefixB, 1100) != 1088 {
		t.Errorf("stats %+v, CachedPrefix(B) %d: want the job queued and B's prefix cached", st, e.CachedPrefix(prefixB, 1100))
	}
}

// TestPrefixPreemptedReusesOwnBlocks follows vLLM's rule for a preempted
// request: its blocks are freed, the computed whole blocks of its prompt
// stay cached unreferenced, and its readmission hits them. 10 blocks,
// chunks of 4 tokens, W = 10 ms only. X (16 tokens, no prefix, 40 out)
// prefills in iterations 1–4 (first token at 0.04 s) and then needs a new
// block every 16 iterations, from iteration 5; Y (128 tokens = 8 hashed
// blocks, 2 out) prefills 4 tokens an iteration. Iteration 1 uses 1 + 8 = 9
// blocks, X's growth at iteration 5 the 10th. At iteration 21 X needs
// another block and none is free: Y, the most recent, is preempted after
// 20 chunks (80 tokens = 5 whole blocks, which stay cached). Y cannot come
// back before X finishes (it would need 8 free blocks: 3 new + its 5
// cached, which count as free), i.e. at the end of iteration 43 (0.43 s).
// Readmitted, it hits its 5 blocks and prefills the other 48 tokens: 12
// iterations, first token at 0.55 s, done at 0.56 s (without the cache: 32
// iterations, first token at 0.75 s).
func TestPrefixPreemptedReusesOwnBlocks(t *testing.T) {
	cfg := Config{MaxSeqs: 2, KVBlocks: 10, BlockTokens: 16, ChunkTokens: 4, MaxModelLen: 1000,
		Timing: Timing{W: 0.010}, CacheBlocks: 10}
	hashes := make([]uint64, 8)
	for i := range hashes {
		hashes[i] = uint64(i + 1)
	}
	e, _ := New(cfg)
	e.Submit(Job{In: 16, Out: 40, Tag: 1}, 0)
	e.Submit(Job{In: 128, Out: 2, Tag: 2, Prefix: &Prefix{Hashes: hashes, Tokens: 16}}, 0)
	out := e.AdvanceTo(Never, nil)
	if len(out) != 2 {
		t.Fatalf("%d results", len(out))
	}
	x, y := out[0], out[1]
	if x.Job.Tag != 1 || x.FirstToken != Seconds(0.04) || x.Finished != Seconds(0.43) || x.Preemptions != 0 {
		t.Errorf("X: %+v, want first token 0.04 s, finished at 0.43 s", x)
	}
	if y.Preemptions != 1 || y.Cached != 0 || y.FirstToken != Seconds(0.55) || y.Finished != Seconds(0.56) {
		t.Errorf("Y: %+v, want 1 preemption, Cached 0 (first admission), first token 0.55 s, done 0.56 s", y)
	}
}

// TestCacheBlocksValidate: the cache lives in the KV blocks.
func TestCacheBlocksValidate(t *testing.T) {
	cfg := prefixCfg(100)
	cfg.CacheBlocks = 101
	if err := cfg.Validate(); err == nil || err.Error() != "engine: CacheBlocks = 101, must be in [0, KVBlocks = 100] (the prefix cache lives in the instance's KV blocks; 0 = off)" {
		t.Errorf("got %v", err)
	}
	cfg.CacheBlocks = -1
	if cfg.Validate() == nil {
		t.Error("CacheBlocks -1 accepted")
	}
}

// TestPrefixBadUnitRejected: a hash unit that is not a whole number of
// blocks is refused at Submit (with the cache on) and ignored with it off.
func TestPrefixBadUnitRejected(t *testing.T) {
	e, _ := New(prefixCfg(100))
	res, ok := e.Submit(Job{In: 100, Out: 2, Prefix: &Prefix{Hashes: []uint64{1}, Tokens: 500}}, 0)
	if ok || res.Reason != "prefix hash unit 500 tokens, must be a positive multiple of the KV block size 16, at most 1073741824" {
		t.Errorf("got %+v %v", res, ok)
	}
	cfg := prefixCfg(100)
	cfg.CacheBlocks = 0
	e, _ = New(cfg)
	if _, ok := e.Submit(Job{In: 100, Out: 2, Prefix: &Prefix{Hashes: []uint64{1}, Tokens: 500}}, 0); !ok {
		t.Error("rejected with the cache off")
	}
}

// TestPrefilledJob: a decode instance receives a 100-token prompt whose KV
// was computed elsewhere (3 output tokens, the first already produced). At
// 0 it is admitted with ceil(101/16) = 7 blocks and decodes tokens 2 and 3
// in two iterations of W = 10 ms: finished at 20 ms, FirstToken 0. A
// prefilled job with one output token has nothing to decode: rejected.
func TestPrefilledJob(t *testing.T) {
	cfg := prefixCfg(100)
	cfg.Timing = Timing{W: 0.010}
	e, _ := New(cfg)
	if !e.CanAdmitPrefilled(Job{In: 100, Out: 3}) {
		t.Fatal("CanAdmitPrefilled false on an idle instance")
	}
	e.SubmitPrefilled(Job{In: 100, Out: 3}, 0)
	e.AdvanceTo(1, nil)
	if st := e.Stats(); st.FreeBlocks != 93 || st.Running != 1 {
		t.Errorf("after admission: %+v, want 93 free blocks", st)
	}
	out := e.AdvanceTo(Never, nil)
	if len(out) != 1 || out[0].Finished != Seconds(0.020) || out[0].FirstToken != 0 || out[0].Admitted != 0 || e.Stats().Iterations != 2 {
		t.Errorf("got %+v, %d iterations; want finished at 20 ms after 2 iterations", out, e.Stats().Iterations)
	}
	if res, ok := e.SubmitPrefilled(Job{In: 100, Out: 1}, Second); ok || res.Reason != "prefilled job with output length 1 tokens: must be >= 2 (its prefill produced the first token)" {
		t.Errorf("got %+v %v", res, ok)
	}
}
