package sim

import (
	"math"
	"sort"
	"testing"

	"gonum.org/v1/gonum/stat"

	"github.com/fleetsim/fleetsim/workload"
)

// TestSketchAgainstExact compares the sketch's quantiles with the exact
// empirical quantiles of gonum's stat.Quantile (stat.Empirical: the value of
// rank ceil(p*n), the definition the sketch follows) on several
// distributions; the relative error must stay within SketchRelativeError.
func TestSketchAgainstExact(t *testing.T) {
	rnd := workload.NewRand(42, workload.StreamPlanner)
	dists := []struct {
		name string
		draw func() float64
	}{
		{"exponential 50ms", func() float64 { return 0.05 * rnd.ExpFloat64() }},
		{"lognormal", func() float64 { return math.Exp(rnd.NormFloat64()*2 - 3) }},
		{"uniform 1..100s", func() float64 { return 1 + 99*rnd.Float64() }},
		{"heavy tail with zeros", func() float64 {
			if rnd.IntN(3) == 0 {
				return 0
			}
			return min(1e6, math.Pow(rnd.Float64(), -2)*1e-3)
		}},
	}
	for _, d := range dists {
		for _, n := range []int{1, 7, 1000, 100000} {
			s := newSketch()
			xs := make([]float64, n)
			for i := range xs {
				xs[i] = d.draw()
				s.add(xs[i])
			}
			sort.Float64s(xs)
			for _, p := range []float64{0.01, 0.5, 0.9, 0.99, 0.999, 1} {
				exact := stat.Quantile(p, stat.Empirical, xs, nil)
				got := s.quantile(p)
				if exact < SketchMinS {
					if got != 0 {
						t.Errorf("%s n=%d p=%v: got %v, want 0 (exact %v)", d.name, n, p, got, exact)
					}
					continue
				}
				if rel := math.Abs(got-exact) / exact; rel > SketchRelativeError*(1+1e-9) {
					t.Errorf("%s n=%d p=%v: got %v exact %v, relative error %.4g > %v", d.name, n, p, got, exact, rel, SketchRelativeError)
				}
			}
		}
	}
	var empty sketch
	if q := empty.quantile(0.5); !math.IsNaN(q) { // no data: NaN (null in summary.json)
		t.Errorf("empty sketch: %v, want NaN", q)
	}
}

func BenchmarkSketchAdd(b *testing.B) {
	s := newSketch()
	v := 0.0123
	for b.Loop() {
		s.add(v)
		v *= 1.0001
	}
}
