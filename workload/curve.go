package workload

import (
	"math"
	"sort"
)

// Curve is a resolved rate profile λ(t), requests/s at t seconds, with its
// integral Λ(t) = ∫₀ᵗ λ(u) du (expected arrivals in [0, t]) and the inverse
// of Λ. Build one with NewCurve.
type Curve struct {
	sin    bool
	mean   float64 // sinusoid mean rate
	amp    float64 // sinusoid relative amplitude a = (ratio-1)/(ratio+1)
	omega  float64 // 2π / period
	peak   float64 // sinusoid peak time, s
	period float64 // s; 0: not periodic
	// Segments: start times, start rates, slopes (requests/s²) and Λ at each
	// start; total is Λ over one period.
	times, rates, slopes, cum []float64
	total                     float64
	constant                  bool
}

// NewCurve resolves a validated step, linear, const or sin profile (a trace
// shape must have been loaded by LoadRateProfile, which turns it into a step
// profile). mean replaces a sinusoid's Mean when that is 0 (the spec's rate).
func NewCurve(p *RateProfile, mean float64) *Curve {
	if p.Kind == ProfileSin {
		m := p.Mean
		if m == 0 {
			m = mean
		}
		return &Curve{sin: true, mean: m, amp: (p.Ratio - 1) / (p.Ratio + 1), omega: 2 * math.Pi / p.Period,
			peak: p.Peak, period: p.Period}
	}
	n := len(p.Times)
	c := &Curve{period: p.Period, times: p.Times, rates: p.Rates, slopes: make([]float64, n), cum: make([]float64, n+1)}
	c.constant = n == 1 && p.Period == 0
	for i := range n {
		end := p.Period
		if i+1 < n {
			end = p.Times[i+1]
		}
		if p.Kind == ProfileLinear && end > p.Times[i] {
			c.slopes[i] = (p.rateAtEnd(i) - p.Rates[i]) / (end - p.Times[i])
		}
		if i+1 < n || p.Period > 0 {
			dt := end - p.Times[i]
			c.cum[i+1] = c.cum[i] + p.Rates[i]*dt + c.slopes[i]*dt*dt/2
		} else {
			c.cum[i+1] = math.Inf(1) // the last rate holds for ever
		}
	}
	c.total = c.cum[n]
	return c
}

// Constant reports whether λ is one rate for ever (then the time change is
// the identity and a profiled source reproduces the plain one exactly).
func (c *Curve) Constant() bool { return c.constant }

// wrap splits t into whole periods and the time within the period.
func (c *Curve) wrap(t float64) (float64, float64) {
	if c.period == 0 {
		return 0, t
	}
	n := math.Floor(t / c.period)
	r := t - n*c.period
	if r >= c.period { // rounding
		n, r = n+1, 0
	}
	return n, max(r, 0)
}

// seg returns the segment holding time r within a period.
func (c *Curve) seg(r float64) int {
	return sort.Search(len(c.times), func(i int) bool { return c.times[i] > r }) - 1
}

// Rate returns λ(t), requests/s.
func (c *Curve) Rate(t float64) float64 {
	_, r := c.wrap(t)
	if c.sin {
		return c.mean * (1 + c.amp*math.Cos(c.omega*(r-c.peak)))
	}
	k := c.seg(r)
	return c.rates[k] + c.slopes[k]*(r-c.times[k])
}

// Cum returns Λ(t) = ∫₀ᵗ λ(u) du, the expected number of arrivals in [0, t].
func (c *Curve) Cum(t float64) float64 {
	n, r := c.wrap(t)
	var in float64
	if c.sin {
		in = c.sinCum(r)
		return n*c.mean*c.period + in
	}
	k := c.seg(r)
	dt := r - c.times[k]
	in = c.cum[k] + c.rates[k]*dt + c.slopes[k]*dt*dt/2
	return n*c.total + in
}

func (c *Curve) sinCum(r float64) float64 {
	return c.mean * (r + c.amp/c.omega*(math.Sin(c.omega*(r-c.peak))+math.Sin(c.omega*c.peak)))
}

// Inv returns the time t with Λ(t) = y (the smallest such t), seconds.
func (c *Curve) Inv(y float64) float64 { return c.invNear(y, math.NaN()) }

// invNear is Inv with a guess of the answer (NaN: none), which a
// sinusoid's Newton iteration starts from: consecutive arrivals are close,
// so the previous one is a good guess.
func (c *Curve) invNear(y, near float64) float64 {
	var n, rem float64
	if c.period > 0 {
		tot := c.total
		if c.sin {
			tot = c.mean * c.period
		}
		n = math.Floor(y / tot)
		rem = max(y-n*tot, 0)
	} else {
		rem = y
	}
	if c.sin {
		return n*c.period + c.sinInv(rem, near-n*c.period)
	}
	// The segment where Λ passes rem: the last one starting at or below it.
	k := sort.Search(len(c.times), func(i int) bool { return c.cum[i+1] > rem })
	if k == len(c.times) { // rounding at the end of a period
		k = len(c.times) - 1
	}
	dy := rem - c.cum[k]
	r0, m := c.rates[k], c.slopes[k]
	var dt float64
	if m == 0 {
		dt = dy / r0
	} else {
		// r0·dt + m·dt²/2 = dy, the root in the segment, in a form stable
		// for small m.
		dt = 2 * dy / (r0 + math.Sqrt(max(r0*r0+2*m*dy, 0)))
	}
	if k+1 < len(c.times) {
		dt = min(dt, c.times[k+1]-c.times[k])
	} else if c.period > 0 {
		dt = min(dt, c.period-c.times[k])
	}
	return n*c.period + c.times[k] + dt
}

// sinInv solves sinCum(t) = y for t in [0, period] by Newton's method
// safeguarded with bisection (sinCum is strictly increasing: λ >= mean·(1-a) > 0).
func (c *Curve) sinInv(y, guess float64) float64 {
	lo, hi := 0.0, c.period
	t := y / c.mean
	if guess >= lo && guess <= hi { // a Newton step from the guess
		t = guess - (c.sinCum(guess)-y)/(c.mean*(1+c.amp*math.Cos(c.omega*(guess-c.peak))))
	}
	t = min(max(t, lo), hi)
	for range 100 {
		f := c.sinCum(t) - y
		if f > 0 {
			hi = t
		} else {
			lo = t
		}
		nt := t - f/(c.mean*(1+c.amp*math.Cos(c.omega*(t-c.peak))))
		if !(nt > lo && nt < hi) {
			nt = (lo + hi) / 2
		}
		if math.Abs(nt-t) <= 1e-12*max(1, t) {
			return nt
		}
		t = nt
	}
	return t
}

// Profiled time-changes an arrival process by a rate profile: a base
// process of mean rate R (Poisson or MMPP, in "operational" seconds) yields
// s, and Profiled yields t = Λ⁻¹(R·s). A Poisson base thus becomes a
// non-homogeneous Poisson process of rate λ(t) (the time-change theorem);
// an MMPP base keeps its bursts, whose sojourns then run on the operational
// clock (a burst lasts S_H·R/λ(t) wall seconds on average, holding the same
// expected number of requests at any time of day). The base's draws are
// used unchanged, one per arrival; no arrival is thinned away.
type Profiled struct {
	base  Arrivals
	curve *Curve
	rate  float64
	last  float64 // the previous arrival, seconds (NaN before the first)
}

// NewProfiled returns base time-changed by c, base having mean rate rate
// (requests/s, > 0). A constant curve returns base itself, so that the
// arrival times are bit for bit those of base.
func NewProfiled(base Arrivals, rate float64, c *Curve) Arrivals {
	if c.Constant() && c.rates[0] == rate {
		return base
	}
	return &Profiled{base: base, curve: c, rate: rate, last: math.NaN()}
}

// Next returns the next arrival time, seconds.
func (p *Profiled) Next() float64 {
	t := p.curve.invNear(p.rate*p.base.Next(), p.last)
	if t < p.last { // Λ⁻¹ is monotone; its floating-point value may not be, by an ulp
		t = p.last
	}
	p.last = t
	return t
}
