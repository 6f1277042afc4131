package sim

import "math"

// The streaming quantile sketch is a log-linear histogram of fixed size (the
// layout of HdrHistogram): every octave [2^e, 2^(e+1)) of seconds is split
// into sketchSub equal buckets, read straight from the bits of the float64
// (exponent and the top mantissa bits; no logarithm). A quantile is answered
// with the midpoint of its bucket, whose relative error against any value of
// the bucket is at most 1/(2*sketchSub) = 1/256 ≈ 0.39%. Memory is fixed
// (44 octaves x 128 buckets x 8 bytes ≈ 44 KiB per sketch) whatever the
// number of requests.
const (
	sketchSubBits = 7
	sketchSub     = 1 << sketchSubBits
	sketchMinExp  = -20 // 2^-20 s ≈ 0.95 µs
	sketchMaxExp  = 24  // 2^24 s ≈ 194 days

	// SketchRelativeError is the largest relative error of a reported
	// quantile against the exact order statistic of the same rank, for
	// values in [SketchMinS, SketchMaxS).
	SketchRelativeError = 1.0 / (2 * sketchSub)
)

const (
	// SketchMinS is the smallest value the sketch resolves, s (2^-20 ≈
	// 0.95 µs); smaller values (0 included) are counted as 0, an absolute
	// error below 1 µs.
	SketchMinS = 1.0 / (1 << -sketchMinExp)
	// SketchMaxS bounds the values the sketch resolves, s (2^24 ≈ 194 days);
	// larger values are counted in the last bucket (reported as about
	// SketchMaxS).
	SketchMaxS = 1 << sketchMaxExp
)

const sketchBuckets = (sketchMaxExp - sketchMinExp) * sketchSub

// sketch is a streaming quantile estimator with bounded relative error.
type sketch struct {
	zero   uint64   // values below SketchMinS
	counts []uint64 // log-linear buckets
	n      uint64
}

func newSketch() sketch { return sketch{counts: make([]uint64, sketchBuckets)} }

// sketchIndex returns v's bucket, -1 for values below SketchMinS (and NaN
// is -2: not recorded).
func sketchIndex(v float64) int {
	if !(v >= SketchMinS) {
		if v != v {
			return -2
		}
		return -1
	}
	if v >= SketchMaxS {
		return sketchBuckets - 1
	}
	b := math.Float64bits(v)
	exp := int(b>>52&0x7ff) - 1023
	sub := int(b >> (52 - sketchSubBits) & (sketchSub - 1))
	return (exp-sketchMinExp)<<sketchSubBits | sub
}

// addIndex records a value by its bucket (from sketchIndex).
func (s *sketch) addIndex(i int) {
	switch {
	case i >= 0:
		s.counts[i]++
	case i == -1:
		s.zero++
	default:
		return
	}
	s.n++
}

// add records v; NaN is ignored, values below SketchMinS count as 0.
func (s *sketch) add(v float64) { s.addIndex(sketchIndex(v)) }

// merge adds o's values to s.
func (s *sketch) merge(o *sketch) {
	for i, c := range o.counts {
		s.counts[i] += c
	}
	s.zero += o.zero
	s.n += o.n
}

// quantile returns the q-quantile (0 < q <= 1) in the lower empirical sense:
// the value of rank ceil(q*n) among the n values, within relative error
// SketchRelativeError. It returns NaN for an empty sketch (no data).
func (s *sketch) quantile(q float64) float64 {
	if s.n == 0 {
		return math.NaN()
	}
	return s.rankIn(quantileRank(q, s.n), 0, len(s.counts)-1)
}

// quantileRank is the rank (1..n) of the q-quantile among n values:
// ceil(q*n), clamped.
func quantileRank(q float64, n uint64) uint64 {
	return min(max(uint64(math.Ceil(q*float64(n))), 1), n)
}

// rankIn returns the value of the given rank (1 <= rank <= n) when every
// non-zero bucket lies in [lo, hi] (a windowed sketch scans only the buckets
// it touched).
func (s *sketch) rankIn(rank uint64, lo, hi int) float64 {
	seen := s.zero
	if seen >= rank {
		return 0
	}
	for i := lo; i <= hi; i++ {
		seen += s.counts[i]
		if seen >= rank {
			return bucketValue(i)
		}
	}
	return SketchMaxS
}

// bucketValue is the value a quantile in bucket i reports: its midpoint.
func bucketValue(i int) float64 {
	exp := i>>sketchSubBits + sketchMinExp
	sub := i & (sketchSub - 1)
	return math.Ldexp(1+(float64(sub)+0.5)/sketchSub, exp)
}

func (s *sketch) quantiles() Quantiles {
	return Quantiles{P50: s.quantile(0.50), P90: s.quantile(0.90), P99: s.quantile(0.99)}
}
