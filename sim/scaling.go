package sim

import (
	"fmt"
	"math"

	"github.com/fleetsim/fleetsim/engine"
	"github.com/fleetsim/fleetsim/pools/autoscale"
	"github.com/fleetsim/fleetsim/router"
)

// Pools whose size changes during a run (docs/day.md, "Wiring"). A pool of
// an autoscaled run keeps its instances in slots (the indices of its
// engines and heaps); an instance's id (sim.Lifecycle's, also the
// requests' instance column) maps to a slot while it starts serving, and
// its slot is reused once it is released. Only serving instances take new
// work: dispatch files the others as full (central), last (jsq) or skips
// them (rr); a draining instance is detached from the central queue and
// finishes what it holds; when it holds nothing it is released. A pool with
// no serving instance holds its arrivals in its queue until one serves.

// poolScale is one pool's scaling state.
type poolScale struct {
	lc     *Lifecycle
	meter  *autoscale.Meter
	ids    []int32 // slot → instance id, −1 for a free slot
	slotOf []int32 // instance id → slot, −1 while starting or once released
	admits []bool  // per slot: the instance serves
	spare  []int32 // free slots
	peak   int     // most instances billed at once
	// The interval's signals for the adaptive threshold.
	completed, preempted, rejected int64
	hours                          []hourSLO // by hour of arrival (post-warm-up requests)
}

// hourSLO counts one hour's requests for the worst-hour SLO attainment.
type hourSLO struct{ completed, met, rejected int64 }

// scaler is the fleet's scaling state: the autoscaler, the adaptive
// threshold and the control tick.
type scaler struct {
	policy  string
	as      autoscale.Autoscaler
	ad      *router.Adaptive
	setB    func(int) // the router's B_short setter (adaptive)
	bShort  int       // current B_short, tokens (0: no threshold)
	dt      float64   // control interval, s
	tick    bool      // ticks are scheduled
	obs     []autoscale.Observation
	hours   []hourSLO // fleet
	win     ttftWindows
	onTick  func(Decision)
	decided []int
}

// Decision is what the controller saw and did at one control tick
// (Options.OnDecision).
type Decision struct {
	TimeS        float64
	Observations []autoscale.Observation // per pool, Config.Pools order
	Desired      []int                   // the autoscaler's answer per pool (before the min/max clamp)
	Active       []int                   // instances starting + serving after the decision
	BShort       int                     // B_short after the decision (0: no adaptive threshold)
}

// thresholdSetter is a router whose B_short can move during a run.
type thresholdSetter interface{ SetBShort(int) }

// newScaler builds the scaling state of an autoscaled run (nil otherwise).
func (f *fleet) newScaler() error {
	cfg := &f.cfg
	if !cfg.autoscaled() {
		return nil
	}
	names := cfg.PoolNames()
	sc := &scaler{policy: autoscale.PolicyStatic, dt: autoscale.DefaultIntervalS, tick: cfg.ticking(), onTick: f.opts.OnDecision}
	var err error
	if a := cfg.Autoscale; a != nil {
		ac := a.WithDefaults()
		sc.policy, sc.dt = ac.Policy, ac.IntervalS
		if sc.as, err = autoscale.New(ac, names, cfg.Variants); err != nil {
			return err
		}
	} else {
		sc.as = autoscale.Static{}
	}
	if a := cfg.Router.Adaptive; a != nil {
		set, ok := f.rt.(thresholdSetter)
		if !ok {
			return fmt.Errorf("router.adaptive: router %q has no B_short to adapt", cfg.Router.Kind)
		}
		sc.ad = router.NewAdaptive(*a, cfg.adaptiveStart())
		sc.setB = set.SetBShort
		sc.bShort = sc.ad.BShort()
		set.SetBShort(sc.bShort)
	}
	for _, p := range f.pools {
		s, err := p.cfg.Scaling()
		if err != nil {
			return fmt.Errorf("pools[%d].scaling.%w", p.order, err)
		}
		ps := &poolScale{lc: NewLifecycle(s, p.cfg.Count, 0), meter: autoscale.NewMeter(0), peak: p.cfg.Count}
		for i := range p.eng {
			ps.ids = append(ps.ids, int32(i))
			ps.slotOf = append(ps.slotOf, int32(i))
			ps.admits = append(ps.admits, true)
		}
		p.sc = ps
	}
	sc.obs = make([]autoscale.Observation, len(f.pools))
	f.sc = sc
	return nil
}

// startScaling schedules the first control tick (run's start).
func (f *fleet) startScaling() {
	if f.sc != nil && f.sc.tick {
		f.atDue(f.sc.dt, f.onScaleTick)
	}
}

// atDue schedules h at t as a non-arrival event (the arrival shortcut of
// onArrival respects it).
func (f *fleet) atDue(t float64, h func()) {
	f.due.push(t)
	f.at(t, func() {
		f.due.pop()
		h()
	})
}

// onScaleTick is the control tick at time t: observe every pool, decide,
// apply, adapt B_short, and schedule the next tick while requests arrive.
func (f *fleet) onScaleTick() {
	sc := f.sc
	t := f.sim.Now()
	if f.stopped() || (f.srcDone && !f.heldWork()) {
		return // the controller stops at the last arrival
	}
	f.step(t)
	if f.err != nil {
		return
	}
	for i, p := range f.pools {
		o := &sc.obs[i]
		p.sc.meter.Take(t, o)
		o.Current, o.Serving = p.sc.lc.Active(), p.sc.lc.Count(Serving)
		o.Queue, o.Running, o.Slots = p.waiting(), p.running, p.ecfg.MaxSeqs
		o.KVUtil = 0
		if p.totalBlocks > 0 {
			o.KVUtil = 1 - float64(p.freeBlocks)/float64(p.totalBlocks)
		}
	}
	want := sc.as.Decide(sc.obs)
	if w, ok := sc.as.(interface{ Failed() error }); ok && w.Failed() != nil {
		f.fail(fmt.Errorf("autoscale wva at %g s: %w", t, w.Failed()))
		return
	}
	for i, p := range f.pools {
		f.scalePool(p, t, want[i])
	}
	if sc.ad != nil {
		short, long := f.rank[0], f.rank[len(f.rank)-1]
		b := sc.ad.Update(f.adaptSignals(short, &sc.obs[short.order]), f.adaptSignals(long, &sc.obs[long.order]))
		if b != sc.bShort {
			sc.bShort = b
			sc.setB(b)
		}
	}
	if sc.onTick != nil {
		d := Decision{TimeS: t, Observations: append([]autoscale.Observation(nil), sc.obs...), Desired: want, BShort: sc.bShort}
		for _, p := range f.pools {
			d.Active = append(d.Active, p.sc.lc.Active())
		}
		sc.onTick(d)
	}
	if !f.srcDone {
		f.atDue(t+sc.dt, f.onScaleTick)
		return
	}
	// After the last arrival the ticks go on only while a pool holds
	// requests with no instance serving them.
	if f.heldWork() {
		for _, p := range f.pools {
			if p.cq.Len() > 0 && p.sc.lc.Active() == 0 {
				f.fail(fmt.Errorf("pool %q holds %d requests after the last arrival and the autoscaler gives it no instance (min_instances 0?)", p.cfg.Name, p.cq.Len()))
				return
			}
		}
		f.atDue(t+sc.dt, f.onScaleTick)
	}
}

// heldWork reports whether a pool holds requests while no instance of it
// serves.
func (f *fleet) heldWork() bool {
	for _, p := range f.pools {
		if p.cq.Len() > 0 && p.sc.lc.Count(Serving) == 0 {
			return true
		}
	}
	return false
}

// adaptSignals returns pool p's signals over the last interval (and
// resets its counters).
func (f *fleet) adaptSignals(p *pool, o *autoscale.Observation) router.PoolSignals {
	ps := p.sc
	gpus := max(ps.lc.Count(Serving), 1) * max(ps.lc.cfg.GPUsPerInst, 1)
	s := router.PoolSignals{Arrivals: o.Arrivals, Completed: ps.completed, Preemptions: ps.preempted,
		Rejections: ps.rejected, QueuePerGPU: float64(o.Queue) / float64(gpus)}
	ps.completed, ps.preempted, ps.rejected = 0, 0, 0
	return s
}

// scalePool applies a desired count to pool p at time t.
func (f *fleet) scalePool(p *pool, t float64, desired int) {
	ps := p.sc
	c := ps.lc.ScaleTo(t, desired)
	for k, id := range c.Start {
		for len(ps.slotOf) <= id {
			ps.slotOf = append(ps.slotOf, -1)
		}
		f.atDue(c.ServeAt[k], func() { f.instanceReady(p, id) })
	}
	for _, id := range c.Drain {
		i := int(ps.slotOf[id])
		ps.admits[i] = false
		if p.mode == dispatchCentral {
			p.eng[i].SetShared(nil)
		}
		p.refresh(i) // files it as full; releases it when it holds nothing
	}
	ps.peak = max(ps.peak, ps.lc.Active()+ps.lc.Count(Draining))
}

// instanceReady makes starting instance id of pool p serve (its start-up
// delay has passed); a cancelled one is ignored.
func (f *fleet) instanceReady(p *pool, id int) {
	ps := p.sc
	if ps.lc.State(id) != Starting {
		return
	}
	t := ps.lc.ServeAt(id)
	f.step(t)
	if f.err != nil {
		return
	}
	if err := ps.lc.Ready(t, id); err != nil {
		f.fail(fmt.Errorf("pool %q: %w", p.cfg.Name, err))
		return
	}
	i, err := p.addInstance(id, f)
	if err != nil {
		f.fail(err)
		return
	}
	// Hand it the requests the pool holds: central dispatch gives it the
	// head (its first iteration then pulls more from the shared queue);
	// jsq and rr hold requests only while no instance serves, and hand
	// them out by their rule now that one does.
	tp := engine.Seconds(t)
	out := f.done[:0]
	switch {
	case p.cq.Len() == 0:
	case p.mode == dispatchCentral:
		j := p.cq.Peek()
		need := p.blocksFor(j.In)
		if p.canTake(i, need) {
			p.cq.Pop()
			_, _, out = p.submit(i, j, need, tp, out)
			p.rekeySlotFree()
		}
	default:
		for p.cq.Len() > 0 {
			j := p.cq.Pop()
			k := p.pick()
			out = p.adv(k, tp, out)
			p.refreshCounts(k)
			_, _, out = p.submit(k, j, p.blocksFor(j.In), tp, out)
		}
	}
	f.done = out
	f.flushDone()
}

// addInstance puts instance id in a slot of p, serving, and returns the
// slot.
func (p *pool) addInstance(id int, f *fleet) (int, error) {
	ps := p.sc
	e, err := newPoolEngine(p)
	if err != nil {
		return 0, err
	}
	if f.osd != nil {
		e.OnFirstToken(f.osdFirstToken)
	}
	var i int
	if n := len(ps.spare); n > 0 {
		i = int(ps.spare[n-1])
		ps.spare = ps.spare[:n-1]
	} else {
		i = p.growSlot()
	}
	p.eng[i] = e
	ps.ids[i], ps.slotOf[id], ps.admits[i] = int32(id), int32(i), true
	p.totalBlocks += p.ecfg.KVBlocks
	p.freeBlocks += p.ecfg.KVBlocks
	p.eFree[i] = int32(p.ecfg.KVBlocks)
	p.refresh(i)
	return i, nil
}

// newPoolEngine returns a new idle instance of p.
func newPoolEngine(p *pool) (*engine.Engine, error) {
	e, err := engine.New(p.ecfg)
	if err != nil {
		return nil, fmt.Errorf("pool %q: %w", p.cfg.Name, err)
	}
	if p.mode == dispatchCentral {
		e.SetShared(&p.cq)
	}
	return e, nil
}

// growSlot appends a free slot to p's per-instance state and returns it.
func (p *pool) growSlot() int {
	i := len(p.eng)
	p.eng = append(p.eng, nil)
	p.events.grow(int64(engine.Never))
	p.disp.grow(math.MaxInt64)
	p.free.grow()
	p.eRun, p.eQueued, p.eFree = append(p.eRun, 0), append(p.eQueued, 0), append(p.eFree, 0)
	p.eWait, p.ePend = append(p.eWait, 0), append(p.ePend, 0)
	p.slotFreePos = append(p.slotFreePos, -1)
	p.sc.ids = append(p.sc.ids, -1)
	p.sc.admits = append(p.sc.admits, false)
	return i
}

// pick returns the serving instance jsq or rr dispatch gives the next
// request, or −1 when none serves.
func (p *pool) pick() int {
	if p.mode == dispatchJSQ {
		i, k := p.disp.top()
		if k == math.MaxInt64 {
			return -1
		}
		return i
	}
	for range len(p.eng) {
		i := p.rr
		if p.rr++; p.rr >= len(p.eng) {
			p.rr = 0
		}
		if p.sc.admits[i] {
			return i
		}
	}
	return -1
}

// admits reports whether slot i takes new work (every instance of a fixed
// pool does).
func (p *pool) admits(i int) bool { return p.sc == nil || p.sc.admits[i] }

// instID returns the instance id in slot i.
func (p *pool) instID(i int) int {
	if p.sc == nil || i < 0 {
		return i
	}
	return int(p.sc.ids[i])
}

// released reports whether slot i holds no instance.
func (p *pool) released(i int) bool { return p.sc != nil && p.sc.ids[i] < 0 }

// checkDrained releases slot i's draining instance once it holds no work
// (called by refreshCounts with its fresh counts).
func (p *pool) checkDrained(i int) {
	ps := p.sc
	if ps.admits[i] || ps.ids[i] < 0 || p.eRun[i] != 0 || p.eQueued[i] != 0 {
		return
	}
	id := int(ps.ids[i])
	if ps.lc.State(id) != Draining {
		return
	}
	// Released at the end of its last iteration (the engine's time).
	if err := ps.lc.Drained(p.eng[i].Now().Seconds(), id); err != nil {
		panic("sim: " + err.Error()) // unreachable: the state was checked above
	}
	p.totalBlocks -= p.ecfg.KVBlocks
	p.freeBlocks -= int(p.eFree[i])
	p.eFree[i], p.ePend[i] = 0, 0
	ps.ids[i], ps.slotOf[id] = -1, -1
	ps.spare = append(ps.spare, int32(i))
}

// grow adds an instance with no free slot.
func (s *slotIndex) grow() {
	n := len(s.where)
	if n+1 > s.words*64 {
		w := s.words + 1
		bits := make([]uint64, len(s.cnt)*w)
		for b := range s.cnt {
			copy(bits[b*w:], s.bits[b*s.words:(b+1)*s.words])
		}
		s.bits, s.words = bits, w
	}
	s.where = append(s.where, -1)
	s.set(n, 0)
}

// scaleArrive counts an arrival delivered to pool p for its meter.
func (f *fleet) scaleArrive(p *pool, fl *flight) {
	p.sc.meter.Arrive(fl.job.In, fl.job.Out)
}

// scaleRecord counts a record for the adaptive signals and the hourly SLO
// attainment.
func (f *fleet) scaleRecord(r *Record) {
	var p *pool
	for _, q := range f.pools {
		if q.cfg.Name == r.Pool {
			p = q
			break
		}
	}
	if p == nil {
		return
	}
	ps := p.sc
	if r.Rejected {
		ps.rejected++
	} else {
		ps.completed++
		ps.preempted += int64(r.Preemptions)
	}
	if r.Warmup {
		return
	}
	if !r.Rejected {
		f.sc.win.add(r.FinishS, r.TTFTS, f.cfg.SLO.TTFTS)
	}
	h := int(r.ArrivalS / 3600)
	for _, hs := range []*[]hourSLO{&ps.hours, &f.sc.hours} {
		for len(*hs) <= h {
			*hs = append(*hs, hourSLO{})
		}
		c := &(*hs)[h]
		if r.Rejected {
			c.rejected++
			continue
		}
		c.completed++
		if (f.cfg.SLO.TTFTS <= 0 || r.TTFTS <= f.cfg.SLO.TTFTS) && (f.cfg.SLO.TPOTS <= 0 || r.TPOTS <= f.cfg.SLO.TPOTS) {
			c.met++
		}
	}
}

// submitScaled places j on the serving instance jsq or rr picks, or holds
// it in the pool's queue while none serves (instanceReady hands it out).
func (p *pool) submitScaled(j *engine.Job, need int, t engine.Time, out []engine.Result) (int, int, []engine.Result) {
	i := p.pick()
	if i < 0 {
		if p.cfg.QueueLimit > 0 && p.waiting()+1 > p.cfg.QueueLimit {
			return dispQueueFull, -1, out
		}
		p.cq.Push(p.fls.of(j)) // the flight is packed and released (waitQueue.Push)
		return dispQueued, -1, out
	}
	return p.submitPrivate(i, j, need, t, out)
}

// seriesScale fills the day columns of time-series row r (pool i of
// f.pools, or the fleet for i = len(f.pools)) at its end (timeseries.go).
// The fleet's row sums the pools' instances, GPU-hours and cost.
func (f *fleet) seriesScale(r *SeriesRow, i int, end float64) {
	r.BShort = -1
	r.GPUHours, r.CostUSD = math.NaN(), math.NaN()
	if f.sc != nil && f.sc.ad != nil {
		r.BShort = int64(f.sc.bShort)
	}
	r.OSDAlert = f.osdAlert(i) // osdrun.go
	pools := f.pools
	if i < len(f.pools) {
		pools = f.pools[i : i+1]
	}
	if f.sc != nil {
		r.GPUHours, r.CostUSD = 0, 0
	}
	for _, p := range pools {
		if p.sc == nil {
			r.Serving += int64(p.cfg.Count)
			continue
		}
		lc := p.sc.lc
		r.Starting += int64(lc.Count(Starting))
		r.Serving += int64(lc.Count(Serving))
		r.Draining += int64(lc.Count(Draining))
		b := lc.Bill(end)
		r.GPUHours += b.GPUSeconds / 3600
		r.CostUSD += b.CostUSD
	}
}

// instances returns the pool's instances holding an engine: serving and
// draining ones (all of a fixed pool's).
func (p *pool) instances() int {
	if p.sc == nil {
		return len(p.eng)
	}
	return p.sc.lc.Count(Serving) + p.sc.lc.Count(Draining)
}
