package sim

import (
	"testing"

	"github.com/fleetsim/fleetsim/engine"
	"github.com/fleetsim/fleetsim/workload"
)

// TestDisaggPrefixAffinity: a disaggregated pool (4 prefill + 2 decode
// a100s) routes its prefills by prefix affinity: R (prefix P, 1,100
// tokens) prefills on P's home among the 4 prefill instances (jumpHash of
// P's home key; P is chosen so that the home is not instance 0, where
// least-loaded would send R), publishing P there; S (prefix P) arrives at
// 0.5 s, after R's prefill, goes to the same home and takes its first
// 1,024 tokens (64 blocks) from the cache. Least-loaded sends both to
// instance 0. The decode instances keep no cache (their records are
// numbered 4, 5).
func TestDisaggPrefixAffinity(t *testing.T) {
	var P *workload.Prefix
	home := 0
	for h := uint64(1000); home == 0; h += 100 {
		P = sharedPrefix(h)
		home = jumpHash(mix64(homeKey((*engine.Prefix)(P))), 4)
	}
	reqs := []workload.Request{
		{ID: 0, Arrival: 0, InputTokens: 1100, OutputTokens: 200, MaxOutputTokens: 200, Prefix: P},
		{ID: 1, Arrival: 0.5, InputTokens: 1100, OutputTokens: 10, MaxOutputTokens: 10, Prefix: P},
	}
	for _, tc := range []struct {
		routing string
		inst    int32
	}{{RoutePrefixAffinity, int32(home)}, {RouteLeastLoaded, 0}} {
		pc := &PrefixCacheConfig{Blocks: CacheAll, Routing: tc.routing}
		cfg := fleetCfg(len(reqs), 0, PoolConfig{Name: "p", GPU: "a100", Count: 6, MaxContext: 4096, PrefixCache: pc,
			Disaggregated: &DisaggConfig{Prefill: 4, Decode: 2}})
		cfg.SLO = SLO{TTFTS: 1, TPOTS: 1}
		g, _ := cfg.Pools[0].gpu()
		if err := cfg.Pools[0].Disaggregated.validate("pools[0]", cfg.Pools[0], g); err != nil {
			t.Fatalf("%s: %v", tc.routing, err) // prefix-affinity was refused before (least-loaded only)
		}
		sink := &memSink{}
		s, err := Run(cfg, &sliceSource{reqs: reqs}, sink, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(sink.recs) != 2 || s.Fleet.Completed != 2 {
			t.Fatalf("%s: %d records, %d completed", tc.routing, len(sink.recs), s.Fleet.Completed)
		}
		for _, r := range sink.recs {
			if r.Ext.PrefillInstance != tc.inst || r.Ext.DecodeInstance < 4 || r.Ext.DecodeInstance > 5 {
				t.Errorf("%s: request %d prefilled on %d, decoded on %d; want %d and 4 or 5", tc.routing, r.ID, r.Ext.PrefillInstance, r.Ext.DecodeInstance, tc.inst)
			}
			if want := map[int64]int32{0: 0, 1: 1024}[r.ID]; r.Ext.CachedTokens != want {
				t.Errorf("%s: request %d cached %d tokens, want %d", tc.routing, r.ID, r.Ext.CachedTokens, want)
			}
		}
	}
}
