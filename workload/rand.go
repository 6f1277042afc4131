package workload

import "math/rand/v2"

// Stream identifies one consumer of randomness. Every consumer draws from
// its own PCG stream derived from the run's seed, so adding draws in one
// consumer never shifts another's.
type Stream uint64

// The named random streams of a run.
const (
	StreamArrivals   Stream = 1 + iota // inter-arrival times, burst states
	StreamLengths                      // L_total draws from a CDF
	StreamSplit                        // input/output split
	StreamCategories                   // content categories, byte lengths
	StreamRouter                       // router decisions (C&R success)
	StreamCompressor                   // compression latency draws
	StreamPlanner                      // Monte Carlo calibration in the planner
)

// NewRand returns the random source of stream s for the given seed.
// It never touches the global source.
func NewRand(seed uint64, s Stream) *rand.Rand {
	return rand.New(newPCG(seed, s))
}

// newPCG returns the generator behind NewRand(seed, s): a consumer that
// only needs uniform draws calls it directly (unitFloat), without the
// rand.Rand's interface call per draw.
func newPCG(seed uint64, s Stream) *rand.PCG {
	return rand.NewPCG(seed, uint64(s))
}

// unitFloat returns a uniform draw in [0, 1) from p, the same number
// rand.New(p).Float64() would return: the low 53 bits of a 64-bit draw,
// scaled by 2^-53, math/rand/v2's expression (TestUnitFloatSameAsRand).
func unitFloat(p *rand.PCG) float64 {
	return float64(p.Uint64()<<11>>11) / (1 << 53)
}
