package sweep

import "testing"

// sizeWorkloads are the three sizing problems at 1,000 req/s: workload,
// B_short (tokens) and P99 TTFT target (s).
var sizeWorkloads = []struct {
	name string
	b    int
	slo  float64
}{{"azure", 4096, 0.5}, {"lmsys", 1536, 0.5}, {"agent-heavy", 8192, 3}}

// BenchmarkSize is issue 8's speed target: `fleetsim size` for the
// pool-routing fleets of the three workloads at λ = 1,000 (3 search seeds,
// 3 confirmation seeds, runs of 300,000 fleet requests or more) within 2
// minutes per workload on 2 cores. Run with -benchtime 1x (BENCHMARKS.md).
func BenchmarkSize(b *testing.B) {
	for _, c := range sizeWorkloads {
		b.Run(c.name, func(b *testing.B) {
			for range b.N {
				res, err := Size(SizeConfig{Workload: c.name, Rate: 1000, BShort: c.b, SLOTTFTS: c.slo, Seeds: DefaultSeeds})
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(res.GPUsSim), "gpus")
			}
		})
	}
}
