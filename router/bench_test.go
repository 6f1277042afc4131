package router

import (
	"testing"

	"github.com/fleetsim/fleetsim/internal/cputime"
	"github.com/fleetsim/fleetsim/workload"
)

// benchRequests returns 1024 requests with L_total from the Azure CDF
// clamped to [lo, hi], categories drawn uniformly, 5% byte noise.
func benchRequests(b *testing.B, lo, hi int, cats []workload.Category) []workload.Request {
	cdf := loadAzureCDF(b)
	rng := workload.NewRand(1, workload.StreamLengths)
	reqs := make([]workload.Request, 1024)
	for i := range reqs {
		k := cats[rng.IntN(len(cats))]
		makeRequest(&reqs[i], rng, int64(i), min(max(cdf.sample(rng), lo), hi), k, ratioNoise)
	}
	return reqs
}

func benchRoute(b *testing.B, kind string, reqs []workload.Request) {
	loads := []Load{{Queued: 3}, {Queued: 1}}
	rt := mustNew(b, Config{Kind: kind, PC: DefaultPC, SpillQueuePerGPU: 2}, twoPools, 1)
	b.ReportAllocs()
	i := 0
	cpu0 := cputime.Process()
	for b.Loop() {
		r := &reqs[i&1023]
		d := rt.Route(r, loads)
		rt.Observe(r, r.InputTokens)
		i += d.Pool + 1
	}
	if cpu := cputime.Process() - cpu0; cpu > 0 && i > 0 {
		// process CPU time per decision: robust to other processes
		// competing for the CPUs, unlike ns/op
		b.ReportMetric(cpu*1e9/float64(b.N), "cpu-ns/op")
	}
}

// BenchmarkRoute measures one routing decision plus its feedback (Observe)
// for each router kind, without compression (issue #4 target: ≤ 200 ns, no
// allocation). The requests (L_total ≤ 3,000 tokens, all categories) stay
// clear of the C&R band even with the conservative bias.
func BenchmarkRoute(b *testing.B) {
	all := []workload.Category{workload.Prose, workload.Code, workload.CJK, workload.RAG, workload.Mixed}
	reqs := benchRequests(b, 1, 3000, all)
	for _, kind := range []string{"length", "token-budget", "spillover", "cr"} {
		b.Run(kind, func(b *testing.B) { benchRoute(b, kind, reqs) })
	}
}

// BenchmarkRouteCompressing is the C&R path: prose requests in the band
// (B_short = 4,096, γ = 1.5), each one compressed: the success draw and the
// lognormal latency draw.
func BenchmarkRouteCompressing(b *testing.B) {
	benchRoute(b, "cr", benchRequests(b, 4400, 5600, []workload.Category{workload.Prose}))
}
