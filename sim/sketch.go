package sim

import "math"

// The streaming quantile sketch: a log-bucketed histogram of fixed size
// (the idea of DDSketch, Masson et al., VLDB 2019). Bucket i holds the values
// in (sketchMin*γ^(i-1), sketchMin*γ^i] with γ = (1+α)/(1-α); a quantile is
// answered with the bucket's representative 2*sketchMin*γ^i/(γ+1), whose
// relative error against any value of the bucket is at most α. Memory is
// fixed (about 24 KiB per sketch) whatever the number of requests.
const (
	// SketchRelativeError is α, the largest relative error of a reported
	// quantile against the exact order statistic of the same rank, for values
	// in [SketchMinS, SketchMaxS].
	SketchRelativeError = 0.005
	// SketchMinS is the smallest value the sketch resolves, s; smaller values
	// (0 included) are counted as 0, an absolute error below 1 µs.
	SketchMinS = 1e-6
	// SketchMaxS is the largest value the sketch resolves, s; larger values are
	// reported as SketchMaxS.
	SketchMaxS = 1e7
)

var (
	sketchGamma   = (1 + SketchRelativeError) / (1 - SketchRelativeError)
	sketchLnGamma = math.Log(sketchGamma)
	sketchBuckets = int(math.Ceil(math.Log(SketchMaxS/SketchMinS)/sketchLnGamma)) + 1
)

// sketch is a streaming quantile estimator with bounded relative error.
type sketch struct {
	zero   uint64   // values below SketchMinS
	counts []uint64 // counts[i]: values in (min*γ^(i-1), min*γ^i]
	n      uint64
}

func newSketch() sketch { return sketch{counts: make([]uint64, sketchBuckets)} }

// add records v; NaN is ignored, negative values count as 0.
func (s *sketch) add(v float64) {
	if v != v {
		return
	}
	s.n++
	if v < SketchMinS {
		s.zero++
		return
	}
	i := int(math.Ceil(math.Log(v/SketchMinS) / sketchLnGamma))
	if i >= len(s.counts) {
		i = len(s.counts) - 1
	} else if i < 0 {
		i = 0
	}
	s.counts[i]++
}

// quantile returns the q-quantile (0 < q <= 1) in the lower empirical sense:
// the value of rank ceil(q*n) among the n values, within relative error α.
// It returns 0 for an empty sketch.
func (s *sketch) quantile(q float64) float64 {
	if s.n == 0 {
		return 0
	}
	rank := uint64(math.Ceil(q * float64(s.n)))
	if rank < 1 {
		rank = 1
	}
	if rank > s.n {
		rank = s.n
	}
	seen := s.zero
	if seen >= rank {
		return 0
	}
	for i, c := range s.counts {
		seen += c
		if seen >= rank {
			return min(SketchMaxS, SketchMinS*2*math.Pow(sketchGamma, float64(i))/(sketchGamma+1))
		}
	}
	return SketchMaxS
}

func (s *sketch) quantiles() Quantiles {
	return Quantiles{P50: s.quantile(0.50), P90: s.quantile(0.90), P99: s.quantile(0.99)}
}
