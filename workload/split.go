package workload

import (
	"math"
	"math/rand/v2"
)

// Defaults and bounds of the input/output split models.
const (
	DefaultInputFraction = 0.8  // fixed split: L_in = floor(0.8·L)
	DefaultOutputMu      = 0.10 // normal split: mean output fraction (token-budget paper, Azure)
	DefaultOutputSigma   = 0.05 // normal split: sd of the output fraction (token-budget paper, Azure)
	MinOutputFraction    = 0.02 // normal split: lower clip of the output fraction
	MaxOutputFraction    = 0.95 // normal split: upper clip of the output fraction
)

// SplitFixed splits a total of total tokens into L_in = floor(f·total) and
// L_out = total - L_in, then enforces L_in >= 1 and L_out >= 1 (so a total of
// 1 becomes 1 + 1). A 1e-9 guard absorbs binary rounding of f·total
// (0.29·100 gives 29, not 28).
func SplitFixed(total int, f float64) (in, out int) {
	in = int(math.Floor(f*float64(total) + 1e-9))
	return clampSplit(total, in)
}

// SplitNormal splits total tokens with an output fraction o ~ N(mu, sigma)
// clipped to [0.02, 0.95] (the token-budget paper's model): L_out =
// round(o·total), L_in = total - L_out, then L_in >= 1 and L_out >= 1. It
// uses one NormFloat64 draw of r.
func SplitNormal(total int, mu, sigma float64, r *rand.Rand) (in, out int) {
	o := mu + sigma*r.NormFloat64()
	o = min(max(o, MinOutputFraction), MaxOutputFraction)
	out = int(math.Round(o * float64(total)))
	return clampSplit(total, total-out)
}

// clampSplit returns (in, total-in) with both parts at least 1.
func clampSplit(total, in int) (int, int) {
	if in < 1 {
		in = 1
	}
	out := total - in
	if out < 1 {
		out = 1
		in = max(1, total-1)
	}
	return in, out
}
