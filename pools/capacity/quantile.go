package capacity

import "math"

// Two percentile conventions are used, as in slosizer:
//
//   - window statistics (p95, p99 of X_n) interpolate linearly between order
//     statistics (Hyndman–Fan type 7, numpy's default): with sorted x of
//     length n, h = (n−1)·p and Q = x[⌊h⌋] + (h − ⌊h⌋)·(x[⌊h⌋+1] − x[⌊h⌋]);
//   - latency percentiles use the inverse empirical CDF without
//     interpolation (type 1): Q = x[⌈n·p⌉ − 1], the smallest value with at
//     least a share p of the requests at or below it. "p99 latency ≤ T" is
//     then exactly "at least 99% of requests finish within T".
//
// Ninety-five 1.0s and five 2.0s: type 7 gives p95 = 1.05, type 1 gives 1.0.

// quantileLinear returns the type-7 p-quantile of sorted (ascending,
// non-empty), p in [0, 1].
func quantileLinear(sorted []float64, p float64) float64 {
	n := len(sorted)
	h := float64(n-1) * p
	lo := int(math.Floor(h))
	if lo >= n-1 {
		return sorted[n-1]
	}
	if lo < 0 {
		return sorted[0]
	}
	return sorted[lo] + (h-float64(lo))*(sorted[lo+1]-sorted[lo])
}

// rankTolerance absorbs float noise in n·p (0.95·100 must count as 95).
const rankTolerance = 1e-9

// quantileInverse returns the type-1 p-quantile of sorted (ascending,
// non-empty), p in (0, 1].
func quantileInverse(sorted []float64, p float64) float64 {
	n := len(sorted)
	k := int(math.Ceil(float64(n)*p - rankTolerance))
	k = max(1, min(n, k))
	return sorted[k-1]
}
