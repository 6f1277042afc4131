package sim

import "math"

// MinRate returns the lowest mean arrival rate, requests/s, at which n
// generated requests (Poisson or bursty, no trace) fit the simulator's time
// range: the last arrival must come by MaxArrivalS (engine times are whole
// picoseconds; docs/model.md, "Time"). The bound is (n + 10·√n + 50)/
// MaxArrivalS: n exponential gaps of mean 1/rate add up to more than that
// with probability below 1e-20 (a Chernoff bound), so a run accepted here
// does not stop at an arrival beyond the range.
func MinRate(n int) float64 {
	x := float64(max(n, 0))
	return (x + 10*math.Sqrt(x) + 50) / MaxArrivalS
}

// checkTimeRange refuses a generated workload whose arrivals would not fit
// the time range (a replayed trace is bounded by workload.MaxTraceSpanS).
func (c *Config) checkTimeRange() error {
	w := c.Workload
	if w.Trace != "" || !(w.Rate > 0) || w.Requests < 1 {
		return nil
	}
	if lo := MinRate(w.Requests); w.Rate < lo {
		return bad("workload.rate", w.Rate,
			"at least %.3g requests/s for %d requests: the arrivals must fit the simulator's time range of %.4g s (about 53 days; times are whole picoseconds)",
			lo, w.Requests, MaxArrivalS)
	}
	return nil
}
