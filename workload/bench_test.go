package workload

import (
	"path/filepath"
	"testing"
)

// benchSource reports the cost of one Source.Next; run with
// go test -bench Source -benchmem ./workload.
func benchSource(b *testing.B, spec Spec) {
	spec.Requests = b.N + 1
	src, err := NewSource(spec, 1)
	if err != nil {
		b.Fatal(err)
	}
	var r Request
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if !src.Next(&r) {
			b.Fatal(src.Err())
		}
	}
}

// Target: well under 200 ns/request and 0 allocs/op.
func BenchmarkSourceCDF(b *testing.B) {
	b.Run("azure-poisson-fixed", func(b *testing.B) {
		benchSource(b, Spec{CDF: "azure", Rate: 1000})
	})
	b.Run("agent-heavy-bursty-normal-5cat", func(b *testing.B) {
		benchSource(b, Spec{CDF: "agent-heavy", Rate: 1000, Arrival: "bursty", Split: "normal",
			Categories: map[string]float64{"prose": 0.2, "code": 0.2, "cjk": 0.2, "rag": 0.2, "mixed": 0.2}})
	})
	// Rate profiles (docs/day.md): the time change's cost per request.
	b.Run("azure-sin-day", func(b *testing.B) {
		benchSource(b, Spec{CDF: "azure", RateProfile: "sin:mean=500,ratio=3,period=24h,peak=14h"})
	})
	b.Run("azure-linear-day", func(b *testing.B) {
		benchSource(b, Spec{CDF: "azure", RateProfile: "linear:0=200,6h=800,12h=600,18h=300,period=24h"})
	})
}

func BenchmarkCDFSample(b *testing.B) {
	c := mustCDF(b, "azure")
	r := NewRand(1, StreamLengths)
	s := 0
	for range b.N {
		s += c.Sample(r)
	}
	_ = s
}

// BenchmarkSourceAzureTrace replays the 19,366-row conv trace per iteration
// batch (ns/request includes file reading and CSV parsing).
func BenchmarkSourceAzureTrace(b *testing.B) {
	path := filepath.Join("testdata", "AzureLLMInferenceTrace_conv.csv")
	var r Request
	b.ReportAllocs()
	n := 0
	for n < b.N {
		src, err := NewSource(Spec{Trace: path, Requests: b.N - n}, 1)
		if err != nil {
			b.Fatal(err)
		}
		for n < b.N && src.Next(&r) {
			n++
		}
		if err := src.Err(); err != nil {
			b.Fatal(err)
		}
	}
}
