package osd

import "math"

// refDetector is the Detector as it was before its fast paths (commit
// e0b03de: one setDuration and one check call per event, windows whose
// emptiness is tested by count), kept as the oracle of
// TestDetectorSameAsReference: the fast paths must leave every result bit
// for bit as it was.
type refDetector struct {
	cfg      Config
	origin   float64
	duration float64
	inFlight int

	started, finished refWindow
	violations        int
	conc, ttft        refSlope

	alert     bool
	fired     bool
	firedAt   float64
	evaluated int64
}

type refWindow struct {
	buf   []point
	head  int
	n     int
	total int
	limit int
}

func (w *refWindow) push(p point, ratio float64) {
	if w.n == len(w.buf) {
		nb := make([]point, max(64, 2*len(w.buf)))
		k := copy(nb, w.buf[w.head:])
		copy(nb[k:], w.buf[:w.head])
		w.buf, w.head = nb, 0
	}
	w.buf[(w.head+w.n)&(len(w.buf)-1)] = p
	w.n++
	w.total++
	w.limit = int(float64(w.total) * ratio)
}

func (w *refWindow) front() point { return w.buf[w.head] }

func (w *refWindow) pop() point {
	p := w.buf[w.head]
	w.head = (w.head + 1) & (len(w.buf) - 1)
	w.n--
	return p
}

type refSlope struct {
	n                               int
	sumX, sumY, sumXY, sumX2, sumY2 float64
	moeThreshold, eps, z            float64
	estimated                       bool
	value, moe                      float64
}

func (s *refSlope) add(x, y float64) {
	s.n++
	s.sumX += x
	s.sumY += y
	s.sumXY += x * y
	s.sumX2 += x * x
	s.sumY2 += y * y
}

func (s *refSlope) remove(x, y float64) {
	s.n--
	s.sumX -= x
	s.sumY -= y
	s.sumXY -= x * y
	s.sumX2 -= x * x
	s.sumY2 -= y * y
}

func (s *refSlope) check(effectiveN float64) bool {
	if effectiveN < minSlopeN {
		return false
	}
	n := float64(s.n)
	sxx := s.sumX2 - s.sumX*s.sumX/n
	sxy := s.sumXY - s.sumX*s.sumY/n
	syy := s.sumY2 - s.sumY*s.sumY/n
	sxxSafe := math.Max(sxx, s.eps)
	slope := sxy / sxxSafe
	rss := math.Max(syy-sxy*sxy/sxxSafe, 0)
	dof := effectiveN - 2
	se := math.Sqrt(rss / dof / sxxSafe)
	moe := tFromZ(s.z, dof) * se / math.Max(slope, s.eps)
	s.value, s.moe, s.estimated = slope, moe, true
	return slope > 0 && moe < s.moeThreshold
}

func newRef(cfg Config, origin float64) *refDetector {
	z := normalQuantile(1 - (1-cfg.Confidence)/2)
	return &refDetector{cfg: cfg, origin: origin,
		conc: refSlope{moeThreshold: cfg.MOEThreshold, eps: cfg.Eps, z: z},
		ttft: refSlope{moeThreshold: cfg.MOEThreshold, eps: cfg.Eps, z: z}}
}

func (d *refDetector) start(t float64) bool {
	d.inFlight++
	return d.startWith(t, d.inFlight)
}

func (d *refDetector) startWith(t float64, inFlight int) bool {
	x := t - d.origin
	d.started.push(point{x, float64(inFlight)}, d.cfg.MaximumWindowRatio)
	d.conc.add(x, float64(inFlight))
	for d.started.n > d.started.limit {
		p := d.started.pop()
		d.conc.remove(p.x, p.y)
	}
	return d.observe(t)
}

func (d *refDetector) firstToken(t, ttft float64) bool {
	x := t - d.origin
	d.finished.push(point{x, ttft}, d.cfg.MaximumWindowRatio)
	if ttft > d.cfg.MinimumTTFT {
		d.violations++
	}
	d.ttft.add(x, ttft)
	for d.finished.n > d.finished.limit {
		d.popFinished()
	}
	return d.observe(t)
}

func (d *refDetector) end(t float64) bool {
	if d.inFlight > 0 {
		d.inFlight--
	}
	return d.observe(t)
}

func (d *refDetector) observe(t float64) bool {
	d.setDuration(t - d.origin)
	d.alert = d.check()
	d.evaluated++
	if d.alert && !d.fired {
		d.fired, d.firedAt = true, t
	}
	return d.alert
}

func (d *refDetector) setDuration(dur float64) {
	d.duration = dur
	w := d.cfg.MaximumWindowSeconds
	for d.finished.n > 0 && dur-d.finished.front().x > w {
		d.popFinished()
	}
	for d.started.n > 0 && dur-d.started.front().x > w {
		p := d.started.pop()
		d.conc.remove(p.x, p.y)
	}
}

func (d *refDetector) popFinished() {
	p := d.finished.pop()
	if p.y > d.cfg.MinimumTTFT {
		d.violations--
	}
	d.ttft.remove(p.x, p.y)
}

func (d *refDetector) check() bool {
	if d.duration < d.cfg.MinimumDuration || d.ttft.n > 2*d.violations {
		return false
	}
	concN := min(d.duration, float64(d.conc.n))
	ttftN := min(d.duration, float64(d.ttft.n))
	minWin := float64(d.cfg.MinimumWindowSize)
	if d.duration < d.cfg.MinimumTTFT || concN < minWin {
		return false
	}
	concUp := d.conc.check(concN)
	if ttftN < minWin {
		return concUp
	}
	ttftUp := d.ttft.check(ttftN)
	return concUp && ttftUp
}

func (d *refDetector) state() State {
	return State{
		DurationS: d.duration, ConcurrencyN: d.conc.n, TTFTN: d.ttft.n,
		TTFTViolations:   d.violations,
		ConcurrencySlope: d.conc.value, ConcurrencyMOE: d.conc.moe, ConcurrencyEstimated: d.conc.estimated,
		TTFTSlope: d.ttft.value, TTFTMOE: d.ttft.moe, TTFTEstimated: d.ttft.estimated,
		Alert: d.alert, Evaluations: d.evaluated,
	}
}
