package sim

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/fschuetz04/simgo"

	"github.com/fleetsim/fleetsim/engine"
	"github.com/fleetsim/fleetsim/router"
	"github.com/fleetsim/fleetsim/sim/osd"
	"github.com/fleetsim/fleetsim/workload"
)

// Options tune a run without changing its results.
type Options struct {
	// Progress, when set, is called now and then with the number of
	// requests that have arrived so far.
	Progress func(arrived int64)
	// Stop, when set, is polled at every arrival and sampling tick, and
	// every stopPollEvery engine events or records in between (the drain of
	// an overloaded pool included); once it returns true the run ends with
	// ErrStopped (an interrupted run). It must be cheap (an atomic load) and
	// safe to call from the goroutine running Run.
	Stop func() bool
	// Series, when its Sink is set, records the run's time series
	// (timeseries.go); it does not change the run.
	Series SeriesOptions
	// OnDecision, when set, is called at every control tick of an
	// autoscaled run (scaling.go) with what the controller saw and did.
	OnDecision func(Decision)
}

// ErrStopped is returned by Run when Options.Stop asked it to end.
var ErrStopped = errors.New("sim: run stopped")

// progressEvery is the number of arrivals between Progress calls.
const progressEvery = 1 << 16

// stopPollEvery is the number of engine events (pool advances) or emitted
// records between two polls of Options.Stop outside arrivals and ticks: at
// a few million events per second it answers within a few milliseconds.
const stopPollEvery = 1 << 12

// Run simulates cfg's fleet on the requests of src, writing one Record per
// request to sink (which may be nil) in completion order, and returns the
// run's summary. cfg must be valid (Config.Validate).
//
// The fleet model (dispatch, the order of same-time events, warm-up and the
// metrics' definitions) is described in docs/fleet.md. Run is deterministic:
// the same cfg and the same request stream give the same records in the same
// order. Work that does not decide the run may run on goroutines beside it,
// fed in order, all ended when Run returns: in monitor mode (the default)
// the over-saturation detectors (osdasync.go); the source read ahead when it
// is a workload.SelfContained source of readAheadMin requests or more
// (readahead.go); the records built, counted and written when sink is a
// ConcurrentSink or nil (records.go, recwriter.go).
func Run(cfg Config, src workload.Source, sink Sink, opts Options) (*Summary, error) {
	f, err := newFleet(cfg, src, sink, opts)
	if err != nil {
		return nil, err
	}
	err = f.run()
	// The record writer has ended (run stops it): its error, or panic,
	// came first (recwriter.go).
	if werr := f.rw.result(); werr != nil {
		return nil, werr
	}
	if err != nil {
		return nil, err
	}
	if f.seriesClose(); f.err != nil {
		return nil, f.err
	}
	return f.summary(), nil
}

// flight is the simulator's state of one request in the fleet.
//
// Its layout serves the record side (records.go, setServed), which reads a
// flight long after its arrival, from memory: 192 bytes (a size class of
// whole 64-byte cache lines, so a flight starts on one), the fields it reads
// in the first line, the request (whose ID the pending heap reads first) in
// the second, the rest in the third (TestFlightLayout).
type flight struct {
	pool         *pool
	arrivalPS    engine.Time // engine.Seconds(fleetArrival), converted once
	instance     int
	estimated    int
	retries      int
	dg           *dgFlight // its prefill, in a disaggregated pool (disagg.go)
	tag          int       // index in the fleet's flight table (flights.of)
	warmup       bool
	compressed   bool
	req          workload.Request // as it arrived (never modified)
	job          engine.Job       // as served: In is the prompt after compression; Tag is tag
	fleetArrival float64
	_            [24]byte // up to 192 bytes
}

// flights is the fleet's table of flights, indexed by their tag: the
// engine.Job of a flight carries its tag, so a result leads back to its
// flight. Flights are recycled (keeping their tag) once their record is
// written, or once they are packed into a pool's central queue (waitQueue);
// by then no engine holds their job.
type flights struct {
	all  []*flight // by tag
	free []*flight
}

// of returns the flight of an engine job.
func (t *flights) of(j *engine.Job) *flight { return t.all[j.Tag] }

// alloc returns a zeroed flight (its tag kept).
func (t *flights) alloc() *flight {
	if n := len(t.free); n > 0 {
		fl := t.free[n-1]
		t.free = t.free[:n-1]
		*fl = flight{tag: fl.tag}
		return fl
	}
	fl := &flight{tag: len(t.all)}
	t.all = append(t.all, fl)
	return fl
}

// release recycles fl.
func (t *flights) release(fl *flight) { t.free = append(t.free, fl) }

// live is the number of flights in use.
func (t *flights) live() int { return len(t.all) - len(t.free) }

// fleet is the state of one run.
type fleet struct {
	cfg   Config
	src   workload.Source
	sink  Sink
	opts  Options
	sim   *simgo.Simulation
	rt    router.Router
	pools []*pool // Config.Pools order
	rank  []*pool // router order: MaxContext ascending (stable)
	loads []router.Load
	// rtLen is rt when it is the length router, which reads no load and
	// learns nothing: route skips both and calls it directly; nil otherwise.
	rtLen *router.Length

	now      float64
	done     []engine.Result // scratch: results from the last advance
	pend     pendHeap        // finished, not yet emitted (Finished > now)
	flights  flights         // every flight allocated, by tag
	err      error
	tick     float64 // sampling interval, s
	nextTick float64 // time of the pending tick event, +Inf when none
	nextArr  float64 // time of the arrival pending on the calendar
	ticks    int64   // sampling ticks run

	arrived int64 // arrivals so far
	nWarm   int64 // arrivals flagged warm-up
	lastArr float64
	srcDone bool
	due     dueHeap // times of the pending delayed deliveries (compression, retries)
	pollIn  int     // events left before the next poll of Options.Stop (pollStop)
	// calendarOnly sends every arrival through the calendar (tests check
	// that the shortcut in onArrival changes nothing).
	calendarOnly bool
	winStarted   bool
	winEnded     bool
	t0, t1       float64
	t0ps, t1ps   engine.Time // t0, t1 in engine time (completions are compared in it)
	nReq         int64       // the requests the source yields (Sized), else Workload.Requests

	fm acc // fleet metrics

	osd *osdFeed   // over-saturation detectors; nil when off
	ts  *series    // time series recorder; nil when off
	sc  *scaler    // autoscaling and adaptive B_short (scaling.go); nil when off
	ra  *readAhead // the source read ahead (readahead.go); nil: read directly

	// The record side (records.go), owned by rw while it runs: written by
	// rw's goroutine, so kept off the cache lines of the fields around it,
	// which this goroutine reads on every event.
	_   cacheLinePad
	rs  recSide
	_   cacheLinePad
	rw  *recWriter // the record side's goroutine (recwriter.go); nil: run in place
	ent recEntry   // the entry handed to the record side run in place
}

func newFleet(cfg Config, src workload.Source, sink Sink, opts Options) (*fleet, error) {
	if src == nil {
		return nil, fmt.Errorf("sim: source is nil")
	}
	if len(cfg.Pools) == 0 {
		return nil, fmt.Errorf("pools: none configured (at least one pool is required)")
	}
	if w := cfg.WarmupFraction; math.IsNaN(w) || w < 0 || w >= 1 {
		return nil, fmt.Errorf("warmup_fraction %v: must be in [0, 1)", w)
	}
	if d := cfg.Router.RetryDelayS; math.IsNaN(d) || d < 0 || math.IsInf(d, 0) {
		return nil, fmt.Errorf("router.retry_delay_s %v: must be a finite number >= 0", d)
	}
	f := &fleet{cfg: cfg, src: src, sink: sink, opts: opts, fm: newAcc(), nextTick: math.Inf(1)}
	f.rs = recSide{sink: sink, slo: cfg.SLO, fm: &f.fm}
	for i, pc := range cfg.Pools {
		p, err := newPoolOrDisagg(pc, i, pc.TimingOf(cfg.Timing), &f.flights) // disagg.go
		if err != nil {
			return nil, err
		}
		if opts.Stop != nil {
			p.stop = f.pollStop
		}
		f.pools = append(f.pools, p)
	}
	if f.osd = newOSDFeed(cfg.OSD, len(f.pools)); f.osd != nil {
		for _, p := range f.pools {
			for _, e := range p.eng {
				e.OnFirstToken(f.osdFirstToken)
			}
		}
	}
	ts, err := newSeries(opts.Series, f.pools)
	if err != nil {
		return nil, err
	}
	f.ts = ts
	f.rank = append([]*pool(nil), f.pools...)
	sort.SliceStable(f.rank, func(a, b int) bool { return f.rank[a].cfg.MaxContext < f.rank[b].cfg.MaxContext })
	rp := make([]router.Pool, len(f.rank))
	for i, p := range f.rank {
		p.rank = i
		rp[i] = router.Pool{Name: p.cfg.Name, MaxContext: p.cfg.MaxContext, GPUs: p.cfg.Count, Slots: p.ecfg.MaxSeqs}
	}
	rt, err := newRouter(cfg.Router, rp, cfg.Seed)
	if err != nil {
		return nil, err
	}
	f.rt = rt
	f.rtLen, _ = rt.(*router.Length)
	if err := f.newScaler(); err != nil { // scaling.go
		return nil, err
	}
	f.loads = make([]router.Load, len(f.rank))
	// Warm-up is a fraction of the arrivals the source really yields (a
	// trace may hold fewer rows than Workload.Requests).
	n := int64(cfg.Workload.Requests)
	if sz, ok := src.(workload.Sized); ok {
		n = sz.Len()
	}
	f.nReq = n
	if n > 0 {
		f.nWarm = int64(math.Floor(cfg.WarmupFraction * float64(n)))
	}
	// Sampling ticks: every second, or 1/200 of the expected arrival span
	// when that is shorter, so that short runs still get enough samples.
	f.tick = 1
	if cfg.Workload.Rate > 0 && n > 0 {
		f.tick = min(1, float64(n)/cfg.Workload.Rate/200)
	}
	return f, nil
}

func (f *fleet) alloc() *flight { return f.flights.alloc() }

func (f *fleet) release(fl *flight) { f.flights.release(fl) }

func (f *fleet) fail(err error) {
	if f.err == nil {
		f.err = err
	}
}

// at schedules h on the calendar at absolute time t (>= the calendar's now).
func (f *fleet) at(t float64, h func()) {
	d := t - f.sim.Now()
	if d < 0 || math.IsNaN(d) {
		d = 0
	}
	f.sim.Timeout(d).AddHandler(func(*simgo.Event) {
		if f.err == nil && !f.halted() {
			h()
		}
	})
}

func (f *fleet) run() error {
	if handoverTap != nil {
		defer f.tapHandovers() // handover.go: after the joins below
	}
	defer f.osdJoin() // osdasync.go
	if f.ra = newReadAhead(f.src); f.ra != nil {
		defer f.ra.stop()
		f.src = f.ra // the same requests and error, read ahead
	}
	if f.recordsApart() {
		f.rw = newRecWriter(&f.rs)
		defer f.rw.stop()
	}
	f.sim = simgo.NewSimulation()
	fl := f.alloc()
	if f.pull(fl, math.Inf(-1)) {
		f.scheduleArrival(fl)
		f.nextTick = f.tick
		f.at(f.nextTick, f.onTick)
		f.startScaling() // scaling.go
	}
	if f.err != nil {
		return f.err
	}
	f.sim.Run()
	if f.err != nil {
		return f.err
	}
	if f.halted() {
		f.endHalted()
		return nil
	}
	// Drain: every instance runs to completion (stepped by the time
	// series' intervals first when one is recorded).
	if f.seriesDrain(); !f.halted() {
		f.drain()
	}
	if f.err != nil {
		return f.err
	}
	if f.halted() { // an enforce-mode detector fired during the drain
		f.endHalted()
		return nil
	}
	n := f.flights.live()
	for _, p := range f.pools {
		n += p.packed()
	}
	if n > 0 {
		// Engines do not run iterations that could end past their time
		// range (engine.Time, docs/model.md "Time"); such work is left.
		return fmt.Errorf("%d requests unfinished: their work runs past the simulator's time range (2^63 ps, about 106 days); shorten the workload or add capacity", n)
	}
	if f.opts.Progress != nil {
		f.opts.Progress(f.arrived)
	}
	return nil
}

// pull reads the next request into fl, checking it. It returns false at the
// end of the stream or on error (f.err set).
func (f *fleet) pull(fl *flight, prev float64) bool {
	if !f.src.Next(&fl.req) {
		f.release(fl)
		if err := f.src.Err(); err != nil {
			f.fail(fmt.Errorf("workload: %w", err))
		}
		return false
	}
	r := &fl.req
	switch {
	case math.IsNaN(r.Arrival) || math.IsInf(r.Arrival, 0) || r.Arrival < 0:
		f.fail(fmt.Errorf("request %d: arrival %v s: must be a finite time >= 0", r.ID, r.Arrival))
	case r.Arrival < prev:
		f.fail(fmt.Errorf("request %d: arrival %v s is before the previous arrival %v s: sources must yield requests in arrival order", r.ID, r.Arrival, prev))
	case r.Arrival > MaxArrivalS:
		f.fail(fmt.Errorf("request %d: arrival %v s: beyond the simulator's time range (at most %.6g s, about 53 days)", r.ID, r.Arrival, MaxArrivalS))
	case r.InputTokens < 0:
		f.fail(fmt.Errorf("request %d: input_tokens %d: must be >= 0", r.ID, r.InputTokens))
	case r.OutputTokens < 1:
		f.fail(fmt.Errorf("request %d: output_tokens %d: must be >= 1", r.ID, r.OutputTokens))
	}
	if f.err != nil {
		f.release(fl)
		return false
	}
	fl.job = engine.Job{In: r.InputTokens, Out: r.OutputTokens, Tag: fl.tag}
	fl.fleetArrival = r.Arrival
	fl.arrivalPS = engine.Seconds(r.Arrival)
	fl.instance = -1
	return true
}

func (f *fleet) scheduleArrival(fl *flight) {
	f.nextArr = fl.req.Arrival
	f.at(fl.req.Arrival, func() { f.onArrival(fl) })
}

// onArrival handles the arrival fl and then pulls the next one. When no other
// calendar event (tick, delayed delivery) is due at or before the next
// arrival, it is handled at once, without a calendar event: the calendar
// would have fired it next anyway, so the order of events is the same (at
// equal times the event scheduled first fires first, as in simgo).
func (f *fleet) onArrival(fl *flight) {
	for {
		if f.stopped() {
			return
		}
		prev := fl.req.Arrival
		f.arrive(fl) // fl may be released (rejected) from here on
		if f.err != nil {
			return
		}
		nx := f.alloc()
		if !f.pull(nx, prev) {
			f.endArrivals()
			return
		}
		if !f.calendarOnly && nx.req.Arrival < f.nextTick && (len(f.due) == 0 || nx.req.Arrival < f.due[0]) {
			fl = nx
			continue
		}
		f.scheduleArrival(nx)
		return
	}
}

// step brings the fleet to time t: pools advanced, finished requests up to t
// emitted in (finish time, ID) order.
func (f *fleet) step(t float64) {
	if f.ts != nil {
		f.seriesUpTo(t)
	}
	if t < f.now {
		t = f.now
	}
	f.now = t
	tp := engine.Seconds(t)
	f.advancePools(tp)
	f.emitUpTo(tp)
	if f.osd != nil && f.err == nil {
		f.osdFlush(t)
	}
}

func (f *fleet) advancePools(t engine.Time) {
	for _, p := range f.pools {
		var err error
		f.done, err = p.advanceAll(t, f.done[:0]) // disagg.go
		f.flushDone()
		if err != nil {
			f.fail(err)
			return
		}
	}
}

// flushDone moves the results of the last engine calls to the pending heap.
func (f *fleet) flushDone() {
	for i := range f.done {
		f.pend.push(&f.done[i], f.flights.of(&f.done[i].Job).req.ID)
		f.done[i].Job.Prefix, f.done[i].Reason = nil, "" // no reference kept (the rest is overwritten)
	}
	f.done = f.done[:0]
}

// drainStep is the simulated time the drain advances the pools by between
// two emissions (beyond the earliest pending event).
const drainStep = engine.Second

// drain runs every instance to completion after the last arrival and
// delayed delivery, emitting the results in (finish time, ID) order. It
// advances the pools a step of simulated time at a time and emits what has
// finished by then, so that the results and first tokens of an overloaded
// pool's backlog do not pile up in memory; the records are the same as
// advancing everything at once (pools are advanced lazily: advancing to t1
// then t2 is advancing to t2), and so are the detectors' events (first
// tokens are fed at the next record's end, as before). It stops after the
// record whose events raised an enforce-mode alert: the run ends at that
// record's finish time (the fleet's time then), and the rest stay in flight.
func (f *fleet) drain() {
	for f.err == nil {
		next := engine.Never
		for _, p := range f.pools {
			if k := p.nextKey(); k < next { // disagg.go
				next = k
			}
		}
		if next >= engine.Never-drainStep {
			break
		}
		t := next + drainStep
		f.advancePools(t)
		if f.emitDrain(t) {
			return
		}
	}
	if f.err != nil {
		return
	}
	f.now = math.Inf(1)
	f.advancePools(engine.Never) // work that cannot run stays (see run)
	f.emitDrain(engine.Never)
}

// emitDrain emits the pending results finished by t in order, stopping
// after the one whose events raised an enforce-mode alert (it then sets the
// fleet's time to that record's finish time and returns true).
func (f *fleet) emitDrain(t engine.Time) bool {
	for f.pend.len() > 0 && f.pend.next() <= t && f.err == nil && !f.pollStop() {
		r := f.pend.pop()
		f.finish(&r)
		if f.halted() {
			f.now = r.Finished.Seconds()
			return true
		}
	}
	return false
}

func (f *fleet) emitUpTo(t engine.Time) {
	for f.pend.len() > 0 && f.pend.next() <= t && f.err == nil && !f.pollStop() {
		slot := f.pend.take() // read in place (no 104-byte copy)
		f.finish(&f.pend.slab[slot])
		f.pend.release(slot)
	}
}

func (f *fleet) arrive(fl *flight) {
	t := fl.req.Arrival
	// The window opens at this arrival before the fleet steps to it, so
	// that completions at exactly T0 count as inside it.
	opens := f.arrived == f.nWarm && !f.winStarted
	if opens {
		f.t0, f.winStarted = t, true
		f.t0ps = engine.Seconds(t)
		f.windowChanged()
	}
	f.step(t)
	if f.err != nil {
		return
	}
	if opens {
		f.snapshot(t, false)
	}
	fl.warmup = f.arrived < f.nWarm
	f.arrived++
	f.lastArr = t
	if !fl.warmup {
		f.fm.arrived++
	}
	if f.ts != nil {
		f.seriesArrive(nil, fl.warmup)
	}
	if f.osd != nil {
		f.osdArrive(t)
	}
	if f.opts.Progress != nil && f.arrived%progressEvery == 0 {
		f.opts.Progress(f.arrived)
	}
	f.route(fl, t)
}

// endArrivals closes the measurement window at the last arrival.
func (f *fleet) endArrivals() {
	f.srcDone = true
	if f.winStarted && f.err == nil {
		f.t1, f.winEnded = f.lastArr, true
		f.t1ps = engine.Seconds(f.lastArr)
		f.windowChanged()
		f.snapshot(f.lastArr, true)
	}
}

// snapshot records the waiting counts at a window edge (and, at the end,
// the backlog). It reads the pools' cached state and advances nothing:
// observing the fleet must not change what it does.
func (f *fleet) snapshot(t float64, end bool) {
	waiting := 0
	for _, p := range f.pools {
		w := p.backlog()
		if end {
			p.m.backlog = int64(w)
		}
		p.m.trend.add(t, float64(w))
		waiting += w
	}
	if end {
		f.fm.backlog = int64(waiting)
	}
	f.fm.trend.add(t, float64(waiting))
}

// stopped polls Options.Stop and fails the run when it says so; it also
// reports a run halted by an enforce-mode detector.
func (f *fleet) stopped() bool {
	if f.opts.Stop != nil && f.opts.Stop() {
		f.fail(ErrStopped)
	}
	return f.err != nil || f.halted()
}

// pollStop is the inner loops' (pool advances, record emission) check for
// an interrupted run: it polls Options.Stop once every stopPollEvery calls
// and reports whether the run has failed (an enforce-mode halt is not its
// business: those loops end where they always did).
func (f *fleet) pollStop() bool {
	if f.opts.Stop == nil {
		return false
	}
	if f.pollIn--; f.pollIn > 0 {
		return f.err != nil
	}
	f.pollIn = stopPollEvery
	if f.opts.Stop() {
		f.fail(ErrStopped)
	}
	return f.err != nil
}

// idle reports whether nothing is in flight: no request running, waiting,
// delayed or finished but not yet emitted.
func (f *fleet) idle() bool {
	if len(f.due) > 0 || f.pend.len() > 0 {
		return false
	}
	for _, p := range f.pools {
		if p.running > 0 || p.waiting() > 0 || p.dg.busy() {
			return false
		}
	}
	return true
}

func (f *fleet) onTick() {
	t := f.nextTick
	f.ticks++
	if f.stopped() {
		return
	}
	f.step(t)
	if f.err != nil {
		return
	}
	if f.winStarted && !f.winEnded && t > f.t0 {
		waiting := 0
		for _, p := range f.pools {
			w := p.backlog()
			p.m.trend.add(t, float64(w))
			waiting += w
		}
		f.fm.trend.add(t, float64(waiting))
	}
	if f.srcDone {
		f.nextTick = math.Inf(1)
		return
	}
	f.nextTick = t + f.tick
	if f.nextArr > f.nextTick && f.idle() {
		// An idle gap (a trace's pause): every sample in it would read 0
		// waiting, so the ticks skip to the grid point at or after the next
		// arrival instead of stepping through it one by one.
		f.nextTick = t + math.Ceil((f.nextArr-t)/f.tick)*f.tick
	}
	f.at(f.nextTick, f.onTick)
}

func (f *fleet) route(fl *flight, t float64) {
	var d router.Decision
	if f.rtLen != nil { // reads no load; called directly (inlined)
		d = f.rtLen.Route(&fl.req, nil)
	} else {
		for i, p := range f.rank {
			occ := 0.0
			if p.totalBlocks > 0 {
				occ = 1 - float64(p.freeBlocks)/float64(p.totalBlocks)
			}
			f.loads[i] = router.Load{Queued: p.waiting(), Running: p.running, KVOccupancy: occ}
		}
		d = f.rt.Route(&fl.req, f.loads)
	}
	if d.Pool < 0 || d.Pool >= len(f.rank) {
		f.fail(fmt.Errorf("router %q chose pool %d for request %d (allowed: 0..%d)", f.cfg.Router.Kind, d.Pool, fl.req.ID, len(f.rank)-1))
		return
	}
	if math.IsNaN(d.DelayS) || d.DelayS < 0 || math.IsInf(d.DelayS, 0) {
		f.fail(fmt.Errorf("router %q gave request %d a delay of %v s (allowed: finite, >= 0)", f.cfg.Router.Kind, fl.req.ID, d.DelayS))
		return
	}
	fl.estimated = d.EstimatedTokens
	fl.compressed = d.Compressed
	if d.InputTokens > 0 {
		fl.job.In = d.InputTokens
	}
	p := f.rank[d.Pool]
	if d.DelayS > 0 {
		f.deliverLater(fl, p, t+d.DelayS)
		return
	}
	f.deliver(fl, p, t)
}

func (f *fleet) deliverLater(fl *flight, p *pool, t float64) {
	f.due.push(t)
	f.at(t, func() {
		f.due.pop()
		f.step(t)
		if f.err == nil {
			f.deliver(fl, p, t)
		}
	})
}

// deliver hands fl to pool p at time t.
func (f *fleet) deliver(fl *flight, p *pool, t float64) {
	fl.pool = p
	if f.osd != nil {
		f.osdStart(p, t)
	}
	if !fl.warmup {
		p.m.arrived++
	}
	if f.ts != nil {
		f.seriesArrive(p, fl.warmup)
	}
	if f.sc != nil {
		f.scaleArrive(p, fl) // scaling.go
	}
	if need := fl.job.In + fl.job.Out; need > p.cfg.MaxContext {
		if !fl.warmup {
			p.m.rejected++
		}
		// The retry goes to the next pool with a strictly larger max context
		// (an equal one would refuse it again).
		next := p.rank + 1
		for next < len(f.rank) && f.rank[next].cfg.MaxContext <= p.cfg.MaxContext {
			next++
		}
		if f.cfg.Router.RetryDelayS > 0 && next < len(f.rank) {
			if f.osd != nil {
				f.osdEnd(p, t, false)
			}
			fl.retries++
			f.deliverLater(fl, f.rank[next], t+f.cfg.Router.RetryDelayS)
			return
		}
		f.reject(fl, t, RejectMisrouted, fmt.Sprintf("%d tokens > max_ctx %d of pool %s", need, p.cfg.MaxContext, p.cfg.Name), false)
		return
	}
	tp := fl.arrivalPS
	if t != fl.fleetArrival {
		tp = engine.Seconds(t)
	}
	fl.job.Prefix = nil
	if p.cache { // prefixconfig.go: the pool's instances look the prompt up
		fl.job.Prefix = (*engine.Prefix)(fl.req.Prefix)
	}
	if p.dg != nil { // disagg.go: the prefill instances produce the first token only
		fl.job.Out = 1
	}
	out, inst, done := p.dispatch(&fl.job, tp, f.done[:0])
	f.done = done
	if p.dg != nil { // disagg.go: prefills that ended go on to a decode instance
		f.done = p.prefillsFrom(f.done)
	}
	f.flushDone()
	switch out {
	case dispSubmitted:
		fl.instance = inst
	case dispQueued:
	case dispQueueFull:
		f.reject(fl, t, RejectQueueFull, fmt.Sprintf("pool %s holds %d waiting requests (queue_limit %d)", p.cfg.Name, p.waiting(), p.cfg.QueueLimit), true)
	case dispEngineReject:
		fl.instance = inst
		why := p.rejected.Reason
		f.reject(fl, t, engineRejectReason(why), why, true)
	}
}

// reject emits fl's record as rejected at time t by its pool, with reason
// one of RejectReasons and its detail. count tells whether the pool's
// rejection counter still has to be incremented.
func (f *fleet) reject(fl *flight, t float64, reason, detail string, count bool) {
	if count && !fl.warmup {
		fl.pool.m.rejected++
	}
	if !fl.warmup {
		f.fm.rejected++
		if reason == RejectQueueFull {
			fl.pool.m.capRejected++
			f.fm.capRejected++
		}
	}
	if f.osd != nil {
		f.osdEnd(fl.pool, t, true)
	}
	nan := math.NaN()
	rec := &f.rs.rec
	if f.rw != nil {
		rec = f.rw.rejRecord() // handed over with the batch
	}
	*rec = Record{
		ID:                  fl.req.ID,
		Pool:                fl.pool.cfg.Name,
		Instance:            int32(fl.instance),
		Category:            fl.req.Category.String(),
		ArrivalS:            fl.arrivalPS.Seconds(),
		AdmitS:              nan,
		FirstTokenS:         nan,
		FinishS:             nan,
		QueueWaitS:          nan,
		TTFTS:               nan,
		TPOTS:               nan,
		E2ES:                nan,
		InputTokens:         int32(fl.job.In),
		OutputTokens:        int32(fl.req.OutputTokens),
		OriginalInputTokens: int32(fl.req.InputTokens),
		EstimatedTokens:     int32(fl.estimated),
		Retries:             int32(fl.retries),
		Compressed:          fl.compressed,
		Warmup:              fl.warmup,
		Rejected:            true,
		RejectedReason:      reason,
		RejectedDetail:      detail,
		Ext:                 RecordExt{PrefillInstance: int32(fl.instance), DecodeInstance: int32(fl.instance)},
	}
	if f.ts != nil {
		f.seriesRecord(fl.pool, true, 0, 0)
	}
	e := f.entry()
	e.kind, e.rej = entReject, rec
	f.emit(e)
	f.release(fl)
}

// recordsApart reports whether the record side runs on a goroutine of its
// own (records.go): the sink allows it, no autoscaler reads the records,
// and the run is long enough to pay for it.
func (f *fleet) recordsApart() bool {
	if f.sc != nil || f.nReq < recApartMin {
		return false
	}
	_, ok := f.sink.(ConcurrentSink)
	return ok || f.sink == nil
}

// recApartMin is the least number of requests for which the record side
// runs apart.
const recApartMin = 4 * recBatchLen

// entry returns the record side's next entry to fill.
func (f *fleet) entry() *recEntry {
	if f.rw != nil {
		return f.rw.next()
	}
	return &f.ent
}

// emit hands the entry from entry, filled, to the record side.
func (f *fleet) emit(e *recEntry) {
	if f.rw != nil {
		if !f.rw.put() {
			f.fail(errRecordsFailed)
		}
		return
	}
	if !f.rs.apply(e) {
		return
	}
	if f.sc != nil {
		f.scaleRecord(&f.rs.rec) // scaling.go
	}
	if err := f.rs.write(); err != nil {
		f.fail(err)
	}
}

// windowChanged tells the record side the measurement window's new state.
func (f *fleet) windowChanged() {
	e := f.entry()
	e.kind = entWindow
	e.win = &recWindow{started: f.winStarted, ended: f.winEnded, t0: f.t0, t1: f.t1, t0ps: f.t0ps, t1ps: f.t1ps}
	f.emit(e)
}

// finish emits the record of an engine result (a served request, or one the
// engine rejected after queueing).
func (f *fleet) finish(res *engine.Result) {
	fl := f.flights.of(&res.Job)
	if res.Rejected {
		f.reject(fl, res.Finished.Seconds(), engineRejectReason(res.Reason), res.Reason, true)
		return
	}
	p := fl.pool
	if f.osd != nil {
		f.osdEnd(p, res.Finished.Seconds(), true)
	}
	e := f.entry()
	setServed(e, fl, res)
	if f.ts != nil {
		f.seriesRecord(p, false, (res.FirstToken - fl.arrivalPS).Seconds(), tpotOf(res.FirstToken, res.Finished, fl.req.OutputTokens))
	}
	// Router feedback, in completion order: the request as it arrived and
	// the true token count of its original prompt (router.Router.Observe:
	// with C&R, the count the compressor measured, not the fl.job.In served).
	if f.rtLen == nil { // the length router learns nothing
		f.rt.Observe(&fl.req, fl.req.InputTokens)
	}
	f.release(fl)
	f.emit(e)
}

func (f *fleet) summary() *Summary {
	w := 0.0
	if f.winEnded {
		w = f.t1 - f.t0
	}
	s := &Summary{
		Config:         f.cfg,
		Requests:       f.arrived,
		SimTimeS:       max(f.rs.endTime, f.lastArr),
		WarmupRequests: min(f.nWarm, f.arrived),
		WindowStartS:   f.t0,
		WindowEndS:     f.t1,
		Percentiles:    Percentiles,
	}
	gpus, instances, capacity := 0, 0, 0
	for _, p := range f.pools {
		n := p.cfg.Count * p.cfg.gpusPerInstance()
		m := p.m.metrics(n, p.ecfg.MaxSeqs, p.ecfg.MaxSeqs*p.cfg.Count, w)
		m.Name, m.GPU, m.MaxContext = p.cfg.Name, p.cfg.GPU, p.cfg.MaxContext
		if n != p.cfg.Count {
			m.Instances = p.cfg.Count
		}
		s.Pools = append(s.Pools, m)
		gpus += n
		instances += p.cfg.Count
		capacity += p.ecfg.MaxSeqs * p.cfg.Count
	}
	fm := f.fm.withPoolSketches(f.pools) // metrics.go
	s.Fleet = fm.metrics(gpus, 0, capacity, w)
	if instances != gpus {
		s.Fleet.Instances = instances
	}
	s.Fleet.Name = "fleet"
	f.prefixSummary(s) // prefixmetrics.go
	f.disaggSummary(s) // disagg.go
	if o := f.osd; o != nil {
		for i := range s.Pools {
			var d *osd.Detector
			if o.started {
				d = o.pools[i]
			}
			s.Pools[i].OSD = f.osdVerdict(d)
		}
		s.Fleet.OSD = f.osdVerdict(o.fleet)
		if o.halted {
			s.OSDStop = &OSDStop{By: o.haltBy, DetectedAtS: o.detectedAt, StoppedAtS: o.haltedAtNow}
		}
	}
	s.Scaling = f.scalingSummary(s.SimTimeS) // scalesummary.go
	// The fleet is overloaded when any pool is (its own backlog trend is
	// reported, but pooled samples are not a verdict on any one pool).
	s.Fleet.Overloaded = false
	for i, m := range s.Pools {
		// A pool whose detector stopped the run is over-saturated, whatever
		// its (truncated) backlog trend says; a fleet detector's stop marks
		// the fleet.
		if s.OSDStop != nil && s.OSDStop.By == m.Name {
			s.Pools[i].Overloaded = true
		}
		s.Fleet.Overloaded = s.Fleet.Overloaded || s.Pools[i].Overloaded
	}
	if s.OSDStop != nil {
		s.Fleet.Overloaded = true
	}
	return s
}

// pending is an engine result not yet emitted, with its request's ID.
type pending struct {
	res engine.Result
	id  int64
}

// resHeap is a min-heap of engine results ordered by (Finished, request ID).
type resHeap []pending

func resLess(a, b *pending) bool {
	if a.res.Finished != b.res.Finished {
		return a.res.Finished < b.res.Finished
	}
	return a.id < b.id
}

func (h *resHeap) push(r engine.Result, id int64) {
	*h = append(*h, pending{r, id})
	s := *h
	k := len(s) - 1
	for k > 0 {
		p := (k - 1) / 2
		if !resLess(&s[k], &s[p]) {
			break
		}
		s[k], s[p] = s[p], s[k]
		k = p
	}
}

func (h *resHeap) pop() engine.Result {
	s := *h
	top := s[0].res
	n := len(s) - 1
	s[0] = s[n]
	s[n] = pending{}
	s = s[:n]
	k := 0
	for {
		c := 2*k + 1
		if c >= n {
			break
		}
		if r := c + 1; r < n && resLess(&s[r], &s[c]) {
			c = r
		}
		if !resLess(&s[c], &s[k]) {
			break
		}
		s[k], s[c] = s[c], s[k]
		k = c
	}
	*h = s
	return top
}

// dueHeap is a min-heap of the times of pending calendar events that are not
// arrivals or ticks, so that arrivals before all of them can skip the
// calendar.
type dueHeap []float64

func timeLess(a, b *float64) bool { return *a < *b }

func (h *dueHeap) push(t float64) {
	*h = append(*h, t)
	siftUp(*h, len(*h)-1, timeLess)
}

// pop removes the earliest time (events fire in time order, so it is the
// firing event's own).
func (h *dueHeap) pop() {
	s := *h
	n := len(s) - 1
	s[0] = s[n]
	*h = s[:n]
	siftDown(*h, 0, timeLess)
}
