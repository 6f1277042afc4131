package export

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/fleetsim/fleetsim/sim"
)

// BenchmarkParquetSink measures the cost of streaming one record to
// requests.parquet (copy, encoding, zstd, file writes) on synthetic
// records (testRecords): wall time per row (ns/op, rows/s) and CPU time
// per row of the whole process (cpu-ns/row).
func BenchmarkParquetSink(b *testing.B) {
	benchSink(b, testRecords(100_000))
}

// BenchmarkParquetSinkFile is BenchmarkParquetSink on the records of a
// requests.parquet written by a run (its first 200,000 rows, cycled), named
// by FLEETSIM_BENCH_REQUESTS, e.g. the output of `fleetsim simulate
// --timing kv --requests 1000000`: the benchmark scenario's data, whose
// compression and dictionaries differ from the synthetic records'. Skipped
// when the variable is unset.
func BenchmarkParquetSinkFile(b *testing.B) {
	path := os.Getenv("FLEETSIM_BENCH_REQUESTS")
	if path == "" {
		b.Skip("FLEETSIM_BENCH_REQUESTS is not set")
	}
	recs, err := ReadParquet(path)
	if err != nil {
		b.Fatal(err)
	}
	benchSink(b, recs[:min(len(recs), 200_000)])
}

// BenchmarkParquetSinkHot is BenchmarkParquetSink on one batch's records
// (batchRows), cycled, so that the cost measured is the sink's and the
// encoder's, not that of reading 22 MiB of records from memory.
func BenchmarkParquetSinkHot(b *testing.B) {
	benchSink(b, testRecords(batchRows))
}

func benchSink(b *testing.B, recs []sim.Record) {
	s, err := NewParquetSink(filepath.Join(b.TempDir(), "r.parquet"))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu0, cpuOK := processCPU()
	for i := range b.N {
		if err := s.Write(&recs[i%len(recs)]); err != nil {
			b.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	if cpu1, ok := processCPU(); ok && cpuOK {
		// Both goroutines (Write's and the encoder's): the CPU a row costs,
		// which the wall time per row hides when the encoder has a core
		// of its own, and which load on a shared machine inflates less.
		b.ReportMetric(float64(cpu1-cpu0)/float64(b.N), "cpu-ns/row")
	}
}

// BenchmarkRowEncoder measures the encoder alone (encoding, page writing,
// zstd, file writes of requests.parquet), run on the benchmark's own
// goroutine, locked to its OS thread: CPU time of that thread per row
// (thread-cpu-ns/row, Linux only), which load on a shared machine inflates
// less than wall time. Records as in a run without rejections (served) and
// with a rejection in every 64-row chunk (rejections: NULL times).
func BenchmarkRowEncoder(b *testing.B) {
	for _, bc := range []struct {
		name string
		recs []sim.Record
	}{
		{"served", rejectedIn(100_000, func(int) bool { return false })},
		{"rejections", testRecords(100_000)},
	} {
		b.Run(bc.name, func(b *testing.B) { benchEncoder(b, bc.recs) })
	}
}

// benchFile is a benchmark's requests.parquet in its temporary directory,
// aborted when the benchmark ends.
func benchFile(b *testing.B) *atomicFile {
	f, err := createAtomic(filepath.Join(b.TempDir(), "r.parquet"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { f.Abort() })
	return f
}

func benchEncoder(b *testing.B, recs []sim.Record) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	f := benchFile(b)
	w, err := newRowWriter(f, FileInfo{})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu0, cpuOK := threadCPU()
	for i := 0; i < b.N; {
		n := min(batchRows, b.N-i, len(recs)-i%len(recs))
		if err := w.write(recs[i%len(recs) : i%len(recs)+n]); err != nil {
			b.Fatal(err)
		}
		i += n
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	if cpu1, ok := threadCPU(); ok && cpuOK {
		b.ReportMetric(float64(cpu1-cpu0)/float64(b.N), "thread-cpu-ns/row")
	}
}

// BenchmarkPageAdd measures the page writer's shredding alone: records
// added to the columns' pages 64 rows at a time, and each page's bounds
// taken and the page emptied every 32,768 rows (as endPage does, without
// encoding or compressing it): CPU time of the benchmark's thread per row
// (thread-cpu-ns/row, Linux only). Records as in BenchmarkRowEncoder/served.
func BenchmarkPageAdd(b *testing.B) {
	benchPageAdd(b, rejectedIn(100_000, func(int) bool { return false }))
}

// BenchmarkPageAddBatch is BenchmarkPageAdd on one batch's records
// (batchRows), cycled: records that are in the cache, so that it measures
// the shredding itself, where BenchmarkPageAdd's 100,000 records (some 22
// MiB) are read from memory.
func BenchmarkPageAddBatch(b *testing.B) {
	benchPageAdd(b, rejectedIn(batchRows, func(int) bool { return false }))
}

func benchPageAdd(b *testing.B, recs []sim.Record) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	f := benchFile(b)
	w, err := newPageWriter(f, FileInfo{})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	cpu0, cpuOK := threadCPU()
	k := 0
	for i := 0; b.Loop(); i++ {
		if k+chunkRows > len(recs) {
			k = 0
		}
		w.add(recs[k : k+chunkRows])
		k += chunkRows
		if i%512 == 511 {
			for _, c := range w.cols {
				c.bounds()
				c.resetPage()
			}
		}
	}
	if cpu1, ok := threadCPU(); ok && cpuOK {
		b.ReportMetric(float64(cpu1-cpu0)/float64(b.N*chunkRows), "thread-cpu-ns/row")
	}
}
