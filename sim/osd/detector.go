package osd

import "math"

// point is one sample of a window: x is seconds since the start, y the
// metric (requests in flight, or a TTFT in seconds).
type point struct{ x, y float64 }

// window is a FIFO of points backing a Slope: a ring buffer whose
// capacity (a power of two) doubles when full, so pushes and pops are O(1)
// and memory follows the largest live size.
type window struct {
	buf   []point
	head  int // index of the oldest point
	n     int // points in the window
	total int // points ever added
	limit int // int(total × MaximumWindowRatio): the most points kept
	// frontX is the oldest point's x, +Inf when the window is empty, kept
	// beside the buffer: the age check of every event reads it without
	// touching the buffer, and needs no emptiness test (dur − Inf > w is
	// false for every dur, as dur − x > w is for NaN).
	frontX float64
}

// newWindow returns an empty window.
func newWindow() window { return window{frontX: math.Inf(1)} }

// push adds p and updates the ratio limit (ratio: MaximumWindowRatio).
func (w *window) push(p point, ratio float64) {
	if w.n == len(w.buf) {
		w.grow()
	}
	w.buf[(w.head+w.n)&(len(w.buf)-1)] = p
	if w.n == 0 {
		w.frontX = p.x
	}
	w.n++
	w.total++
	w.limit = int(float64(w.total) * ratio)
}

// grow doubles the buffer (64 points at first), the oldest point first.
func (w *window) grow() {
	nb := make([]point, max(64, 2*len(w.buf)))
	k := copy(nb, w.buf[w.head:])
	copy(nb[k:], w.buf[:w.head])
	w.buf, w.head = nb, 0
}

func (w *window) pop() point {
	p := w.buf[w.head]
	w.head = (w.head + 1) & (len(w.buf) - 1)
	w.n--
	w.frontX = math.Inf(1)
	if w.n > 0 {
		w.frontX = w.buf[w.head].x
	}
	return p
}

// Detector is one over-saturation detector (guidellm's
// OverSaturationConstraint without the scheduler glue). Feed it every
// request's start, first token and end in time order; each call updates
// the windows and re-evaluates the alert. The zero value is not usable:
// call New.
type Detector struct {
	cfg      Config
	origin   float64
	duration float64 // seconds since origin at the last event
	inFlight int

	started, finished window
	violations        int // TTFTs in the finished window above MinimumTTFT
	conc, ttft        Slope

	alert     bool
	fired     bool
	firedAt   float64
	evaluated int64
}

// New returns a detector with cfg (which should be valid, see
// Config.Validate) whose clock starts at origin, in seconds: an event at
// time t is t − origin seconds into the run (guidellm's duration).
func New(cfg Config, origin float64) *Detector {
	return &Detector{
		cfg:     cfg,
		origin:  origin,
		started: newWindow(), finished: newWindow(),
		conc: *NewSlope(cfg.MOEThreshold, cfg.Confidence, cfg.Eps),
		ttft: *NewSlope(cfg.MOEThreshold, cfg.Confidence, cfg.Eps),
	}
}

// Start records a request starting at time t (s): the number of requests in
// flight goes up by one and that number, the new request included, is a
// concurrency point. It returns the alert after the event.
func (d *Detector) Start(t float64) bool {
	d.inFlight++
	return d.StartWith(t, d.inFlight)
}

// StartWith records a request starting at time t (s) with inFlight requests
// in flight (itself included), for callers that count concurrency
// themselves; it does not change the detector's own count. It returns the
// alert after the event.
func (d *Detector) StartWith(t float64, inFlight int) bool {
	x := t - d.origin
	d.started.push(point{x, float64(inFlight)}, d.cfg.MaximumWindowRatio)
	d.conc.Add(x, float64(inFlight))
	for d.started.n > d.started.limit {
		p := d.started.pop()
		d.conc.Remove(p.x, p.y)
	}
	return d.Observe(t)
}

// FirstToken records a first token at time t (s) for a request whose time
// to first token was ttft (s). It returns the alert after the event.
func (d *Detector) FirstToken(t, ttft float64) bool {
	x := t - d.origin
	d.finished.push(point{x, ttft}, d.cfg.MaximumWindowRatio)
	if ttft > d.cfg.MinimumTTFT {
		d.violations++
	}
	d.ttft.Add(x, ttft)
	for d.finished.n > d.finished.limit {
		d.popFinished()
	}
	return d.Observe(t)
}

// End records a request leaving at time t (s), finished, rejected or
// cancelled: the count of requests in flight goes down by one. It returns
// the alert after the event.
func (d *Detector) End(t float64) bool {
	if d.inFlight > 0 {
		d.inFlight--
	}
	return d.Observe(t)
}

// Observe moves the detector's clock to t (s), prunes both windows and
// re-evaluates the alert, without adding a point (guidellm evaluates on
// every request update). It returns the alert.
func (d *Detector) Observe(t float64) bool {
	dur := t - d.origin
	d.duration = dur
	// The windows' age pruning (setDuration), skipped when neither front
	// is too old.
	if w := d.cfg.MaximumWindowSeconds; dur-d.finished.frontX > w || dur-d.started.frontX > w {
		d.setDuration(dur)
	}
	d.evaluated++
	// check's first test, the one that settles most events, inline.
	if dur < d.cfg.MinimumDuration || d.ttft.n > 2*d.violations {
		d.alert = false
		return false
	}
	return d.evaluate(t)
}

// evaluate runs check and records the alert, the first one at t (s).
func (d *Detector) evaluate(t float64) bool {
	d.alert = d.check()
	if d.alert && !d.fired {
		d.fired, d.firedAt = true, t
	}
	return d.alert
}

// setDuration prunes the windows as guidellm's _update_duration does: to
// MaximumWindowRatio of all points ever seen (truncated), then by age. The
// ratio limit changes only when a point is added, so the ratio pruning is
// done right there (push's callers); here only the limit set at the last
// push applies, which gives the same windows: a point beyond the limit
// stays beyond it, and one too old stays too old.
func (d *Detector) setDuration(dur float64) {
	d.duration = dur
	w := d.cfg.MaximumWindowSeconds
	for dur-d.finished.frontX > w {
		d.popFinished()
	}
	for dur-d.started.frontX > w {
		p := d.started.pop()
		d.conc.Remove(p.x, p.y)
	}
}

func (d *Detector) popFinished() {
	p := d.finished.pop()
	if p.y > d.cfg.MinimumTTFT {
		d.violations--
	}
	d.ttft.Remove(p.x, p.y)
}

// check is guidellm's _check_alert.
func (d *Detector) check() bool {
	if d.duration < d.cfg.MinimumDuration || d.ttft.n > 2*d.violations {
		return false
	}
	concN := min(d.duration, float64(d.conc.n))
	ttftN := min(d.duration, float64(d.ttft.n))
	minWin := float64(d.cfg.MinimumWindowSize)
	if d.duration < d.cfg.MinimumTTFT || concN < minWin {
		return false
	}
	concUp := d.conc.Check(concN)
	if ttftN < minWin {
		return concUp
	}
	ttftUp := d.ttft.Check(ttftN)
	return concUp && ttftUp
}

// Alert reports the alert at the last event (in monitor mode it may clear
// again when the load recovers).
func (d *Detector) Alert() bool { return d.alert }

// Fired reports whether the alert was ever raised and, if so, the time t
// (s, the caller's clock) of the first event that raised it.
func (d *Detector) Fired() (bool, float64) { return d.fired, d.firedAt }

// InFlight is the detector's count of requests in flight (Start minus End).
func (d *Detector) InFlight() int { return d.inFlight }

// State is a snapshot of a detector, the fields of guidellm's metadata.
type State struct {
	// DurationS is the seconds since the origin at the last event.
	DurationS float64 `json:"duration_s"`
	// ConcurrencyN and TTFTN are the points in each window.
	ConcurrencyN int `json:"concurrency_n"`
	TTFTN        int `json:"ttft_n"`
	// TTFTViolations is the number of TTFTs in the window above MinimumTTFT.
	TTFTViolations int `json:"ttft_violations"`
	// ConcurrencySlope (requests/s) and TTFTSlope (s/s) with their relative
	// margins of error, from the last evaluation that estimated them; the
	// *Estimated fields are false before the first such evaluation.
	ConcurrencySlope     float64 `json:"concurrency_slope"`
	ConcurrencyMOE       float64 `json:"concurrency_moe"`
	ConcurrencyEstimated bool    `json:"concurrency_estimated"`
	TTFTSlope            float64 `json:"ttft_slope"`
	TTFTMOE              float64 `json:"ttft_moe"`
	TTFTEstimated        bool    `json:"ttft_estimated"`
	// Alert is the alert at the last event.
	Alert bool `json:"alert"`
	// Evaluations counts the events evaluated.
	Evaluations int64 `json:"evaluations"`
}

// State returns the detector's current snapshot.
func (d *Detector) State() State {
	cs, cm, ce := d.conc.Last()
	ts, tm, te := d.ttft.Last()
	return State{
		DurationS: d.duration, ConcurrencyN: d.conc.N(), TTFTN: d.ttft.N(),
		TTFTViolations:   d.violations,
		ConcurrencySlope: cs, ConcurrencyMOE: cm, ConcurrencyEstimated: ce,
		TTFTSlope: ts, TTFTMOE: tm, TTFTEstimated: te,
		Alert: d.alert, Evaluations: d.evaluated,
	}
}
