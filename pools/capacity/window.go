package capacity

import (
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/fleetsim/fleetsim/workload"
)

// MaxBuckets bounds the buckets of one window length (span/Δ + 1), so a tiny
// Δ on a long trace ends in a clear error rather than in running out of
// memory.
const MaxBuckets = 50_000_000

// MaxWindowS bounds a window length, seconds (about 31.7 years), so that
// τ·Δ stays finite for every τ up to MaxTau.
const MaxWindowS = 1e9

// Windowed is a series bucketed into windows of Δ seconds: bucket n covers
// arrivals in [nΔ, (n+1)Δ) (times relative to the first arrival), there are
// ⌊t_max/Δ⌋ + 1 buckets, empty ones included, and X_n = D_n/(τΔ) is the
// number of units bucket n needs, D_n being its total work.
type Windowed struct {
	DeltaS float64   // Δ, s
	X      []float64 // X_n in time order, units
	sorted []float64 // X ascending
	mean   float64
}

// Bucket buckets s into windows of deltaS seconds for a unit rate of tau
// adjusted tokens per second.
func Bucket(s Series, tau, deltaS float64) (Windowed, error) {
	if !(deltaS > 0 && deltaS <= MaxWindowS) {
		return Windowed{}, &workload.FieldError{Field: "window", Value: deltaS, Allowed: fmt.Sprintf("a window length in seconds, in (0, %g]", MaxWindowS)}
	}
	if !(tau > 0) || math.IsInf(tau, 1) {
		return Windowed{}, &workload.FieldError{Field: "tau", Value: tau, Allowed: "a number > 0"}
	}
	if len(s.T) == 0 {
		return Windowed{}, &workload.FieldError{Field: "requests", Value: 0, Allowed: "at least one request is needed"}
	}
	nb := math.Floor(s.Span()/deltaS) + 1
	if nb > MaxBuckets {
		return Windowed{}, &workload.FieldError{Field: "window", Value: deltaS,
			Allowed: fmt.Sprintf("too short for the trace's %.1f s span: %.3g windows, at most %d", s.Span(), nb, MaxBuckets)}
	}
	x := make([]float64, int(nb))
	for j, t := range s.T {
		k := min(int(t/deltaS), len(x)-1) // t/Δ may round up to len(x) at the last arrival
		x[k] += s.B[j]
	}
	scale := 1 / (tau * deltaS)
	sum := 0.0
	for k := range x {
		x[k] *= scale
		sum += x[k]
	}
	sorted := slices.Clone(x)
	slices.Sort(sorted)
	return Windowed{DeltaS: deltaS, X: x, sorted: sorted, mean: sum / float64(len(x))}, nil
}

// Buckets returns the number of windows.
func (w *Windowed) Buckets() int { return len(w.X) }

// Percentile returns the p-quantile of X_n, linear interpolation between
// order statistics (see quantileLinear), units.
func (w *Windowed) Percentile(p float64) float64 { return quantileLinear(w.sorted, p) }

// Exceed returns the number of windows with X_n > g (strictly).
func (w *Windowed) Exceed(g float64) int {
	return len(w.sorted) - sort.Search(len(w.sorted), func(i int) bool { return w.sorted[i] > g })
}

// WindowStats describes X_n for one window length against G reserved units.
type WindowStats struct {
	WindowS  float64 `json:"window_s"` // Δ, s
	Buckets  int     `json:"buckets"`
	MeanX    float64 `json:"mean_units"` // mean X_n, units
	P95X     float64 `json:"p95_units"`  // linear interpolation between order statistics
	P99X     float64 `json:"p99_units"`
	MaxX     float64 `json:"max_units"`
	Units    float64 `json:"reserved_units"`       // G
	Overload float64 `json:"overload_probability"` // P(X_n > G), strict
	Overflow float64 `json:"expected_overflow"`    // E[(X_n − G)+], units
	Spare    float64 `json:"expected_spare"`       // E[(G − X_n)+], units
	// SpareFraction is E[(G − X_n)+]/G, the mean share of the reservation
	// left idle (0 when G = 0).
	SpareFraction float64 `json:"spare_fraction"`
}

// Stats returns the statistics of X_n against g units.
func (w *Windowed) Stats(g float64) WindowStats {
	st := WindowStats{
		WindowS: w.DeltaS, Buckets: len(w.X), MeanX: w.mean,
		P95X: w.Percentile(0.95), P99X: w.Percentile(0.99), MaxX: w.sorted[len(w.sorted)-1],
		Units: g,
	}
	var over, spare float64
	for _, x := range w.X {
		if x > g {
			over += x - g
		} else {
			spare += g - x
		}
	}
	n := float64(len(w.X))
	st.Overload = float64(w.Exceed(g)) / n
	st.Overflow = over / n
	st.Spare = spare / n
	if g > 0 {
		st.SpareFraction = st.Spare / g
	}
	return st
}
