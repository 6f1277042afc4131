package sweep

import (
	"runtime"
	"slices"
	"sync"
	"testing"

	"github.com/fleetsim/fleetsim/internal/cputime"
	"github.com/fleetsim/fleetsim/sim"
)

// BenchmarkSweep8 runs a grid of 8 points (rates 40 to 320 req/s on a
// 16-GPU A100 pool, Azure CDF, 60,000 requests each) with one worker per
// GOMAXPROCS. Compare -cpu 1,2: the speed-up of the worker pool.
//
// On a shared machine wall time depends on other load, so it also reports
// CPU times: cpu-s/op, the whole process's (equal at -cpu 1 and 2 when
// running points in parallel adds no work, garbage collection included),
// and max-worker-cpu-s/op, the CPU time of the busiest worker (each worker
// locked to its OS thread, getrusage RUSAGE_THREAD; Linux only, else 0),
// and workers-cpu-s/op, all workers' (the simulations themselves).
// On idle cores the sweep's wall time is about the busiest worker's CPU
// time, so cpu-s/op at -cpu 1 over max-worker-cpu-s/op at -cpu 2 is the
// speed-up the machine would show without other load.
func BenchmarkSweep8(b *testing.B) {
	base := sim.PapersDefaults() // kv timing: the benchmark's workload as before issue 21
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
	var (
		mu      sync.Mutex
		workers []float64 // CPU time of each worker of the current sweep, s
		maxSum  float64
		allSum  float64
	)
	workerHook = func() func() {
		runtime.LockOSThread()
		t0, _ := cputime.Thread()
		return func() {
			t1, _ := cputime.Thread()
			runtime.UnlockOSThread()
			mu.Lock()
			workers = append(workers, t1-t0)
			mu.Unlock()
		}
	}
	defer func() { workerHook = nil }()
	c0 := cputime.Process()
	for b.Loop() {
		workers = workers[:0]
		if _, err := Run(g, Options{}); err != nil {
			b.Fatal(err)
		}
		maxSum += slices.Max(workers)
		for _, w := range workers {
			allSum += w
		}
	}
	b.ReportMetric((cputime.Process()-c0)/float64(b.N), "cpu-s/op")
	b.ReportMetric(maxSum/float64(b.N), "max-worker-cpu-s/op")
	b.ReportMetric(allSum/float64(b.N), "workers-cpu-s/op")
}
