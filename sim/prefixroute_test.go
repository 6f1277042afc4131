package sim

import (
	"testing"

	"github.com/fleetsim/fleetsim/engine"
	"github.com/fleetsim/fleetsim/workload"
)

// routeRun runs reqs on one pool of 4 a100 instances (max_ctx 4096) with
// the prefix cache pc and returns the records by request ID and the
// summary.
func routeRun(t *testing.T, pc *PrefixCacheConfig, dispatch string, reqs []workload.Request) (map[int64]Record, *Summary) {
	t.Helper()
	cfg := fleetCfg(len(reqs), 0, PoolConfig{Name: "p", GPU: "a100", Count: 4, MaxContext: 4096, Dispatch: dispatch, PrefixCache: pc})
	cfg.SLO = SLO{TTFTS: 1, TPOTS: 1}
	if err := pc.validate("pools[0]", cfg.Pools[0], 65536); err != nil {
		t.Fatal(err)
	}
	sink := &memSink{}
	s, err := Run(cfg, &sliceSource{reqs: reqs}, sink, Options{})
	if err != nil {
		t.Fatal(err)
	}
	recs := map[int64]Record{}
	for _, r := range sink.recs {
		recs[r.ID] = r
	}
	return recs, s
}

// sharedPrefix is a 1,024-token prefix of 16-token hashes starting at h.
func sharedPrefix(h uint64) *workload.Prefix {
	p := &workload.Prefix{Tokens: 16}
	for k := range 64 {
		p.Hashes = append(p.Hashes, h+uint64(k))
	}
	return p
}

// TestPrefixAffinityFindsTheCache: R (prefix P, a long decode) arrives at
// 0, S (prefix P) at 0.5 s while R still runs. Least-loaded (jsq) sends R
// to instance 0 and S to the idle instance 1: S prefills all 1,100 tokens.
// Prefix-affinity sends R to P's home (jumpHash of P's first hash) and S
// there too, where R published P: S's first 1,024 tokens (64 whole blocks
// of the 1,024-token prefix) come from the cache. With load_cap 1 the home
// holds R, at the cap: S goes elsewhere and hits nothing.
func TestPrefixAffinityFindsTheCache(t *testing.T) {
	P := sharedPrefix(1000)
	reqs := []workload.Request{
		{ID: 0, Arrival: 0, InputTokens: 1100, OutputTokens: 2000, MaxOutputTokens: 2000, Prefix: P},
		{ID: 1, Arrival: 0.5, InputTokens: 1100, OutputTokens: 10, MaxOutputTokens: 10, Prefix: P},
	}
	home := jumpHash(mix64(homeKey((*engine.Prefix)(P))), 4)
	for _, tc := range []struct {
		name           string
		pc             *PrefixCacheConfig
		inst0, inst1   int32
		cached1, route int64
	}{
		{"least-loaded", &PrefixCacheConfig{Blocks: CacheAll}, 0, 1, 0, 0},
		{"prefix-affinity", &PrefixCacheConfig{Blocks: CacheAll, Routing: RoutePrefixAffinity}, int32(home), int32(home), 1024, 1},
		{"weighted, cache first", &PrefixCacheConfig{Blocks: CacheAll, Routing: RouteWeighted, Weight: 1}, -1, -1, 1024, 1},
	} {
		dispatch := DispatchJSQ
		recs, s := routeRun(t, tc.pc, dispatch, reqs)
		r0, r1 := recs[0], recs[1]
		if tc.inst0 >= 0 && (r0.Instance != tc.inst0 || r1.Instance != tc.inst1) {
			t.Errorf("%s: instances %d, %d; want %d, %d", tc.name, r0.Instance, r1.Instance, tc.inst0, tc.inst1)
		}
		if r0.Ext.CachedTokens != 0 || int64(r1.Ext.CachedTokens) != tc.cached1 {
			t.Errorf("%s: cached_tokens %d, %d; want 0, %d", tc.name, r0.Ext.CachedTokens, r1.Ext.CachedTokens, tc.cached1)
		}
		pc := s.Pools[0].PrefixCache
		if pc == nil || pc.CachedTokens != tc.cached1 || pc.PromptTokens != 2200 || pc.Routing.Policy != tc.pc.routing() {
			t.Fatalf("%s: summary prefix_cache %+v", tc.name, pc)
		}
		if pc.Routing.Routed != 2*tc.route || pc.Routing.ExpectedTokens != tc.cached1 {
			t.Errorf("%s: routing %+v", tc.name, *pc.Routing)
		}
		if s.Fleet.PrefixCache == nil || s.Fleet.PrefixCache.HitTokenFraction != float64(tc.cached1)/2200 {
			t.Errorf("%s: fleet prefix_cache %+v", tc.name, s.Fleet.PrefixCache)
		}
	}
	// Load cap 1: the home holds R (load 1), so S goes to another
	// instance and prefills everything.
	recs, _ := routeRun(t, &PrefixCacheConfig{Blocks: CacheAll, Routing: RoutePrefixAffinity, LoadCap: 1}, "", reqs)
	if recs[0].Instance != int32(home) || recs[1].Instance == int32(home) || recs[1].Ext.CachedTokens != 0 {
		t.Errorf("load cap 1: instances %d, %d, cached %d; want %d, another, 0", recs[0].Instance, recs[1].Instance, recs[1].Ext.CachedTokens, home)
	}
	// Weighted with a small weight: the load term wins, S avoids R's
	// instance.
	recs, _ = routeRun(t, &PrefixCacheConfig{Blocks: CacheAll, Routing: RouteWeighted, Weight: 0.001}, "", reqs)
	if recs[1].Instance == recs[0].Instance || recs[1].Ext.CachedTokens != 0 {
		t.Errorf("weighted 0.001: instances %d, %d, cached %d", recs[0].Instance, recs[1].Instance, recs[1].Ext.CachedTokens)
	}
}

// TestJumpHash: Lamping and Veach's consistent hash keeps a key's bucket
// when buckets are added, unless it moves to the new one, and spreads keys
// evenly.
func TestJumpHash(t *testing.T) {
	count := make([]int, 10)
	for k := range uint64(10000) {
		key := mix64(k)
		a, b := jumpHash(key, 9), jumpHash(key, 10)
		if a != b && b != 9 {
			t.Fatalf("key %d moved from %d to %d (only moves to the new bucket 9 are allowed)", k, a, b)
		}
		count[b]++
	}
	for i, c := range count {
		if c < 900 || c > 1100 {
			t.Errorf("bucket %d holds %d of 10,000 keys, want about 1,000", i, c)
		}
	}
}
