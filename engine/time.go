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
// whole KV cache held, every slot prefilling a full chunk, within the
// bounds Validate states) exceeds it.
const MaxIterationS = 1e3

// maxIterationPS is MaxIterationS in picoseconds.
const maxIterationPS = Time(MaxIterationS) * Second

// maxStart is the latest start of an iteration the engine runs: one that
// started later could end past the range of Time (an iteration lasts at
// most MaxIterationS; one second more covers its rounding). Work that would
// need later iterations stays unfinished: Stats still counts it and
// NextEvent is Never.
const maxStart = Never - maxIterationPS - Second

// Seconds converts s seconds to picoseconds. A time written in decimal with
// at most 12 fractional digits (a trace's millisecond or microsecond
// timestamp) converts to exactly its picoseconds, so that it ties exactly
// with an iteration start at that time; any other s is rounded to the
// nearest picosecond. Later seconds never give earlier picoseconds. Values
// beyond the range (and +Inf) saturate to Never, below it to -Never; NaN
// gives 0.
func Seconds(s float64) Time {
	if s < 0 {
		return -Seconds(-s)
	}
	ps := math.Round(s * 1e12)
	switch {
	case ps >= 9.2e18:
		return Never
	case ps != ps:
		return 0
	}
	p := Time(ps)
	// Below 4096 s the spacing of doubles is under half a picosecond, so
	// s·10^12 rounded is the decimal time s stands for, if any. Beyond,
	// several picosecond counts have s as their nearest double, and s·10^12
	// can round off the one a decimal time stands for: take the one with the
	// most trailing zeros.
	if s < 4096 {
		return p
	}
	return roundestPS(s)
}

// pow10 holds 10^0 … 10^15.
var pow10 = func() (p [16]int64) {
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10
	}
	return
}()

// roundestPS returns, for 4096 <= s < 9.2e6, the picosecond count with the
// most trailing decimal zeros among those whose nearest double in seconds
// is s (q·10^-12 rounds to s).
func roundestPS(s float64) Time {
	// s·10^12 exactly: fl + fr + lo (fl whole, 0 <= fr < 1).
	hi := s * 1e12
	lo := math.FMA(s, 1e12, -hi)
	fh := math.Floor(hi)
	fl, fr := int64(fh), hi-fh
	// q's value in seconds rounds to s when s·10^12 − q lies in
	// [−above, below] (half the gaps to the neighbouring doubles, in ps;
	// exact, since 10^12 = 5^12·2^12 and 5^12 < 2^53).
	below := (s - math.Nextafter(s, 0)) * 1e12 / 2
	above := (math.Nextafter(s, math.Inf(1)) - s) * 1e12 / 2
	in := func(q int64) bool {
		d := float64(fl-q) + fr + lo
		return d > -above && d < below
	}
	c := fl + int64(math.Round(fr+lo)) // s·10^12 to the picosecond
	first, last := c-int64(below)-2, c+int64(above)+2
	// The candidates are the multiples of 10^k in [first, last] for k from
	// the largest down. Whether [first, last] holds a multiple of 10^k is
	// monotone in k (a multiple of 10^k is one of 10^(k-1)), so the largest
	// such k is found by bisection instead of trying all sixteen in turn.
	lo10, hi10 := 0, len(pow10)-1 // a multiple of 10^lo10 is in range (of 1: always)
	for lo10 < hi10 {
		mid := (lo10 + hi10 + 1) / 2
		if m := pow10[mid]; last/m*m >= first {
			lo10 = mid
		} else {
			hi10 = mid - 1
		}
	}
	for k := lo10; k >= 0; k-- {
		m := pow10[k]
		for q := (first + m - 1) / m * m; q <= last; q += m {
			if in(q) {
				return Time(q)
			}
		}
	}
	return Time(math.Round(hi))
}

// Seconds returns t in seconds, the double nearest to t/10^12 (Never gives
// +Inf).
func (t Time) Seconds() float64 {
	if t == Never {
		return math.Inf(1)
	}
	if t < 1<<53 && t > -1<<53 {
		return float64(t) / 1e12 // t is exact as a double: one rounding
	}
	// float64(t) would round t first. Whole seconds are exact; the
	// fraction, a whole number of picoseconds below 10^12, is too.
	q, r := t/Second, t%Second
	return float64(q) + float64(r)/1e12
}
