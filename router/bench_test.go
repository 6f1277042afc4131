package router

import (
	"testing"

	"github.com/fleetsim/fleetsim/workload"
)

// BenchmarkRoute measures one routing decision without compression (issue
// #4 target: ≤ 200 ns, no allocation) for each router kind, over a cycle of
// 1024 pre-built requests from the Azure CDF (a mix of categories) and
// feedback after each decision.
func BenchmarkRoute(b *testing.B) {
	cdf := loadAzureCDF(b)
	rng := workload.NewRand(1, workload.StreamLengths)
	reqs := make([]workload.Request, 1024)
	for i := range reqs {
		k := workload.Category(rng.IntN(int(workload.NumCategories)))
		makeRequest(&reqs[i], rng, int64(i), min(cdf.sample(rng), 4000), k, ratioNoise)
	}
	loads := []Load{{Queued: 3}, {Queued: 1}}
	for _, kind := range []string{"length", "token-budget", "spillover", "cr"} {
		b.Run(kind, func(b *testing.B) {
			rt := mustNew(b, Config{Kind: kind, SpillQueuePerGPU: 2}, twoPools, 1)
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				r := &reqs[i&1023]
				d := rt.Route(r, loads)
				rt.Observe(r, r.InputTokens)
				i += d.Pool + 1
			}
		})
	}
}
