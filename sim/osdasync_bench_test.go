package sim

import (
	"runtime"
	"testing"

	"github.com/fleetsim/fleetsim/internal/cputime"
	"github.com/fleetsim/fleetsim/sim/osd"
	"github.com/fleetsim/fleetsim/workload"
)

// BenchmarkOSDWorker is the monitor-mode detectors' worker alone: the
// events BenchmarkFleetAzure's run (1M requests) hands to it, captured once
// through osdTap, are applied batch by batch to fresh detectors on this
// goroutine, one run per op. It reports the worker's CPU time per request
// (this thread's), its wall time per request and the events per request.
func BenchmarkOSDWorker(b *testing.B) {
	benchOSDWorker(b, "azure", 1000000,
		PoolConfig{Name: "short", GPU: "a100", Count: 43, MaxContext: 4096},
		PoolConfig{Name: "long", GPU: "a100", Count: 131, MaxContext: 65536})
}

// BenchmarkOSDWorkerOverloaded is BenchmarkOSDWorker on
// BenchmarkFleetOverloaded's run (300,000 requests, both pools saturated:
// first tokens come further out of order, ~10 places on average).
func BenchmarkOSDWorkerOverloaded(b *testing.B) {
	benchOSDWorker(b, "azure", 300000,
		PoolConfig{Name: "short", GPU: "a100", Count: 30, MaxContext: 4096},
		PoolConfig{Name: "long", GPU: "a100", Count: 92, MaxContext: 65536})
}

// BenchmarkOSDWorkerAgentHeavy is BenchmarkOSDWorker on the agent-heavy
// fleet (2,266 instances), 300,000 requests.
func BenchmarkOSDWorkerAgentHeavy(b *testing.B) {
	benchOSDWorker(b, "agent-heavy", 300000,
		PoolConfig{Name: "short", GPU: "a100", Count: 229, MaxContext: 8192},
		PoolConfig{Name: "long", GPU: "a100", Count: 2037, MaxContext: 65536})
}

func benchOSDWorker(b *testing.B, cdf string, n int, pools ...PoolConfig) {
	var evs []osdEv
	osdTap = func(batch []osdEv) { evs = append(evs, batch...) }
	spec := workload.Spec{CDF: cdf, Rate: 1000, Requests: n}
	cfg := Config{Seed: 1, Workload: spec, Timing: "kv", WarmupFraction: 0.2, Pools: pools}
	src, err := workload.NewSource(spec, cfg.Seed)
	if err != nil {
		b.Fatal(err)
	}
	_, err = Run(cfg, src, nil, Options{})
	osdTap = nil
	if err != nil {
		b.Fatal(err)
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	b.ResetTimer()
	th0, thOK := cputime.Thread()
	for b.Loop() {
		w := &osdWorker{params: osd.DefaultConfig(), pools: make([]*osd.Detector, len(cfg.Pools))}
		for i := 0; i < len(evs); i += osdBatchLen {
			w.applyBatch(&osdBatch{evs: evs[i:min(i+osdBatchLen, len(evs))]})
		}
		if w.backwards != 0 || w.fleet.State().Evaluations == 0 {
			b.Fatalf("%d events out of order, %d evaluations", w.backwards, w.fleet.State().Evaluations)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/request")
	if th1, ok := cputime.Thread(); ok && thOK {
		b.ReportMetric((th1-th0)*1e9/float64(b.N)/float64(n), "cpu-ns/request")
	}
	b.ReportMetric(float64(len(evs))/float64(n), "events/request")
	b.ReportMetric(0, "ns/op")
}
