package osd

import "math"

// minSlopeN is the smallest effective sample size for which a slope is
// estimated (guidellm's minimal_n_for_slope_estimation).
const minSlopeN = 3

// Slope is an online least-squares line fit over a window of (x, y) points
// kept as running sums, so points can be added and removed in O(1)
// (guidellm's SlopeChecker).
type Slope struct {
	n                               int
	sumX, sumY, sumXY, sumX2, sumY2 float64

	moeThreshold, eps float64
	z                 float64 // normal quantile at 1 − α/2, computed once

	// Estimated reports whether Check has ever computed an estimate; Value
	// and MOE hold the last one (guidellm keeps them across calls).
	estimated  bool
	value, moe float64
}

// NewSlope returns an empty fit that reports a positive slope when its
// relative margin of error at the given two-sided confidence is below
// moeThreshold; eps guards divisions (guidellm: 1e-12).
func NewSlope(moeThreshold, confidence, eps float64) *Slope {
	alpha := 1 - confidence
	return &Slope{moeThreshold: moeThreshold, eps: eps, z: normalQuantile(1 - alpha/2)}
}

// Add puts the point (x, y) into the window.
func (s *Slope) Add(x, y float64) {
	s.n++
	s.sumX += x
	s.sumY += y
	s.sumXY += x * y
	s.sumX2 += x * x
	s.sumY2 += y * y
}

// Remove takes the point (x, y), added before, out of the window.
func (s *Slope) Remove(x, y float64) {
	s.n--
	s.sumX -= x
	s.sumY -= y
	s.sumXY -= x * y
	s.sumX2 -= x * x
	s.sumY2 -= y * y
}

// N is the number of points in the window.
func (s *Slope) N() int { return s.n }

// Last returns the slope (y units per x unit) and its relative margin of
// error from the last Check that estimated them; ok is false before that.
func (s *Slope) Last() (slope, moe float64, ok bool) { return s.value, s.moe, s.estimated }

// Check fits the window's line and reports whether its slope is positive
// with a relative margin of error below the threshold. effectiveN (which may
// be smaller than N) sets the degrees of freedom, effectiveN − 2; below 3 no
// estimate is made and Check returns false. The margin of error is
// t(1 − α/2, effectiveN − 2) × SE(slope) / max(slope, eps), with
// SE² = RSS / (effectiveN − 2) / Sxx, the sums of squares taken over the N
// actual points.
func (s *Slope) Check(effectiveN float64) bool {
	if effectiveN < minSlopeN {
		return false
	}
	n := float64(s.n)
	sxx := s.sumX2 - s.sumX*s.sumX/n
	sxy := s.sumXY - s.sumX*s.sumY/n
	syy := s.sumY2 - s.sumY*s.sumY/n
	sxxSafe := math.Max(sxx, s.eps)
	slope := sxy / sxxSafe
	rss := math.Max(syy-sxy*sxy/sxxSafe, 0)
	dof := effectiveN - 2
	se := math.Sqrt(rss / dof / sxxSafe)
	moe := tFromZ(s.z, dof) * se / math.Max(slope, s.eps)
	s.value, s.moe, s.estimated = slope, moe, true
	return slope > 0 && moe < s.moeThreshold
}
