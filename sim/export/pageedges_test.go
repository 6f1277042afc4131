package export

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// TestPageWriterBoolDoubleEdges: streams of 1 to 9 rows, around a chunk
// and past a row group, whose boolean columns hold one true (or one false)
// at each place, runs and alternations, and whose arrival_s (a required
// double) holds NaN first, last or everywhere, −0 and +0 in either order,
// ±Inf and subnormals; written through the page writer in calls of 1, 2,
// 3, 5, 61, 64, 67 and 130 rows, they give the bytes of parquet-go
// v0.32.0's GenericWriter (syncParquetOf), for both schemas (the stream
// past a row group: half the patterns, schema Row, to keep it short).
func TestPageWriterBoolDoubleEdges(t *testing.T) {
	nan, nz := math.NaN(), math.Copysign(0, -1)
	tiny := math.SmallestNonzeroFloat64
	bools := []func(i, n int) bool{
		func(i, n int) bool { return i == 0 },
		func(i, n int) bool { return i == n-1 },
		func(i, n int) bool { return i != n/2 },
		func(i, n int) bool { return i%2 == 1 },
		func(i, n int) bool { return i >= n/3 },
		func(i, n int) bool { return i%64 == 63 || i%67 == 0 },
	}
	doubles := []func(i, n int) float64{
		func(i, n int) float64 { return []float64{nan, 1}[min(i, 1)] },
		func(i, n int) float64 { return nan },
		func(i, n int) float64 { return []float64{0, nz, 1}[i%3] },
		func(i, n int) float64 { return []float64{nz, 0, -1}[i%3] },
		func(i, n int) float64 {
			if i == n-1 {
				return nan
			}
			return []float64{tiny, -tiny, 0, nz}[i%4]
		},
		func(i, n int) float64 { return []float64{math.Inf(1), 2, nan, math.Inf(-1), nz}[i%5] },
	}
	sizes := []int{1, 2, 3, 5, 61, 64, 67, 130}
	dir := t.TempDir()
	for _, n := range []int{1, 2, 3, 4, 5, 7, 8, 9, 63, 64, 65, 129, RowGroupRows + 67} {
		for p := range bools {
			recs := testRecords(n)
			for i := range recs {
				r := &recs[i]
				r.Compressed = bools[p](i, n)
				r.Warmup = !bools[(p+1)%len(bools)](i, n)
				r.Rejected = bools[(p+2)%len(bools)](i, n)
				r.ArrivalS = doubles[p](i, n)
				r.TTFTS = doubles[(p+2)%len(doubles)](i, n) // NaN is NULL here
			}
			for _, ext := range []bool{false, true} {
				if n > RowGroupRows && (ext || p%2 == 1) {
					continue // past a row group: three of the patterns, one schema
				}
				path := filepath.Join(dir, fmt.Sprintf("r%d-%d-%v.parquet", n, p, ext))
				k := 0
				writeInCalls(t, path, FileInfo{Extended: ext}, recs, func() int { k++; return sizes[(k-1)%len(sizes)] })
				got, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				if want := syncParquetOf(t, recs, ext); !bytes.Equal(got, want) {
					t.Errorf("%d rows, pattern %d, extended %v: %d bytes, parquet-go's GenericWriter %d", n, p, ext, len(got), len(want))
				}
			}
		}
	}
}
