package export

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding"
)

// TestPageBoundsDouble: the bounds the page writer gives a page of doubles
// (doubleBounds, four lanes of min and max with fix-ups) are the Values
// parquet-go v0.32.0's page of the column gives (doublePage.Bounds, value
// by value), compared as Values (bits, kind and column index), on pages
// built to hit the fix-ups: −0 and +0 in either order as the smallest or
// largest value, alone or among others, NaN anywhere (first, last, all,
// with payloads), ±Inf, subnormals, lengths 1 to 9 (the lanes' tail) and
// random pages of these.
func TestPageBoundsDouble(t *testing.T) {
	nz, pz, nan := math.Copysign(0, -1), 0.0, math.NaN()
	nan2 := math.Float64frombits(0x7ff8000000000001)
	inf := math.Inf(1)
	pages := [][]float64{
		{pz}, {nz}, {nan}, {nan, nan2}, {nan2, nan}, {pz, nz}, {nz, pz}, {1, pz, nz}, {1, nz, pz},
		{-1, nz, pz}, {-1, pz, nz}, {nz, 1, pz}, {pz, -1, nz}, {nan, nz, pz}, {nan, pz, nz, nan},
		{1, 2, 3, 4, nz, 5, 6, 7, pz}, {-1, -2, -3, -4, pz, -5, -6, -7, nz}, {5, 4, 3, 2, 1},
		{inf, -inf, 0}, {-inf, nz}, {math.SmallestNonzeroFloat64, nz, -math.SmallestNonzeroFloat64},
		{1, 2, 3, 4, 5, 6, 7, 8, nan}, {nan, 1, 2, 3, 4, 5, 6, 7, 8}, {math.MaxFloat64, -math.MaxFloat64},
	}
	rng := rand.New(rand.NewPCG(1, 2))
	specials := []float64{nz, pz, nan, nan2, inf, -inf, 1, -1, 0.5, math.SmallestNonzeroFloat64}
	for range 2000 {
		xs := make([]float64, 1+rng.IntN(40))
		for i := range xs {
			if rng.IntN(3) == 0 {
				xs[i] = rng.NormFloat64()
			} else {
				xs[i] = specials[rng.IntN(len(specials))]
			}
		}
		pages = append(pages, xs)
	}
	typ := parquet.DoubleType
	for _, xs := range pages {
		c := &pageColumn{kind: colOptional, typ: typ, f64: xs}
		lo, hi, ok := c.bounds()
		wlo, whi, wok := typ.NewPage(0, len(xs), encoding.DoubleValues(xs)).Bounds()
		if ok != wok || !reflect.DeepEqual(lo, wlo) || !reflect.DeepEqual(hi, whi) ||
			math.Float64bits(lo.Double()) != math.Float64bits(wlo.Double()) ||
			math.Float64bits(hi.Double()) != math.Float64bits(whi.Double()) {
			t.Errorf("%v: bounds %v %v %v, parquet-go's page %v %v %v", xs, lo, hi, ok, wlo, whi, wok)
		}
	}
	c := &pageColumn{kind: colOptional, typ: typ}
	if lo, hi, ok := c.bounds(); ok || !reflect.DeepEqual(lo, parquet.Value{}) || !reflect.DeepEqual(hi, parquet.Value{}) {
		t.Errorf("empty page: bounds %v %v %v, want none", lo, hi, ok)
	}
}

// BenchmarkDoubleBounds: doubleBounds on a page of 32,768 doubles, rising
// (as arrival_s) or in random order (as the latencies).
func BenchmarkDoubleBounds(b *testing.B) {
	for _, rising := range []bool{true, false} {
		name := "random"
		if rising {
			name = "rising"
		}
		b.Run(name, func(b *testing.B) {
			rng := rand.New(rand.NewPCG(3, 4))
			xs := make([]float64, 32768)
			t := 0.0
			for i := range xs {
				xs[i] = rng.ExpFloat64()
				if rising {
					t += xs[i]
					xs[i] = t
				}
			}
			var sum float64
			for b.Loop() {
				lo, hi := doubleBounds(xs)
				sum += lo + hi
			}
			if sum != sum {
				b.Fatal("NaN bounds")
			}
		})
	}
}
