package sim

import (
	"runtime"
	"testing"

	"github.com/fleetsim/fleetsim/internal/cputime"
	"github.com/fleetsim/fleetsim/workload"
)

// benchFleet runs n requests of the named CDF at rate req/s on pools with a
// nil sink and reports simulated requests per wall-clock second (the
// over-saturation detectors in their default mode, monitor).
func benchFleet(b *testing.B, cdf string, rate float64, n int, pools ...PoolConfig) {
	benchFleetOSD(b, OSDMonitor, cdf, rate, n, pools...)
}

func benchFleetOSD(b *testing.B, osdMode, cdf string, rate float64, n int, pools ...PoolConfig) {
	spec := workload.Spec{CDF: cdf, Rate: rate, Requests: n}
	cfg := Config{Seed: 1, Workload: spec, Pools: pools, Timing: "kv", WarmupFraction: 0.2, OSD: OSDConfig{Mode: osdMode}}
	var s *Summary
	// The run's own goroutine stays on this thread, so the thread's CPU time
	// is the simulation's critical path (the monitor-mode detectors run on
	// another goroutine, osdasync.go).
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var waits handoverWaits
	handoverTap = func(w handoverWaits) {
		waits.records += w.records
		waits.requests += w.requests
		waits.detectors += w.detectors
	}
	defer func() { handoverTap = nil }()
	th0, thOK := cputime.Thread()
	cpu0 := cputime.Process()
	for b.Loop() {
		src, err := workload.NewSource(spec, cfg.Seed)
		if err != nil {
			b.Fatal(err)
		}
		s, err = Run(cfg, src, nil, Options{})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "requests/s")
	if cpu := cputime.Process() - cpu0; cpu > 0 {
		b.ReportMetric(float64(n)*float64(b.N)/cpu, "requests/cpu-s")
	}
	if th1, ok := cputime.Thread(); ok && thOK && th1 > th0 {
		b.ReportMetric(float64(n)*float64(b.N)/(th1-th0), "requests/thread-cpu-s")
	}
	// Times the simulation waited for a helper goroutine (handover.go).
	b.ReportMetric(float64(waits.records)/float64(b.N), "record-waits/op")
	b.ReportMetric(float64(waits.requests)/float64(b.N), "request-waits/op")
	b.ReportMetric(float64(waits.detectors)/float64(b.N), "detector-waits/op")
	b.ReportMetric(0, "ns/op")
	for _, p := range s.Pools {
		if p.Overloaded {
			b.Logf("pool %s overloaded (growth %.1f req/s)", p.Name, p.BacklogGrowth)
		}
	}
}

// BenchmarkFleetAzure is the benchmark fleet (FleetOpt paper's
// Azure pool-routing plan): Azure CDF at 1,000 req/s, short:a100:43:4096 and
// long:a100:131:65536, kv timing. The target for the whole path with Parquet
// is 200,000 simulated requests per second.
func BenchmarkFleetAzure(b *testing.B) {
	benchFleet(b, "azure", 1000, 1000000,
		PoolConfig{Name: "short", GPU: "a100", Count: 43, MaxContext: 4096},
		PoolConfig{Name: "long", GPU: "a100", Count: 131, MaxContext: 65536},
	)
}

// BenchmarkFleetAzureNoOSD is BenchmarkFleetAzure with --osd off: the
// difference is the detectors' cost.
func BenchmarkFleetAzureNoOSD(b *testing.B) {
	benchFleetOSD(b, OSDOff, "azure", 1000, 1000000,
		PoolConfig{Name: "short", GPU: "a100", Count: 43, MaxContext: 4096},
		PoolConfig{Name: "long", GPU: "a100", Count: 131, MaxContext: 65536},
	)
}

// BenchmarkFleetAgentHeavy is the second fleet: the agent-heavy CDF
// at 1,000 req/s on short:a100:229:8192 and long:a100:2037:65536.
func BenchmarkFleetAgentHeavy(b *testing.B) {
	benchFleet(b, "agent-heavy", 1000, 1000000,
		PoolConfig{Name: "short", GPU: "a100", Count: 229, MaxContext: 8192},
		PoolConfig{Name: "long", GPU: "a100", Count: 2037, MaxContext: 65536},
	)
}

// BenchmarkFleetOverloaded exercises the central queues' slow path: the
// Azure fleet with 30% fewer instances than planned, so both pools saturate
// and their central queues stay non-empty (instances advanced one change at
// a time).
func BenchmarkFleetOverloaded(b *testing.B) {
	benchFleet(b, "azure", 1000, 300000,
		PoolConfig{Name: "short", GPU: "a100", Count: 30, MaxContext: 4096},
		PoolConfig{Name: "long", GPU: "a100", Count: 92, MaxContext: 65536},
	)
}

// BenchmarkFleetAzureJSQ is BenchmarkFleetAzure under jsq dispatch: the
// instances' private queues (privqueue.go) on a fleet that is not
// overloaded.
func BenchmarkFleetAzureJSQ(b *testing.B) {
	benchFleet(b, "azure", 1000, 1000000,
		PoolConfig{Name: "short", GPU: "a100", Count: 43, MaxContext: 4096, Dispatch: DispatchJSQ},
		PoolConfig{Name: "long", GPU: "a100", Count: 131, MaxContext: 65536, Dispatch: DispatchJSQ},
	)
}
