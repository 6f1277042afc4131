package autoscale

// Meter counts one pool's arrivals over a control interval, for the rate
// and mean lengths of its Observation.
type Meter struct {
	start         float64 // start of the interval, seconds
	n             int64
	sumIn, sumOut float64
}

// NewMeter returns a meter whose first interval starts at t0 seconds.
func NewMeter(t0 float64) *Meter { return &Meter{start: t0} }

// Arrive counts an arrival of in prompt and out output tokens.
func (m *Meter) Arrive(in, out int) {
	m.n++
	m.sumIn += float64(in)
	m.sumOut += float64(out)
}

// Take fills o's TimeS, RateRPS, MeanIn, MeanOut and Arrivals for the
// interval ending at t seconds, and starts the next one at t.
func (m *Meter) Take(t float64, o *Observation) {
	o.TimeS, o.Arrivals, o.RateRPS, o.MeanIn, o.MeanOut = t, m.n, 0, 0, 0
	if d := t - m.start; d > 0 {
		o.RateRPS = float64(m.n) / d
	}
	if m.n > 0 {
		o.MeanIn, o.MeanOut = m.sumIn/float64(m.n), m.sumOut/float64(m.n)
	}
	*m = Meter{start: t}
}
