package capacity

import (
	"math"
	"testing"

	"github.com/fleetsim/fleetsim/workload"
)

const convTrace = "../../workload/testdata/AzureLLMInferenceTrace_conv.csv"

func convRequests(tb testing.TB) []Request {
	rows, err := workload.ReadTraceRows(convTrace, "", 1<<30)
	if err != nil {
		tb.Fatal(err)
	}
	reqs := make([]Request, len(rows))
	for i, r := range rows {
		reqs[i] = Request{Arrival: r.Time, Input: r.Input, Output: r.Output, Latency: math.NaN()}
	}
	return reqs
}

var benchTarget = ThroughputTarget{Percentile: 0.99, Windows: []float64{1, 5, 30, 60}, Headroom: 0.2,
	MaxOverloadProb: 0.001, MaxUnits: 100_000}

// BenchmarkPlanAzureConv plans the 19,366-request Azure conversation trace
// for four windows (work, bucketing, percentiles, overload search); issue
// 10's target is 50 ms.
func BenchmarkPlanAzureConv(b *testing.B) {
	reqs := convRequests(b)
	p := mustDefault(b)
	b.ResetTimer()
	for b.Loop() {
		s, err := NewSeries(reqs, p)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := PlanThroughput(s, p, benchTarget); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPlanAzureConvWithRead adds reading and parsing the CSV.
func BenchmarkPlanAzureConvWithRead(b *testing.B) {
	p := mustDefault(b)
	for b.Loop() {
		s, err := NewSeries(convRequests(b), p)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := PlanThroughput(s, p, benchTarget); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLatencyPlanAzureConv bisects the fluid-queue latency plan
// (p99 e2e <= 1 s, default baseline) on the same trace.
func BenchmarkLatencyPlanAzureConv(b *testing.B) {
	reqs := convRequests(b)
	p := mustDefault(b)
	s, _ := NewSeries(reqs, p)
	base := make([]float64, len(reqs))
	for i, r := range reqs {
		base[i] = DefaultBaseline.Predict(r)
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := PlanLatency(s, base, p, LatencyTarget{ThresholdS: 1, Percentile: 0.99, MaxUnits: 100_000}); err != nil {
			b.Fatal(err)
		}
	}
}
