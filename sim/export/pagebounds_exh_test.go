package export

import (
	"math"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding"
)

// TestDoubleBoundsExhaustive: doubleBounds against parquet-go v0.32.0's
// doublePage.Bounds (compared bit for bit) on every page of 1 to 6 values
// drawn from {−0, +0, NaN, −1, 1, +Inf} and of 7 to 9 values from
// {−0, +0, NaN}: every place of a NaN and of each signed zero relative to
// the four lanes and their tail.
func TestDoubleBoundsExhaustive(t *testing.T) {
	nz, nan := math.Copysign(0, -1), math.NaN()
	check := func(alpha []float64, n int) {
		xs := make([]float64, n)
		idx := make([]int, n)
		for {
			for i, k := range idx {
				xs[i] = alpha[k]
			}
			lo, hi := doubleBounds(xs)
			wlo, whi, _ := parquet.DoubleType.NewPage(0, n, encoding.DoubleValues(xs)).Bounds()
			if math.Float64bits(lo) != math.Float64bits(wlo.Double()) || math.Float64bits(hi) != math.Float64bits(whi.Double()) {
				t.Fatalf("%v: bounds %v %v, parquet-go's %v %v", xs, lo, hi, wlo.Double(), whi.Double())
			}
			i := 0
			for ; i < n; i++ {
				if idx[i]++; idx[i] < len(alpha) {
					break
				}
				idx[i] = 0
			}
			if i == n {
				return
			}
		}
	}
	for n := 1; n <= 6; n++ {
		check([]float64{nz, 0, nan, -1, 1, math.Inf(1)}, n)
	}
	for n := 7; n <= 9; n++ {
		check([]float64{nz, 0, nan}, n)
	}
}
