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

// TestSketchSums: the fleet's latency quantiles (TTFT, TPOT, E2E, queue
// wait: each from its own values) come from its pools' sketches summed (acc.withPoolSketches for summary.json, sumQuantiles for
// the time series' fleet rows) instead of a sketch every completion was
// added to; both give the quantiles of that one sketch (sketch.quantile,
// windowSketch.quantile) exactly, on values split at random among 1 to 4
// pools: zeros (below SketchMinS), NaN (not recorded), values past
// SketchMaxS, a pool with no value, all values in one pool, none at all.
func TestSketchSums(t *testing.T) {
	rnd := workload.NewRand(7, workload.StreamPlanner)
	qs := []float64{0.001, 0.01, 0.5, 0.9, 0.99, 1}
	for trial := range 300 {
		npools := 1 + rnd.IntN(4)
		n := []int{0, 1, 2, 10, 1000}[rnd.IntN(5)]
		pools := make([]*pool, npools)
		accs := make([]seriesAcc, npools)
		ws := make([]*windowSketch, npools)
		for i := range pools {
			pools[i] = &pool{m: newAcc()}
			accs[i].ttft = windowSketch{s: newSketch()}
			accs[i].ttft.reset()
			ws[i] = &accs[i].ttft
		}
		all, allW := newSketch(), windowSketch{s: newSketch()}
		allW.reset()
		// The other three sketches get other values (and tpot none when
		// trial%3 == 0), so that one merged into another's place shows.
		others := [3]sketch{newSketch(), newSketch(), newSketch()}
		for range n {
			v := math.Exp(rnd.NormFloat64()*3 - 3)
			switch rnd.IntN(12) {
			case 0:
				v = 0
			case 1:
				v = math.NaN()
			case 2:
				v = 1e9
			}
			k := rnd.IntN(npools)
			if trial%5 == 0 {
				k = 0
			}
			pools[k].m.ttft.add(v)
			accs[k].ttft.add(v)
			all.add(v)
			allW.add(v)
			m := &pools[rnd.IntN(npools)].m
			for j, x := range [3]*sketch{&m.tpot, &m.e2e, &m.wait} {
				if j == 0 && trial%3 == 0 {
					continue
				}
				w := v * float64(3+4*j)
				x.add(w)
				others[j].add(w)
			}
		}
		fleet := newAcc().withPoolSketches(pools)
		for j, x := range [3]*sketch{&fleet.tpot, &fleet.e2e, &fleet.wait} {
			for _, q := range qs {
				if got, want := x.quantile(q), others[j].quantile(q); math.Float64bits(got) != math.Float64bits(want) {
					t.Errorf("trial %d: sketch %d (tpot, e2e, wait) q=%v: summed pools' %v, one sketch %v", trial, j, q, got, want)
				}
			}
		}
		out := make([]float64, len(qs))
		sumQuantiles(ws, qs, out)
		for k, q := range qs {
			if got, want := fleet.ttft.quantile(q), all.quantile(q); math.Float64bits(got) != math.Float64bits(want) {
				t.Errorf("trial %d (%d values, %d pools) q=%v: summed pools' sketches %v, one sketch %v", trial, n, npools, q, got, want)
			}
			if got, want := out[k], allW.quantile(q); math.Float64bits(got) != math.Float64bits(want) {
				t.Errorf("trial %d (%d values, %d pools) q=%v: sumQuantiles %v, one window sketch %v", trial, n, npools, q, got, want)
			}
		}
	}
}
