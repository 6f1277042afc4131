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
	return rand.New(rand.NewPCG(seed, uint64(s)))
}
