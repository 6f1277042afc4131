package sim

import (
	"fmt"
	"math"

	"github.com/fleetsim/fleetsim/engine"
	"github.com/fleetsim/fleetsim/pools/catalog"
)

// A prefill/decode-disaggregated pool (issue 18, docs/prefix.md
// "Disaggregated pools"). The pool's own instances (its engines, indexes
// 0..Prefill−1) prefill: each request is dispatched to the least-loaded one (or by
// prefix_cache.routing; private queues) as a job with L_out = 1, whose one token is the request's
// first token. When that prefill ends at t_f, the request looks for a decode
// instance with room — an empty private queue, a free slot and
// ceil((L_in+1)/16) free KV blocks after the transfers already heading
// there — the least loaded (running + incoming, lowest index); its KV cache
// then moves over the link for T = L_in·KV bytes per token / bandwidth +
// latency (catalog.KVLink.TransferS) and lands at t_f + T on that instance
// (engine.SubmitPrefilled), which decodes the other L_out − 1 tokens. When
// no decode instance has room the request waits, in arrival order of its
// prefill's end, until a decode instance finishes a request. A request with
// L_out = 1 ends at its prefill.
//
// Prefill ends, transfer landings and decode events are processed in time
// order (ties: decode events, then landings, then prefill ends), so every
// decode instance is looked at in its state at that moment (instances are
// advanced lazily, as everywhere). TTFT ends on the prefill instance; TPOT
// = (decode finish − first token)/(L_out − 1) includes the wait and the
// transfer. The record's instance is the decode instance, numbered after
// the prefill ones (Prefill + k).
//
// Not modelled: the prefill instance holding the KV until the transfer
// ends (its blocks are freed at the prefill's end), contention between
// transfers on the link, a decode instance's prefix cache.
type disagg struct {
	np      int   // prefill instances
	dec     *pool // the decode instances (jsq bookkeeping, their own events)
	link    catalog.KVLink
	kvBytes float64 // KV bytes per prompt token
	xfer    xferHeap
	wait    []*flight // prefilled, waiting for a decode instance with room (FIFO)
	waitAt  []engine.Time
	resN    []int32 // transfers under way to each decode instance
	resB    []int32 // and their KV blocks
	seq     int64
	buf     []engine.Result
	// Results not yet handled, by (finish, ID): prefills that ended (an
	// instance advanced past t may finish work after t) and decodes.
	pre, post resHeap
	xs, ws    sketch // transfer times and waits for a decode instance, s (post-warm-up)
	nx        int64  // transfers
}

// dgFlight is a disaggregated request's prefill, kept for its record.
type dgFlight struct {
	prefillInst, decodeInst int32
	adm, first              engine.Time
	preempt, cached, need   int
	dec                     int // decode instance (local index) once placed
	transferS               float64
}

// newPoolOrDisagg builds pool pc: a plain pool, or a disaggregated one (its
// prefill instances as the pool, the decode instances beside it).
func newPoolOrDisagg(pc PoolConfig, order int, timing string, fls *flights) (*pool, error) {
	d := pc.Disaggregated
	if d == nil {
		return newPool(pc, order, timing, fls)
	}
	g, err := pc.gpu()
	if err != nil {
		return nil, fmt.Errorf("pool %q: gpu: %w", pc.Name, err)
	}
	link, kv, err := d.disaggLink(pc, g)
	if err != nil {
		return nil, fmt.Errorf("pool %q: %w", pc.Name, err)
	}
	pre, dc := pc, pc
	pre.Count, pre.Dispatch = d.Prefill, DispatchJSQ
	dc.Count, dc.Dispatch, dc.PrefixCache = d.Decode, DispatchJSQ, nil
	p, err := newPool(pre, order, timing, fls)
	if err != nil {
		return nil, err
	}
	q, err := newPool(dc, order, timing, fls)
	if err != nil {
		return nil, err
	}
	p.cfg = pc // the pool's GPUs and slots count both stages
	p.dg = &disagg{np: d.Prefill, dec: q, link: link, kvBytes: kv,
		resN: make([]int32, d.Decode), resB: make([]int32, d.Decode), xs: newSketch(), ws: newSketch()}
	return p, nil
}

// advanceAll is pool.advance for any pool (disaggregated ones included).
func (p *pool) advanceAll(t engine.Time, out []engine.Result) ([]engine.Result, error) {
	if p.dg == nil {
		return p.advance(t, out)
	}
	return p.dg.advance(p, t, out)
}

// nextKey is the pool's next event time (events.top's key), decode
// instances and transfers included.
func (p *pool) nextKey() engine.Time {
	_, k := p.events.top()
	if d := p.dg; d != nil {
		_, kd := d.dec.events.top()
		k = min(k, kd)
		if len(d.xfer) > 0 {
			k = min(k, int64(d.xfer[0].at))
		}
		k = min(k, int64(d.pre.top()), int64(d.post.top()))
	}
	return engine.Time(k)
}

// backlog returns the requests waiting in pool p, for its backlog and
// overload trend: its queues and, in a disaggregated pool, the prefilled
// requests waiting for a decode instance or queued at one (the decode
// stage's backlog, which the prefill instances' queues do not show).
func (p *pool) backlog() int {
	w := p.waiting()
	if d := p.dg; d != nil {
		w += len(d.wait) + d.dec.waiting()
	}
	return w
}

// busy reports whether a disaggregated pool holds requests past their
// prefill (decoding, moving or waiting); false for other pools.
func (d *disagg) busy() bool {
	return d != nil && (d.dec.running > 0 || d.dec.queued > 0 || len(d.xfer) > 0 || len(d.wait) > 0 || len(d.pre) > 0 || len(d.post) > 0)
}

// advance brings the disaggregated pool p to t (see the type's comment),
// appending the requests that left it.
func (d *disagg) advance(p *pool, t engine.Time, out []engine.Result) ([]engine.Result, error) {
	q := d.dec
	for {
		if p.stop != nil && p.stop() {
			return out, ErrStopped
		}
		ip, kp := p.events.top()
		iq, kq := q.events.top()
		tx := engine.Never
		if len(d.xfer) > 0 {
			tx = d.xfer[0].at
		}
		tp, tq, tpre, tpost := engine.Time(kp), engine.Time(kq), d.pre.top(), d.post.top()
		m := min(tp, tq, tx, tpre, tpost)
		if m > t || m == engine.Never {
			return out, nil
		}
		switch m {
		case tpost: // a decode finished: the request leaves; room for the waiting
			out = append(out, d.decoded(p, d.post.pop()))
			out = d.retry(p, m, out)
		case tx:
			out = d.land(p, d.xfer.pop(), out)
		case tpre:
			out = d.prefilled(p, d.pre.pop(), out)
		case tq:
			d.buf = q.adv(iq, tq, d.buf[:0])
			q.refresh(iq)
			if ne := engine.Time(q.events.key(iq)); ne <= tq {
				return out, fmt.Errorf("pool %q decode instance %d: engine did not progress past t=%v s", p.cfg.Name, iq, tq.Seconds())
			}
			d.hold(&d.post, p)
		default:
			d.buf = p.adv(ip, tp, d.buf[:0])
			p.refresh(ip)
			if ne := engine.Time(p.events.key(ip)); ne <= tp {
				return out, fmt.Errorf("pool %q instance %d: engine did not progress past t=%v s", p.cfg.Name, ip, tp.Seconds())
			}
			d.hold(&d.pre, p)
		}
	}
}

// hold moves the results in d.buf to h, to be handled at their finish.
func (d *disagg) hold(h *resHeap, p *pool) {
	for k := range d.buf {
		h.push(d.buf[k], p.fls.of(&d.buf[k].Job).req.ID)
		d.buf[k] = engine.Result{}
	}
	d.buf = d.buf[:0]
}

// prefillsFrom holds the prefill results that a dispatch to the pool's
// instances produced (run.go, deliver).
func (p *pool) prefillsFrom(done []engine.Result) []engine.Result {
	d := p.dg
	d.buf = append(d.buf[:0], done...)
	d.hold(&d.pre, p)
	return done[:0]
}

// decoded turns a decode instance's result into the request's (prefill
// times, preemptions of both stages; the instance numbered after the
// prefill ones).
func (d *disagg) decoded(p *pool, r engine.Result) engine.Result {
	fl := p.fls.of(&r.Job)
	g := fl.dg
	fl.instance = d.np + fl.instance
	g.decodeInst = int32(fl.instance)
	if !r.Rejected {
		r.Admitted, r.FirstToken = g.adm, g.first
		r.Preemptions += g.preempt
		r.Cached = g.cached
	}
	return r
}

// prefilled handles the end of r's prefill.
func (d *disagg) prefilled(p *pool, r engine.Result, out []engine.Result) []engine.Result {
	fl := p.fls.of(&r.Job)
	if r.Rejected {
		return append(out, r)
	}
	fl.dg = &dgFlight{prefillInst: int32(fl.instance), decodeInst: -1, adm: r.Admitted, first: r.FirstToken,
		preempt: r.Preemptions, cached: r.Cached, transferS: math.NaN()}
	if fl.req.OutputTokens <= 1 {
		return append(out, r)
	}
	fl.job.Out = fl.req.OutputTokens
	fl.dg.need = d.dec.blocksFor(fl.job.In + 1)
	if len(d.wait) > 0 || !d.place(p, fl, r.Finished, r.Finished) {
		d.wait, d.waitAt = append(d.wait, fl), append(d.waitAt, r.Finished)
	}
	return out
}

// place sends fl's KV at t to the least-loaded decode instance with room
// (prefill ended at tf); false when none has room.
func (d *disagg) place(p *pool, fl *flight, tf, t engine.Time) bool {
	q := d.dec
	g := fl.dg
	best, bestLoad := -1, 0
	for k := range q.eng {
		d.buf = q.adv(k, t, d.buf[:0])
		q.refresh(k)
		d.hold(&d.post, p)
		running, queued, free := q.eng[k].Counts()
		load := running + int(d.resN[k])
		if queued == 0 && load < q.ecfg.MaxSeqs && free-int(d.resB[k]) >= g.need && (best < 0 || load < bestLoad) {
			best, bestLoad = k, load
		}
	}
	if best < 0 {
		return false
	}
	d.resN[best]++
	d.resB[best] += int32(g.need)
	g.dec = best
	dt := engine.Seconds(d.transferS(fl.job.In))
	g.transferS = dt.Seconds()
	if !fl.warmup {
		d.xs.add(g.transferS)
		d.ws.add((t - tf).Seconds())
		d.nx++
	}
	d.seq++
	at := t + dt
	if dt > engine.Never-t { // past the clock's range (Config.Validate bounds T): never lands
		at = engine.Never
	}
	d.xfer.push(xfer{at: at, seq: d.seq, fl: fl})
	return true
}

// transferS is catalog.KVLink.TransferS with the pool's KV bytes per
// token: tokens·kvBytes/(GBs·10^9) + LatencyS, s.
func (d *disagg) transferS(tokens int) float64 {
	return float64(tokens)*d.kvBytes/(d.link.GBs*1e9) + d.link.LatencyS
}

// land submits a transfer that arrived to its decode instance.
func (d *disagg) land(p *pool, x xfer, out []engine.Result) []engine.Result {
	q := d.dec
	g := x.fl.dg
	k := g.dec
	d.resN[k]--
	d.resB[k] -= int32(g.need)
	d.buf = q.adv(k, x.at, d.buf[:0])
	q.refreshCounts(k)
	d.hold(&d.post, p)
	res, ok := q.eng[k].SubmitPrefilled(x.fl.job, x.at)
	q.refresh(k)
	if !ok {
		x.fl.instance = k
		out = append(out, d.decoded(p, res))
	}
	return out
}

// retry places the waiting requests, in order, while decode instances have
// room (at t, after a decode instance finished a request).
func (d *disagg) retry(p *pool, t engine.Time, out []engine.Result) []engine.Result {
	for len(d.wait) > 0 {
		if !d.place(p, d.wait[0], d.waitAt[0], t) {
			break
		}
		d.wait[0] = nil
		d.wait, d.waitAt = d.wait[1:], d.waitAt[1:]
	}
	return out
}

// ext returns the extended columns of fl's record (result res).
func (fl *flight) ext(res *engine.Result) RecordExt {
	if g := fl.dg; g != nil {
		return RecordExt{CachedTokens: int32(res.Cached), PrefillInstance: g.prefillInst, DecodeInstance: g.decodeInst, KVTransferS: g.transferS}
	}
	return RecordExt{CachedTokens: int32(res.Cached), PrefillInstance: int32(fl.instance), DecodeInstance: int32(fl.instance)}
}

// DisaggMetrics are a disaggregated pool's stage sizes and transfers in
// summary.json (post-warm-up requests).
type DisaggMetrics struct {
	Prefill   int       `json:"prefill"`   // prefill instances
	Decode    int       `json:"decode"`    // decode instances
	LinkGBs   float64   `json:"link_gb_s"` // link bandwidth one way, GB/s
	Transfers int64     `json:"transfers"` // KV transfers started
	Transfer  Quantiles `json:"kv_transfer_s"`
	// DecodeWait is the time from a prefill's end to its transfer's start
	// (waiting for a decode instance with room), s.
	DecodeWait Quantiles `json:"decode_wait_s"`
}

// disaggSummary adds the disaggregated pools' metrics.
func (f *fleet) disaggSummary(s *Summary) {
	for k, p := range f.pools {
		if d := p.dg; d != nil {
			s.Pools[k].Disagg = &DisaggMetrics{Prefill: d.np, Decode: len(d.dec.eng), LinkGBs: d.link.GBs,
				Transfers: d.nx, Transfer: d.xs.quantiles(), DecodeWait: d.ws.quantiles()}
		}
	}
}

// top is the earliest finish in h (engine.Never when empty).
func (h resHeap) top() engine.Time {
	if len(h) == 0 {
		return engine.Never
	}
	return h[0].res.Finished
}

// xfer is a KV transfer under way: it lands at at.
type xfer struct {
	at  engine.Time
	seq int64
	fl  *flight
}

// xferHeap is a min-heap of transfers by (landing time, start order).
type xferHeap []xfer

func xferLess(a, b *xfer) bool { return a.at < b.at || a.at == b.at && a.seq < b.seq }

func (h *xferHeap) push(x xfer) {
	*h = append(*h, x)
	siftUp(*h, len(*h)-1, xferLess)
}

func (h *xferHeap) pop() xfer {
	s := *h
	x := s[0]
	n := len(s) - 1
	s[0] = s[n]
	s[n] = xfer{}
	*h = s[:n]
	siftDown(*h, 0, xferLess)
	return x
}
