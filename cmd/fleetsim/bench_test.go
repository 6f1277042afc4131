package main

import (
	"io"
	"strconv"
	"testing"
)

// BenchmarkSimulate runs the default scenario (Azure, 1,000 req/s, the
// FleetOpt pool-routing fleet, kv timing) end to end through the CLI, with
// and without Parquet output; it reports simulated requests per wall-clock
// second.
func BenchmarkSimulate(b *testing.B) {
	const n = 200_000
	for _, parquet := range []bool{true, false} {
		name := "parquet"
		if !parquet {
			name = "no-parquet"
		}
		b.Run(name, func(b *testing.B) {
			args := []string{"simulate", "--requests", strconv.Itoa(n), "--out", b.TempDir()}
			if !parquet {
				args = append(args, "--no-parquet")
			}
			for b.Loop() {
				if code := run(args, io.Discard, io.Discard); code != 0 {
					b.Fatalf("exit status %d", code)
				}
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "requests/s")
		})
	}
}
