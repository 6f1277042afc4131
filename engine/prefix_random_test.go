package engine

import (
	"math/rand/v2"
	"testing"

	"github.com/fleetsim/fleetsim/workload"
)

// withPrefixes turns a random scenario into one with a prefix cache and
// shared prompt prefixes, drawing from rng: the hash unit is 1–3 KV blocks;
// prompts take a prefix of one of three hash chains (two of which share
// their first units), often followed by hashes of their own; the cache
// keeps every free block's content, or a random bound, or (one scenario in
// ten) is off while the jobs still carry prefixes; one job in fifty has a
// hash unit the engine cannot use (rejected).
func withPrefixes(sc scenario, rng *rand.Rand) scenario {
	bt := sc.cfg.BlockTokens
	unit := bt * (1 + rng.IntN(3))
	switch rng.IntN(10) {
	case 0:
		sc.cfg.CacheBlocks = 0
	case 1, 2, 3, 4:
		sc.cfg.CacheBlocks = 1 + rng.IntN(sc.cfg.KVBlocks)
	default:
		sc.cfg.CacheBlocks = sc.cfg.KVBlocks
	}
	const units = 40
	chains := make([][]uint64, 3)
	for c := range chains {
		chains[c] = make([]uint64, units)
		for k := range chains[c] {
			chains[c][k] = rng.Uint64N(1 << 40)
		}
	}
	copy(chains[1], chains[0][:1+rng.IntN(units/2)])
	own := uint64(1 << 50) // hashes of a job's own content
	reqs := make([]arrival, len(sc.reqs))
	copy(reqs, sc.reqs)
	for i := range reqs {
		if rng.IntN(8) == 0 {
			continue // no prefix
		}
		c := chains[rng.IntN(len(chains))]
		m := rng.IntN(units + 1)
		h := append([]uint64(nil), c[:m]...)
		for k := rng.IntN(4); k > 0; k-- {
			own++
			h = append(h, own)
		}
		p := &Prefix{Hashes: h, Tokens: unit}
		if rng.IntN(50) == 0 {
			p.Tokens = unit + 1 + rng.IntN(bt+3)
			if p.Tokens%bt == 0 {
				p.Tokens++
			}
		}
		reqs[i].job.Prefix = p
	}
	sc.reqs = reqs
	// One job in six arrives prefilled (a decode instance of a
	// disaggregated pool); some of those have one output token (rejected).
	sc.prefilled = make([]bool, len(reqs))
	for i := range sc.prefilled {
		sc.prefilled[i] = rng.IntN(6) == 0
	}
	return sc
}

// TestPrefixScenariosAgainstOracle compares the engine with the oracle,
// each keeping its own prefix cache (engine: chained 64-bit keys, an LRU
// list; oracle: blocks named by their hash chain in decimal, ages compared
// by scanning), on random scenarios with shared prefixes. It fails unless
// the scenarios hit the cache, evict and preempt in numbers.
func TestPrefixScenariosAgainstOracle(t *testing.T) {
	n := 1000
	if testing.Short() {
		n = 200
	}
	var withHits, withEvictions, withPreemptions, withAll int
	var hits, evictions, preemptions, hitTokens, prefilled int64
	var named struct{ all, preempted, cached, prefilled int }
	for i := 0; i < n; i++ {
		sc := randomScenario(workload.NewRand(uint64(i), workload.StreamLengths))
		sc = withPrefixes(sc, workload.NewRand(uint64(i), workload.StreamCategories))
		o, _, err := runScenario(sc)
		if err != nil {
			t.Fatalf("scenario %d (cfg %+v): %v", i, sc.cfg, err)
		}
		hits += o.hits
		evictions += o.evictions
		preemptions += o.preemptions
		hitTokens += o.hitTokens
		prefilled += o.prefilled
		named.all += o.named.all
		named.preempted += o.named.preempted
		named.cached += o.named.cached
		named.prefilled += o.named.prefilled
		if o.hits > 0 {
			withHits++
		}
		if o.evictions > 0 {
			withEvictions++
		}
		if o.preemptions > 0 {
			withPreemptions++
		}
		if o.hits > 0 && o.evictions > 0 && o.preemptions > 0 {
			withAll++
		}
	}
	t.Logf("%d scenarios: %d with cache hits (%d admissions hit, %d tokens), %d with evictions (%d blocks), %d with preemptions (%d), %d with all three; %d prefilled admissions",
		n, withHits, hits, hitTokens, withEvictions, evictions, withPreemptions, preemptions, withAll, prefilled)
	t.Logf("NextFinishing named %+v completions ahead", named)
	if named.all < n/2 || named.preempted < n/20 || named.cached < n/10 || named.prefilled < n/20 {
		t.Errorf("NextFinishing named too few completions of each kind ahead: %+v in %d scenarios", named, n)
	}
	if withHits < n/2 || withEvictions < n/5 || withPreemptions < n/5 || withAll < n/10 || prefilled < int64(n) {
		t.Errorf("too few scenarios exercise the cache: hits %d, evictions %d, preemptions %d, all three %d of %d",
			withHits, withEvictions, withPreemptions, withAll, n)
	}
}

// FuzzPrefixAgainstOracle runs the prefix-cache comparison from a fuzzed
// seed: go test ./engine -run '^$' -fuzz FuzzPrefixAgainstOracle
func FuzzPrefixAgainstOracle(f *testing.F) {
	for _, s := range []uint64{0, 7, 42, 12345} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, seed uint64) {
		sc := randomScenario(workload.NewRand(seed, workload.StreamLengths))
		sc = withPrefixes(sc, workload.NewRand(seed, workload.StreamCategories))
		if _, _, err := runScenario(sc); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
	})
}
