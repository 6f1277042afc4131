package sim

import (
	"fmt"
	"math"

	"github.com/fleetsim/fleetsim/engine"
)

// Dispatch modes inside a pool.
const (
	dispatchCentral = iota // one shared FCFS queue (M/G/c)
	dispatchJSQ            // join the shortest queue (queued + running)
	dispatchRR             // round robin
)

func parseDispatch(s string) (int, error) {
	switch s {
	case "", "central":
		return dispatchCentral, nil
	case "jsq":
		return dispatchJSQ, nil
	case "rr":
		return dispatchRR, nil
	}
	return 0, fmt.Errorf("unknown dispatch %q (allowed: central, jsq, rr)", s)
}

// pool is one pool of identical instances with its dispatch state.
//
// Invariant (central dispatch): when the central queue is non-empty, no
// instance of the pool can admit its head. It holds because an arrival only
// joins the queue after every instance with a free slot refused it, and
// instances only gain room at a change of batch composition (a completion),
// which the pool processes in time order (advance), letting that instance
// pull from the queue at the start of its next iteration.
//
// Per-instance state is kept in parallel slices indexed by instance
// (0..Count-1): eng, the cached counts eRun/eQueued/eFree/eWait/ePend and
// slotFreePos, the indexes over instances (events, disp, free, slotFree)
// and (jsq, rr) the packed queues pq, whose addresses the engines hold
// (privqueue.go: not used by autoscaled pools today). A change that adds or removes instances during a run (an
// instance lifecycle) must keep all of them the same length and in step:
// grow or shrink every slice and index (idxHeap and slotIndex are built for
// a fixed n today: they need an add/remove), give a new engine the shared
// queue (SetShared(&p.cq), central dispatch) and the fleet's first-token
// hook (newFleet: e.OnFirstToken), add its KV blocks to totalBlocks and
// freeBlocks and refresh it (refresh) so that the pool sums (running,
// queued, privWait, freeBlocks) include it; take a draining instance out of
// the dispatch indexes (free, disp, slotFree, the rr cycle) and detach it
// from the shared queue so that it only finishes what it holds, and subtract
// its cached counts from the sums when it leaves. The metrics' capacity
// (summary: slots × cfg.Count) and the router's pool sizes are computed
// from cfg.Count and need the same care.
type pool struct {
	cfg   PoolConfig
	ecfg  engine.Config
	order int // index in Config.Pools
	rank  int // index in the router's pools (MaxContext ascending)
	mode  int
	eng   []*engine.Engine
	// rejected is the engine's Result of the last dispatch that returned
	// dispEngineReject (read by the caller right after).
	rejected engine.Result
	events   idxHeap     // key: NextEvent(), an engine.Time
	disp     idxHeap     // jsq: queued+running
	free     slotIndex   // central: free slots
	cq       waitQueue   // central queue (central dispatch only), compact
	pq       []waitQueue // jsq, rr: each instance's packed waiting requests (privqueue.go); nil until used
	fls      *flights    // the fleet's flight table (results lead back to flights)
	w        engine.Time // the iteration's fixed cost W, rounded as the engine does
	rr       int
	sc       *poolScale   // autoscaling: instance slots and states (scaling.go); nil for a fixed pool
	pr       *prefixRoute // cache-aware routing (prefixroute.go); nil: least-loaded
	dg       *disagg      // decode stage of a disaggregated pool (disagg.go); nil: colocated
	cache    bool         // the instances have a prefix cache (jobs carry their prefix)
	// stop, when set, is polled once per engine event in advance (it
	// counts calls and polls the run's Options.Stop now and then); advance
	// ends with ErrStopped once it returns true.
	stop func() bool

	// Cached per-instance state from the last Stats() call, and the pool
	// sums derived from it (the router's Load).
	eRun, eQueued, eFree []int32
	eWait                []int32 // private-queued requests beyond the free slots
	ePend                []int32 // KV blocks of the prompts submitted, not yet admitted
	slotFree             []int32 // instances with a free slot and an empty private queue
	slotFreePos          []int32 // index in slotFree, -1 when absent
	running, queued      int     // sequences running / in private queues
	privWait             int     // sum of eWait
	freeBlocks           int
	totalBlocks          int

	m acc // metrics
}

func newPool(pc PoolConfig, order int, timing string, fls *flights) (*pool, error) {
	g, err := pc.gpu()
	if err != nil {
		return nil, fmt.Errorf("pool %q: gpu: %w", pc.Name, err)
	}
	ecfg, err := pc.engineConfig(g, timing)
	if err != nil {
		return nil, fmt.Errorf("pool %q: max_ctx: %w", pc.Name, err)
	}
	mode, err := parseDispatch(pc.Dispatch)
	if err != nil {
		return nil, fmt.Errorf("pool %q: dispatch: %w", pc.Name, err)
	}
	pr := newPrefixRoute(pc.PrefixCache, ecfg.MaxSeqs) // prefixroute.go
	if pr != nil {
		mode = dispatchJSQ
	}
	if pc.Count < 1 {
		return nil, fmt.Errorf("pool %q: count %d: must be at least 1", pc.Name, pc.Count)
	}
	if pc.QueueLimit < 0 {
		return nil, fmt.Errorf("pool %q: queue_limit %d: must be >= 0 (0 = no limit)", pc.Name, pc.QueueLimit)
	}
	p := &pool{
		cfg: pc, ecfg: ecfg, order: order, mode: mode, fls: fls, pr: pr, cache: ecfg.CacheBlocks > 0,
		eng:    make([]*engine.Engine, pc.Count),
		events: newIdxHeap(pc.Count, int64(engine.Never)),
		w:      engine.Seconds(ecfg.Timing.W),
		disp:   newIdxHeap(pc.Count, 0),
		free:   newSlotIndex(pc.Count, ecfg.MaxSeqs),
		eRun:   make([]int32, pc.Count), eQueued: make([]int32, pc.Count), eFree: make([]int32, pc.Count),
		eWait: make([]int32, pc.Count), ePend: make([]int32, pc.Count),
		slotFreePos: make([]int32, pc.Count),
		m:           newAcc(),
	}
	p.cq = waitQueue{fls: fls, pool: p}
	for i := range p.slotFreePos {
		p.slotFreePos[i] = -1
	}
	for i := range p.eng {
		e, err := engine.New(ecfg)
		if err != nil {
			return nil, fmt.Errorf("pool %q: %w", pc.Name, err)
		}
		if mode == dispatchCentral {
			e.SetShared(&p.cq)
		}
		p.eng[i] = e
		p.totalBlocks += ecfg.KVBlocks
		p.freeBlocks += ecfg.KVBlocks
		p.eFree[i] = int32(ecfg.KVBlocks)
		p.refresh(i)
	}
	return p, nil
}

// refresh re-reads instance i's state after an operation on it and updates
// the pool sums, the dispatch index and the event heap.
func (p *pool) refresh(i int) {
	p.refreshCounts(i)
	e := p.eng[i]
	p.events.update(i, int64(e.NextEvent()))
	if tag, ok := e.NextFinishing(); ok {
		// Its result will read the flight, untouched since the request
		// was dispatched: start loading it now, while other events run.
		prefetchFlight(p.fls.all[tag])
	}
}

// refreshCounts is refresh without the event heap (whose key, NextEvent,
// costs the most to read): for an instance about to be submitted to, which
// is fully refreshed right after.
func (p *pool) refreshCounts(i int) {
	if p.released(i) { // scaling.go: an empty slot
		return
	}
	running, queued, free := p.eng[i].Counts()
	queued += p.privPacked(i)
	p.running += running - int(p.eRun[i])
	p.queued += queued - int(p.eQueued[i])
	p.freeBlocks += free - int(p.eFree[i])
	p.eRun[i], p.eQueued[i], p.eFree[i] = int32(running), int32(queued), int32(free)
	w := max(0, queued-(p.ecfg.MaxSeqs-running))
	p.privWait += w - int(p.eWait[i])
	p.eWait[i] = int32(w)
	if queued == 0 {
		p.ePend[i] = 0
	}
	if in := running < p.ecfg.MaxSeqs && queued == 0 && p.admits(i); in != (p.slotFreePos[i] >= 0) {
		if in {
			p.slotFreePos[i] = int32(len(p.slotFree))
			p.slotFree = append(p.slotFree, int32(i))
		} else {
			k := p.slotFreePos[i]
			last := p.slotFree[len(p.slotFree)-1]
			p.slotFree[k] = last
			p.slotFreePos[last] = k
			p.slotFree = p.slotFree[:len(p.slotFree)-1]
			p.slotFreePos[i] = -1
		}
	}
	switch {
	case p.sc != nil && !p.sc.admits[i]: // scaling.go: starting or draining, takes nothing
		p.free.set(i, 0)
		p.disp.update(i, math.MaxInt64)
		p.checkDrained(i)
	case p.mode == dispatchCentral:
		p.free.set(i, p.freeSlots(i))
	case p.mode == dispatchJSQ:
		p.disp.update(i, int64(queued+running))
	}
}

func (p *pool) freeSlots(i int) int {
	return p.ecfg.MaxSeqs - int(p.eRun[i]) - int(p.eQueued[i])
}

// waiting is the number of requests waiting in the pool: the central queue
// and, in the instances' private queues, the requests beyond the instance's
// free slots (a request submitted to an instance with a free slot starts at
// its next iteration and is not counted as waiting).
func (p *pool) waiting() int { return p.cq.Len() + p.privWait }

// canTake reports whether instance i (advanced to now) would admit a
// request whose prompt needs need KV blocks at its next iteration start:
// a slot is free after the requests already submitted to it, and the free
// KV blocks cover those requests' prompts and this one. With an empty
// private queue it is exactly engine.CanAdmit.
func (p *pool) canTake(i, need int) bool {
	return p.freeSlots(i) > 0 && int(p.eFree[i])-int(p.ePend[i]) >= need
}

// canTakeNow is canTake on instance i's counts read from its engine (just
// advanced) rather than from the cache, which it leaves as it is but for
// ePend[i] (zeroed when i's queue is empty, as refreshCounts would): for the
// central dispatch's choice, which submit refreshes right after, so that
// the cache and the dispatch indexes are updated once per request, not
// twice.
// Only for central dispatch (pushPrivate reads eQueued under jsq, rr).
func (p *pool) canTakeNow(i, need int) bool {
	running, queued, free := p.eng[i].Counts()
	queued += p.privPacked(i)
	if queued == 0 {
		p.ePend[i] = 0
	}
	return p.ecfg.MaxSeqs-running-queued > 0 && free-int(p.ePend[i]) >= need
}

func (p *pool) blocksFor(tokens int) int {
	return (tokens + p.ecfg.BlockTokens - 1) / p.ecfg.BlockTokens
}

// advance brings the pool up to time t: every instance whose next change of
// batch composition is at or before t is advanced, appending finished
// results to out.
//
// While the central queue is non-empty the instances are advanced one
// change at a time, in the order of their NextEvent (ties: lower index), each
// to exactly its NextEvent. An instance pulls from the shared queue only at
// the start s of an iteration that admits, and then its NextEvent is s + W
// (W: the iteration's fixed cost, engine.Timing.W); after a completion at E
// its NextEvent is E and the pull at E is handled next, at key E + W. So
// processing keys in order processes pulls in the order of their times, and
// processing every key up to t + W performs every pull at or before t:
// a request pushed at t is never taken by an iteration that started before
// it arrived. Instances with a free slot that cannot take the head (its
// prompt needs more KV blocks than they have) depend on the head: they are
// first materialized up to the pull being processed, and their NextEvent is
// re-read whenever the head changes.
//
// It returns an error when an instance does not make progress (an engine
// bug).
func (p *pool) advance(t engine.Time, out []engine.Result) ([]engine.Result, error) {
	w := p.w
	for {
		if p.stop != nil && p.stop() {
			return out, ErrStopped
		}
		i, k := p.events.top()
		te := engine.Time(k)
		if te == engine.Never {
			return out, nil
		}
		if p.cq.Len() == 0 || p.mode != dispatchCentral { // (jsq, rr: held requests, scaling.go)
			if te > t {
				return out, nil
			}
			// Only to its own event: an instance advanced further would
			// show the dispatcher a batch from after t (Stats reports the
			// state at the end of the last iteration run).
			out = p.adv(i, te, out)
			p.refresh(i)
			if ne := engine.Time(p.events.key(i)); ne <= te {
				return out, fmt.Errorf("pool %q instance %d: engine did not progress past t=%v s (next event %v s)", p.cfg.Name, i, te.Seconds(), ne.Seconds())
			}
			continue
		}
		if te-w > t { // te > t + w, without overflow at t = Never
			return out, nil
		}
		// Materialize the head-dependent instances up to this pull (their
		// NextEvent is at or after te: nothing changes on them before it).
		n := len(out)
		for _, j := range p.slotFree {
			if int(j) != i {
				out = p.adv(int(j), te-w, out)
			}
		}
		if len(out) > n { // not expected; keep the cached state exact anyway
			for _, j := range append([]int32(nil), p.slotFree...) {
				p.refresh(int(j))
			}
		}
		pops := p.cq.pops
		out = p.adv(i, te, out)
		p.refresh(i)
		if ne := engine.Time(p.events.key(i)); ne <= te {
			return out, fmt.Errorf("pool %q instance %d: engine did not progress past t=%v s (next event %v s)", p.cfg.Name, i, te.Seconds(), ne.Seconds())
		}
		if p.cq.pops != pops { // the head changed
			p.rekeySlotFree()
		}
	}
}

// adv advances instance i to t and tags the requests that finished with
// the instance (a request taken from the central queue learns here where
// it ran).
func (p *pool) adv(i int, t engine.Time, out []engine.Result) []engine.Result {
	n := len(out)
	out = p.eng[i].AdvanceTo(t, out)
	if len(out) > n {
		id := p.instID(i)
		for k := n; k < len(out); k++ {
			p.fls.of(&out[k].Job).instance = id
		}
	}
	return out
}

// rekeySlotFree re-reads the NextEvent of the instances whose next
// iteration could admit from the shared queue (a free slot, an empty private
// queue): it depends on the queue's head.
func (p *pool) rekeySlotFree() {
	for _, j := range p.slotFree {
		p.refresh(int(j))
	}
}

// dispatch outcome
const (
	dispSubmitted = iota
	dispQueued
	dispQueueFull
	dispEngineReject
)

// dispatch places job j (already checked against the pool's max context)
// at time t; the pool must have been advanced to t. It returns the outcome,
// the instance (-1 when none); for an engine rejection the engine's Result
// is in p.rejected (not returned: the common outcomes would copy an empty
// 104-byte Result up every call level). A queued job's flight is packed into
// the pool's central queue, or (jsq, rr) behind its instance's queue
// (privqueue.go), and released (waitQueue.Push): the caller must not use it
// after dispQueued.
func (p *pool) dispatch(j *engine.Job, t engine.Time, out []engine.Result) (int, int, []engine.Result) {
	if !p.eng[0].Fits(*j) { // identical instances: refused by all
		p.rejected, _ = p.eng[0].Submit(*j, t)
		return dispEngineReject, -1, out
	}
	need := p.blocksFor(j.In)
	switch p.mode {
	case dispatchCentral:
		if p.cq.Len() == 0 {
			if i := p.free.best(); i >= 0 {
				out = p.adv(i, t, out)
				if p.canTakeNow(i, need) {
					return p.submit(i, j, need, t, out) // refreshes i
				}
				p.refresh(i)
				// Rare (KV-bound instances): try the others in order.
				for _, k := range p.free.candidates(nil) {
					out = p.adv(k, t, out)
					p.refresh(k)
					if p.canTake(k, need) {
						return p.submit(k, j, need, t, out)
					}
				}
			}
		}
		if p.cfg.QueueLimit > 0 && p.waiting()+1 > p.cfg.QueueLimit {
			return dispQueueFull, -1, out
		}
		p.cq.Push(p.fls.of(j))
		if p.cq.Len() == 1 {
			p.rekeySlotFree()
		}
		return dispQueued, -1, out
	case dispatchJSQ:
		i, _ := p.disp.top()
		if p.sc != nil { // scaling.go: only serving instances
			return p.submitScaled(j, need, t, out)
		}
		if p.pr != nil { // prefixroute.go
			i, out = p.routePrefix(j, t, out)
		}
		return p.submitPrivate(i, j, need, t, out)
	default:
		if p.sc != nil {
			return p.submitScaled(j, need, t, out)
		}
		i := p.rr
		p.rr++
		if p.rr == len(p.eng) {
			p.rr = 0
		}
		return p.submitPrivate(i, j, need, t, out)
	}
}

// submitPrivate submits j to instance i's private queue (jsq, rr), applying
// the queue limit to jobs that cannot start at its next iteration.
func (p *pool) submitPrivate(i int, j *engine.Job, need int, t engine.Time, out []engine.Result) (int, int, []engine.Result) {
	out = p.adv(i, t, out)
	p.refreshCounts(i)
	if p.cfg.QueueLimit > 0 && !p.canTake(i, need) && p.waiting()+1 > p.cfg.QueueLimit {
		p.refresh(i)
		return dispQueueFull, -1, out
	}
	return p.submit(i, j, need, t, out)
}

func (p *pool) submit(i int, j *engine.Job, need int, t engine.Time, out []engine.Result) (int, int, []engine.Result) {
	if p.pushPrivate(i, j) { // privqueue.go: the flight is packed and released
		p.ePend[i] += int32(need)
		p.refresh(i)
		return dispQueued, p.instID(i), out
	}
	res, ok := p.eng[i].Submit(*j, t)
	if !ok {
		p.rejected = res
		p.refresh(i)
		return dispEngineReject, p.instID(i), out
	}
	p.ePend[i] += int32(need)
	p.refresh(i)
	return dispSubmitted, p.instID(i), out
}
