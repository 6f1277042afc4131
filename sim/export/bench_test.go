package export

import (
	"path/filepath"
	"testing"
)

// BenchmarkParquetSink measures the cost of streaming one record to
// requests.parquet (conversion, encoding, zstd, file writes).
func BenchmarkParquetSink(b *testing.B) {
	recs := testRecords(100_000)
	s, err := NewParquetSink(filepath.Join(b.TempDir(), "r.parquet"))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		if err := s.Write(&recs[i%len(recs)]); err != nil {
			b.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}
