package main

import (
	"io"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/fleetsim/fleetsim/internal/cputime"
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
			args := []string{"simulate", "--compat", "papers", "--requests", strconv.Itoa(n), "--out", b.TempDir()}
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

// BenchmarkParquetOverhead is issue 9's Parquet acceptance: 1,000,000
// requests of the papers' default scenario (--compat papers: Azure at 1,000
// req/s on the FleetOpt pool-routing fleet, kv timing; the default run
// before issue 21) through the CLI, with and without
// requests.parquet, alternating within each iteration so that both see the
// same machine load. It reports each one's simulated requests per
// wall-clock second and their ratio (target: parquet/no-parquet >= 0.85),
// and, on Linux, the CPU time of the simulation's own thread (the benchmark
// goroutine, locked to its thread; the Parquet encoder runs on another):
// thread-ratio = its CPU time without Parquet over with, the share of the
// simulation thread's work that Parquet leaves, whatever the machine's load.
func BenchmarkParquetOverhead(b *testing.B) {
	const n = 1_000_000
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	dir := b.TempDir()
	var with, without time.Duration
	var cpuWith, cpuWithout float64
	for b.Loop() {
		for _, parquet := range []bool{true, false} {
			args := []string{"simulate", "--compat", "papers", "--requests", strconv.Itoa(n), "--out", dir}
			if !parquet {
				args = append(args, "--no-parquet")
			}
			c0, _ := cputime.Thread()
			t0 := time.Now()
			if code := run(args, io.Discard, io.Discard); code != 0 {
				b.Fatalf("exit status %d", code)
			}
			c1, _ := cputime.Thread()
			d, c := time.Since(t0), c1-c0
			if parquet {
				with, cpuWith = with+d, cpuWith+c
			} else {
				without, cpuWithout = without+d, cpuWithout+c
			}
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/with.Seconds(), "parquet-req/s")
	b.ReportMetric(float64(n)*float64(b.N)/without.Seconds(), "no-parquet-req/s")
	b.ReportMetric(without.Seconds()/with.Seconds(), "ratio")
	if cpuWith > 0 {
		b.ReportMetric(cpuWith/float64(b.N), "parquet-thread-cpu-s")
		b.ReportMetric(cpuWithout/float64(b.N), "no-parquet-thread-cpu-s")
		b.ReportMetric(cpuWithout/cpuWith, "thread-ratio")
	}
	b.ReportMetric(0, "ns/op")
}
