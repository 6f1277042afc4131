package sim

import (
	"testing"

	"github.com/fleetsim/fleetsim/internal/cputime"
	"github.com/fleetsim/fleetsim/workload"
)

// measuredBenchPools is the Azure PR fleet of A100 TP8 Llama-3-70B
// instances that experiment step-times sizes under the measured timing
// (each pool at 0.85 of its measured capacity, docs/experiments.md): 142 short at 4,096 tokens,
// 198 long at 65,536.
var measuredBenchPools = []PoolConfig{
	{Name: "short", GPU: "a100", Model: "llama-3-70b", TP: 8, Count: 142, MaxContext: 4096},
	{Name: "long", GPU: "a100", Model: "llama-3-70b", TP: 8, Count: 198, MaxContext: 65536},
}

// benchTiming runs 1M Azure requests at 1,000 req/s on measuredBenchPools
// under a timing preset and reports requests per wall-clock and per CPU
// second (issue #21: measured must run at >= 50% of kv's speed).
func benchTiming(b *testing.B, timing string) {
	spec := workload.Spec{CDF: "azure", Rate: 1000, Requests: 1000000}
	cfg := Config{Seed: 1, Workload: spec, Pools: measuredBenchPools, Timing: timing, WarmupFraction: 0.2}
	cpu0 := cputime.Process()
	for b.Loop() {
		src, err := workload.NewSource(spec, cfg.Seed)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Run(cfg, src, nil, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(spec.Requests)*float64(b.N)/b.Elapsed().Seconds(), "requests/s")
	if cpu := cputime.Process() - cpu0; cpu > 0 {
		b.ReportMetric(float64(spec.Requests)*float64(b.N)/cpu, "requests/cpu-s")
	}
	b.ReportMetric(0, "ns/op")
}

// BenchmarkTimingKV and BenchmarkTimingMeasured: the same fleet and
// arrivals under the kv and the measured timing presets.
func BenchmarkTimingKV(b *testing.B)       { benchTiming(b, "kv") }
func BenchmarkTimingMeasured(b *testing.B) { benchTiming(b, "measured") }
