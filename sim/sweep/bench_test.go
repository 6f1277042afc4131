package sweep

import (
	"testing"

	"github.com/fleetsim/fleetsim/internal/cputime"
	"github.com/fleetsim/fleetsim/sim"
)

// BenchmarkSweep8 runs a grid of 8 points (rates 40 to 320 req/s on a
// 16-GPU A100 pool, Azure CDF, 60,000 requests each) with one worker per
// GOMAXPROCS. Compare -cpu 1,2: the speed-up of the worker pool. Besides
// ns/op it reports cpu-s/op, the process's CPU time per sweep: on a shared
// machine wall time depends on other load, CPU time much less, and equal
// CPU time at -cpu 1 and 2 shows that running points in parallel adds no
// work (the speed-up on two idle cores is then the CPU time over the
// busier worker's share).
func BenchmarkSweep8(b *testing.B) {
	base := sim.Defaults()
	base.Workload.Requests = 60_000
	base.Pools = []sim.PoolConfig{{Name: "a", GPU: "a100", Count: 16, MaxContext: 65536}}
	rates, err := ParseAxis(KeyRate, "40:320:40")
	if err != nil {
		b.Fatal(err)
	}
	g := &Grid{Base: base, Axes: []Axis{rates}}
	if err := g.Validate(); err != nil {
		b.Fatal(err)
	}
	c0 := cputime.Process()
	for b.Loop() {
		if _, err := Run(g, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric((cputime.Process()-c0)/float64(b.N), "cpu-s/op")
}
