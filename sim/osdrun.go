package sim

import (
	"github.com/fleetsim/fleetsim/engine"
	"github.com/fleetsim/fleetsim/sim/osd"
)

// fleetName names the fleet-wide detector in verdicts.
const fleetName = "fleet"

// OSD modes (Config.OSD.Mode).
const (
	OSDMonitor = "monitor" // run the detectors and report them (the default)
	OSDEnforce = "enforce" // stop the run at the first detection
	OSDOff     = "off"     // no detector
)

// OSDConfig selects the over-saturation detector (package sim/osd, guidellm's
// algorithm): one per pool and one for the fleet, in simulated time.
type OSDConfig struct {
	// Mode is "monitor" (the default when empty), "enforce" or "off".
	Mode string `json:"mode,omitempty" yaml:"mode,omitempty"`
	// Params, when set, replaces guidellm's defaults (osd.DefaultConfig).
	Params *osd.Config `json:"params,omitempty" yaml:"params,omitempty"`
}

func (c OSDConfig) validate() error {
	if _, err := osd.ParseMode(c.Mode); err != nil {
		return bad("osd.mode", c.Mode, "allowed: monitor, enforce, off")
	}
	if c.Params != nil {
		if err := c.Params.Validate(); err != nil {
			pe := err.(*osd.ParamError)
			return bad("osd.params."+pe.Field, pe.Value, "%s", pe.Allowed)
		}
	}
	return nil
}

// OSDVerdict is one detector's outcome in a Summary.
type OSDVerdict struct {
	// Mode is the run's OSD mode ("monitor" or "enforce").
	Mode string `json:"mode"`
	// Fired tells whether the alert was ever raised; FiredAtS is the
	// simulated time of the first event that raised it, s (null when not
	// fired).
	Fired    bool     `json:"fired"`
	FiredAtS *float64 `json:"fired_at_s"`
	// Final is the detector's state at the end of the run.
	Final osd.State `json:"final"`
}

// OSDStop tells that an enforce-mode detector stopped the run.
type OSDStop struct {
	// By names the detector: a pool's name or "fleet".
	By string `json:"by"`
	// DetectedAtS is when the alert was raised and StoppedAtS the simulated
	// time the run stopped (the same, or the end of the step that raised
	// it), s. Requests still in flight then are counted in in_flight and
	// have no record.
	DetectedAtS float64 `json:"detected_at_s"`
	StoppedAtS  float64 `json:"stopped_at_s"`
}

// osdFeed drives the detectors from the fleet's events in time order.
// Starts (at a pool's delivery, at the fleet's arrival) happen at the
// fleet's current time; ends at a record's time, emitted in time order; the
// engines report first tokens as they run their iterations, which may be
// ahead of the fleet's time, so those wait in a heap and are fed once the
// fleet has stepped to them (flush), before any later end.
type osdFeed struct {
	enforce bool
	pools   []*osd.Detector // by pool order
	fleet   *osd.Detector
	// w, in monitor mode from the first arrival until the run ends, runs the
	// detectors on a goroutine of their own (osdasync.go); pools and fleet
	// are nil meanwhile.
	w   *osdWorker
	evs []osdEv // the events of w's batch being filled (w.cur's until it is handed over)
	// mergeN, when equal to len(evs), says that evs' last event is a
	// flush or a flush and the fleet's start (mergeKind) at mergeT, which
	// osdAsyncStart may extend (every event added makes evs longer, a
	// handover sets mergeN to 0).
	mergeN    int
	mergeKind uint8
	mergeT    float64
	sync      bool // monitor mode without the worker (tests compare the two)
	first     firstQueue
	started   bool // origin set (first arrival)
	lastT     float64
	// backwards counts events fed earlier than the one before (tests check
	// that it stays 0: the detectors see the fleet's events in time order).
	backwards int
	waits     int // times the simulation waited for a batch back (handover.go)

	halted      bool
	haltBy      string
	detectedAt  float64
	haltedAtNow float64
}

// firstEv is a pending first token: time, the order it was reported in
// (ties), pool and TTFT.
type firstEv struct {
	t, ttft float64
	seq     uint64
	pool    int32
}

func firstLess(a, b *firstEv) bool { return a.t < b.t || (a.t == b.t && a.seq < b.seq) }

// firstQueue holds the pending first tokens and gives them back in (time,
// arrival) order, firstLess's. The engines report most of them in order or
// a few places out of it (a request's first token comes when its engine
// runs the iteration, engines ahead of each other by less than an
// iteration), so the queue is a sorted ring buffer (run) into which a new
// token moves back past at most firstMaxShift later ones; a token that would
// move further goes to a heap (rest), which stays empty in most runs. The
// next token is the smaller of the two fronts. Ties in time go by the
// order reported (seq), as in one heap: the order is the same whatever the split.
type firstQueue struct {
	run     []firstEv // sorted by firstLess; len a power of two (or 0)
	head, n int
	rest    firstHeap
	seq     uint64
}

// firstMaxShift is the most pending tokens a new one moves back past in
// the sorted run; measured on the benchmark fleets (Azure 1,000 req/s on
// 43 + 131 instances; agent-heavy on 229 + 2,037), a token moves 1.4 to 3.7
// places back on average.
const firstMaxShift = 16

// pushToken adds the first token at engine time t of a request that arrived
// at arr (engine time) in pool pool.
func (q *firstQueue) pushToken(t, arr engine.Time, pool int32) {
	q.seq++
	e := firstEv{t: t.Seconds(), ttft: (t - arr).Seconds(), seq: q.seq, pool: pool}
	if q.n == len(q.run) {
		q.grow()
	}
	mask := len(q.run) - 1
	end := q.head + q.n // where e goes if no token is later
	i := end
	for i > q.head && q.run[(i-1)&mask].t > e.t {
		if end-i == firstMaxShift {
			q.rest.push(e)
			return
		}
		i--
	}
	for k := end; k > i; k-- {
		q.run[k&mask] = q.run[(k-1)&mask]
	}
	q.run[i&mask] = e
	q.n++
}

// grow doubles the run's buffer (16 tokens at first), its front first.
func (q *firstQueue) grow() {
	nb := make([]firstEv, max(16, 2*len(q.run)))
	k := copy(nb, q.run[q.head:])
	copy(nb[k:], q.run[:q.head])
	q.run, q.head = nb, 0
}

// next removes and returns the first pending token if its time is at or
// before t (s); ok is false when there is none.
func (q *firstQueue) next(t float64) (e firstEv, ok bool) {
	if q.n > 0 && (len(q.rest) == 0 || firstLess(&q.run[q.head], &q.rest[0])) {
		if e = q.run[q.head]; !(e.t <= t) { // as the heap's test: a NaN t gives none
			return e, false
		}
		q.head = (q.head + 1) & (len(q.run) - 1)
		q.n--
		return e, true
	}
	if len(q.rest) == 0 || !(q.rest[0].t <= t) {
		return e, false
	}
	return q.rest.pop(), true
}

// firstHeap is a binary min-heap of tokens under firstLess.
type firstHeap []firstEv

// push and pop sift by hand (firstLess inlined): the generic
// siftUp/siftDown call less through a function value.
func (h *firstHeap) push(e firstEv) {
	*h = append(*h, e)
	s := *h
	k := len(s) - 1
	for k > 0 {
		p := (k - 1) / 2
		if !firstLess(&e, &s[p]) {
			break
		}
		s[k] = s[p]
		k = p
	}
	s[k] = e
}

func (h *firstHeap) pop() firstEv {
	s := *h
	top := s[0]
	n := len(s) - 1
	x := s[n]
	s = s[:n]
	*h = s
	if n == 0 {
		return top
	}
	k := 0
	for {
		c := 2*k + 1
		if c >= n {
			break
		}
		if c+1 < n && firstLess(&s[c+1], &s[c]) {
			c++
		}
		if !firstLess(&s[c], &x) {
			break
		}
		s[k] = s[c]
		k = c
	}
	s[k] = x
	return top
}

// newOSDFeed returns the feed for cfg, or nil when the mode is off.
func newOSDFeed(cfg OSDConfig, npools int) *osdFeed {
	mode, _ := osd.ParseMode(cfg.Mode)
	if mode == osd.Off {
		return nil
	}
	return &osdFeed{enforce: mode == osd.Enforce, pools: make([]*osd.Detector, npools)}
}

func (f *fleet) osdParams() osd.Config {
	if f.cfg.OSD.Params != nil {
		return *f.cfg.OSD.Params
	}
	return osd.DefaultConfig()
}

// osdArrive feeds the fleet detector a start at the arrival time t; the
// first arrival sets every detector's origin (guidellm's start time).
// Here and in the other feeds the worker's path comes first; the
// synchronous one (enforce mode, the first arrival, tests) is out of line.
func (f *fleet) osdArrive(t float64) {
	if f.osd.w != nil {
		f.osdAsyncStart(t, -1)
		return
	}
	f.osdArriveSync(t)
}

func (f *fleet) osdArriveSync(t float64) {
	o := f.osd
	if !o.started {
		o.started = true
		p := f.osdParams()
		if !o.enforce && !o.sync {
			o.w = newOSDWorker(p, len(o.pools))
			o.evs = o.w.cur.evs
			f.osdAsyncAdd(osdEv{kind: evOrigin, t: t})
			f.osdAsyncStart(t, -1)
			return
		}
		o.fleet = osd.New(p, t)
		for i := range o.pools {
			o.pools[i] = osd.New(p, t)
		}
	}
	f.osdEvent(osdEv{kind: evStart, t: t, det: -1})
}

// osdEvent feeds e to its detector at once (osdCheck then sees the alert);
// not in monitor mode's worker phase.
func (f *fleet) osdEvent(e osdEv) {
	o := f.osd
	d, name := o.fleet, fleetName
	if e.det >= 0 {
		d, name = o.pools[e.det], f.pools[e.det].cfg.Name
	}
	f.osdCheck(osdApply(d, &e), e.t, name)
}

// osdStart feeds the start of a request delivered to pool p at time t.
func (f *fleet) osdStart(p *pool, t float64) {
	if f.osd.w != nil {
		f.osdAsyncStart(t, int32(p.order))
		return
	}
	f.osdEvent(osdEv{kind: evStart, t: t, det: int32(p.order)})
}

// osdFirstToken is the engines' first-token hook.
// The TTFT is computed as the record's ttft_s is: a difference of engine
// times (the arrival rounded to a picosecond as the engines saw it).
// In monitor mode the worker keeps the pending first tokens and flushes
// them at the same points (osdasync.go).
func (f *fleet) osdFirstToken(j engine.Job, t engine.Time) {
	fl := f.flights.of(&j)
	if f.osd.w != nil {
		f.osdAsyncAdd(tokenEv(t, fl.arrivalPS, fl.pool.order))
		return
	}
	f.osd.first.pushToken(t, fl.arrivalPS, int32(fl.pool.order))
}

// osdFlush feeds the pending first tokens at or before t.
func (f *fleet) osdFlush(t float64) {
	if o := f.osd; o.w != nil {
		f.osdAsyncAdd(osdEv{kind: evFlush, t: t})
		o.mergeN, o.mergeKind, o.mergeT = len(o.evs), evFlush, t
		return
	}
	f.osdFlushSync(t)
}

func (f *fleet) osdFlushSync(t float64) {
	for {
		e, ok := f.osd.first.next(t)
		if !ok {
			return
		}
		f.osdEvent(osdEv{kind: evFirst, t: e.t, v: e.ttft, det: e.pool})
		f.osdEvent(osdEv{kind: evFirst, t: e.t, v: e.ttft, det: -1})
	}
}

// osdEnd feeds the end of a request in pool p at time t, and in the fleet
// too when it leaves the fleet.
func (f *fleet) osdEnd(p *pool, t float64, leavesFleet bool) {
	if f.osd.w != nil { // the worker flushes at every end
		kind := evEnd
		if leavesFleet { // one event for both ends (the second end's flush would find nothing)
			kind = evEndBoth
		}
		f.osdAsyncAdd(osdEv{kind: kind, t: t, det: int32(p.order)})
		return
	}
	f.osdFlushSync(t)
	f.osdEvent(osdEv{kind: evEnd, t: t, det: int32(p.order)})
	if leavesFleet {
		f.osdEvent(osdEv{kind: evEnd, t: t, det: -1})
	}
}

// osdAlert is the osd_alert column of time-series row i (pool i, or the
// fleet for i = len(f.pools)): -1 without detectors, else 0 or 1, the
// detector's alert now. In monitor mode the worker sets it later (0 here;
// osdMarkSample).
func (f *fleet) osdAlert(i int) int8 {
	o := f.osd
	switch {
	case o == nil:
		return -1
	case !o.started || o.w != nil:
		return 0
	}
	d := o.fleet
	if i < len(f.pools) {
		d = o.pools[i]
	}
	if d.Alert() {
		return 1
	}
	return 0
}

// osdCheck halts the run at the first alert in enforce mode.
func (f *fleet) osdCheck(alert bool, t float64, by string) {
	o := f.osd
	if t < o.lastT {
		o.backwards++
	}
	o.lastT = t
	if !alert || !o.enforce {
		return
	}
	// The first alert stops the run; a pool's alert at the same instant as
	// the fleet's names the pool (the more specific verdict).
	if !o.halted || (o.haltBy == fleetName && by != fleetName && t == o.detectedAt) {
		o.halted, o.haltBy, o.detectedAt = true, by, t
	}
}

// osdVerdict returns detector d's verdict (nil d: the run ended before the
// first arrival).
func (f *fleet) osdVerdict(d *osd.Detector) OSDVerdict {
	v := OSDVerdict{Mode: OSDMonitor}
	if f.osd.enforce {
		v.Mode = OSDEnforce
	}
	if d == nil {
		return v
	}
	fired, at := d.Fired()
	v.Fired, v.Final = fired, d.State()
	if fired {
		v.FiredAtS = &at
	}
	return v
}

// halted reports whether an enforce-mode detector stopped the run.
func (f *fleet) halted() bool { return f.osd != nil && f.osd.halted }

// endHalted closes a run an enforce-mode detector stopped: no drain (the
// requests in flight stay in flight), the measurement window ends now.
func (f *fleet) endHalted() {
	f.osd.haltedAtNow = f.now
	f.srcDone = true
	if f.winStarted && !f.winEnded {
		f.t1, f.winEnded = f.now, true
		f.snapshot(f.now, true)
	}
}
