package engine

import "math"

// Time is a simulated time or duration in whole picoseconds. The engine
// keeps every time in this unit so that equal times are equal integers: an
// arrival at exactly the start of an iteration ties exactly and is admitted
// by it (docs/model.md, "Time"). Its range is ±2^63 ps, about ±106 days;
// callers keep arrivals at or below MaxArrival.
type Time int64

// Second is one second.
const Second Time = 1_000_000_000_000

// Never is the time of an event that does not happen (NextEvent of an idle
// engine); AdvanceTo(Never) runs everything.
const Never Time = math.MaxInt64

// MaxArrival is the latest time a caller may submit at or advance to
// (except Never): 2^62 ps, about 53 days. The other half of the range is
// headroom for the work queued by then (iterations are at most
// MaxIterationS long).
const MaxArrival Time = 1 << 62

// MaxIterationS bounds the duration of one iteration in seconds: Config.
// Validate refuses timings whose longest iteration (every slot busy, the
// whole KV cache held, every slot prefilling a full chunk) exceeds it.
const MaxIterationS = 1e3

// maxIterationPS is MaxIterationS in picoseconds.
const maxIterationPS = Time(MaxIterationS) * Second

// Seconds converts s seconds to the nearest picosecond. Values beyond the
// range (and +Inf) saturate to Never, below it to -Never; NaN gives 0.
func Seconds(s float64) Time {
	ps := math.Round(s * 1e12)
	switch {
	case ps >= 9.2e18:
		return Never
	case ps <= -9.2e18:
		return -Never
	case ps != ps:
		return 0
	}
	return Time(ps)
}

// Seconds returns t in seconds (Never gives +Inf).
func (t Time) Seconds() float64 {
	if t == Never {
		return math.Inf(1)
	}
	return float64(t) / 1e12
}
