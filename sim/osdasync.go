package sim

import (
	"fmt"
	"math"

	"github.com/fleetsim/fleetsim/engine"
	"github.com/fleetsim/fleetsim/sim/osd"
)

// In monitor mode the detectors only observe: nothing in the run depends on
// their alerts except the time series' osd_alert column and the summary. So
// the fleet hands their events, in the order it would have fed them, to a
// worker goroutine in batches (osdWorker), and the detectors run beside the
// simulation (on another core when there is one). The worker applies the
// same calls in the same order as the synchronous feed does, so the
// detectors end in the same state, bit for bit, whatever GOMAXPROCS. A
// time-series sample puts a marker in the stream: its rows wait until the
// worker has passed the marker and read the alerts there, and reach the
// SeriesSink in their order. Enforce mode stays synchronous (an alert stops
// the run).

// osdBatchLen is the number of detector events per batch (24 bytes each:
// 768 KiB). The osdBatches batches are the simulation's slack (handover.go):
// 131,072 events, ~40 ms of the 1M run (about three events a request).
const osdBatchLen = 32768

// osdBatches is the most batches in circulation (the one being filled, those
// queued for the worker and the one it works on): memory stays bounded
// whatever the run's length.
const osdBatches = 4

// osdMaxMarks is the number of time-series samples waiting for the worker at
// which the batch being filled is handed over early, so that a sparse run
// (few events between samples) holds a bounded number of rows (recycled:
// osdMark). Each further sample then hands its batch over too, so at most
// osdMaxMarks + osdBatches - 1 samples wait (TestOSDWorkerSamplesWaitBounded),
// and about osdBatches handovers are made per osdMaxMarks samples, each a
// wake-up of the worker (TestOSDWorkerFewEarlyHandovers: at 16, the CPU of a
// run sampled every 1 ms grew by half).
const osdMaxMarks = 256

// Detector event kinds (the last three in this order: osdAsyncStart turns
// one into the next).
const (
	evOrigin     uint8 = iota // first arrival: the detectors start, origin t
	evStart                   // a request starts (fleet arrival, pool delivery)
	evFirst                   // a first token; v is the TTFT, s
	evEnd                     // a request ends
	evMark                    // a time-series sample: read the alerts
	evToken                   // an engine reported a first token (tokenEv)
	evEndBoth                 // a request leaves pool det and the fleet: evEnd for det, then for -1
	evFlush                   // feed the first tokens at or before t (osdFlush)
	evFlushStart              // evFlush then evStart for the fleet (-1), both at t (osdArrive); evFlush + 1
	evArrive                  // evFlushStart then evStart for pool det, all at t (osdStart); evFlushStart + 1
)

// osdEv is one detector event: kind at time t (s) for detector det (a
// pool's order, or -1 for the fleet's). An evEnd first flushes the first
// tokens up to t, as osdEnd does.
type osdEv struct {
	t, v float64
	det  int32
	kind uint8
}

// tokenEv is an evToken: the first token at engine time t of a request that
// arrived at engine time arr, in pool order pool. The two engine times
// travel in t's and v's bits; the worker converts them as osdFirstToken
// does synchronously.
func tokenEv(t, arr engine.Time, pool int) osdEv {
	return osdEv{kind: evToken, t: math.Float64frombits(uint64(t)), v: math.Float64frombits(uint64(arr)), det: int32(pool)}
}

// osdMark is a time-series sample's rows waiting for the alerts at the
// sample (the marker's place in the event stream).
type osdMark struct {
	rows  []SeriesRow
	batch uint64 // sequence number of the batch that holds the marker
}

type osdBatch struct {
	evs   []osdEv
	marks []*osdMark // in the order of the batch's evMark events
}

// osdWorker is the fleet's side of the asynchronous feed and, in run, the
// worker's state.
type osdWorker struct {
	work, free chan *osdBatch
	done       chan struct{}
	cur        *osdBatch
	made       int    // batches allocated
	sent, back uint64 // batches handed to the worker, and returned by it
	pending    []*osdMark
	spare      []*osdMark // written marks, for reuse (no allocation per sample)

	// The worker's own (read by the fleet only after done is closed),
	// written on every event: kept off the cache lines of the fleet's half
	// and of whatever the allocator puts beside the struct.
	_         cacheLinePad
	params    osd.Config
	pools     []*osd.Detector
	fleet     *osd.Detector
	first     firstQueue // pending first tokens, as osdFeed.first
	lastT     float64
	backwards int
	_         cacheLinePad
}

func newOSDWorker(params osd.Config, npools int) *osdWorker {
	w := &osdWorker{
		work: make(chan *osdBatch, osdBatches), free: make(chan *osdBatch, osdBatches),
		done: make(chan struct{}), params: params, pools: make([]*osd.Detector, npools),
	}
	w.cur = w.newBatch()
	go w.run()
	return w
}

func (w *osdWorker) newBatch() *osdBatch {
	w.made++
	return &osdBatch{evs: make([]osdEv, 0, osdBatchLen)}
}

// run is the worker goroutine: it applies each batch's events in order and
// returns the batch.
func (w *osdWorker) run() {
	for b := range w.work {
		w.applyBatch(b)
		b.evs, b.marks = b.evs[:0], b.marks[:0]
		w.free <- b
	}
	close(w.done)
}

// applyBatch applies the events of b in order, with the detectors' calls
// in the order osdEvent makes them synchronously.
func (w *osdWorker) applyBatch(b *osdBatch) {
	m := 0
	for i := range b.evs {
		e := &b.evs[i]
		switch e.kind {
		case evArrive:
			w.flush(e.t)
			w.at(e.t)
			w.fleet.Start(e.t)
			w.pools[e.det].Start(e.t)
		case evToken:
			w.first.pushToken(engine.Time(math.Float64bits(e.t)), engine.Time(math.Float64bits(e.v)), e.det)
		case evEndBoth:
			w.flush(e.t)
			w.at(e.t)
			w.pools[e.det].End(e.t)
			w.fleet.End(e.t)
		case evFlush:
			w.flush(e.t)
		case evFlushStart:
			w.flush(e.t)
			w.at(e.t)
			w.fleet.Start(e.t)
		case evStart:
			w.at(e.t)
			w.det(e.det).Start(e.t)
		case evEnd:
			w.flush(e.t)
			w.at(e.t)
			w.det(e.det).End(e.t)
		case evMark:
			w.markAlerts(b.marks[m])
			m++
		case evOrigin:
			w.fleet = osd.New(w.params, e.t)
			for k := range w.pools {
				w.pools[k] = osd.New(w.params, e.t)
			}
		}
	}
}

// det is detector k: pool k's, or the fleet's for -1.
func (w *osdWorker) det(k int32) *osd.Detector {
	if k < 0 {
		return w.fleet
	}
	return w.pools[k]
}

// at counts an event at t (s) earlier than the one before (osdCheck's
// order check); calling it once for several events at the same t counts
// the same.
func (w *osdWorker) at(t float64) {
	if t < w.lastT {
		w.backwards++
	}
	w.lastT = t
}

// flush feeds the pending first tokens at or before t, as osdFlush does.
func (w *osdWorker) flush(t float64) {
	for {
		p, ok := w.first.next(t)
		if !ok {
			return
		}
		w.at(p.t)
		w.pools[p.pool].FirstToken(p.t, p.ttft)
		w.fleet.FirstToken(p.t, p.ttft)
	}
}

// markAlerts sets the osd_alert column of a sample's rows (the fleet
// prefilled 0) from the detectors' alerts at the marker.
func (w *osdWorker) markAlerts(mk *osdMark) {
	if w.fleet == nil {
		return
	}
	for i := range mk.rows {
		d := w.fleet
		if i < len(w.pools) {
			d = w.pools[i]
		}
		if d.Alert() {
			mk.rows[i].OSDAlert = 1
		}
	}
}

// osdApply feeds event e to detector d and returns its alert.
func osdApply(d *osd.Detector, e *osdEv) bool {
	switch e.kind {
	case evStart:
		return d.Start(e.t)
	case evFirst:
		return d.FirstToken(e.t, e.v)
	default:
		return d.End(e.t)
	}
}

// osdTap, when set (tests), sees each batch's events as it is handed to the
// worker.
var osdTap func([]osdEv)

// osdAsyncAdd queues an event for the worker (a batch's capacity is
// osdBatchLen: it is handed over as soon as it is full).
func (f *fleet) osdAsyncAdd(e osdEv) {
	o := f.osd
	o.evs = append(o.evs, e)
	if len(o.evs) == osdBatchLen {
		f.osdSend()
	}
}

// osdAsyncStart queues the start of a request at t (s) for detector det
// (-1: the fleet's). An arrival's three events travel as one: the step to
// its time queues a flush, the fleet's start follows (evFlushStart) and,
// when the request goes straight to a pool, the pool's (evArrive).
//
// Whether the last event can take the start is read from the feed's note
// of it (mergeN, mergeKind, mergeT), not from the batch: the event was just
// stored there, into a line the worker read last time round, and a load
// from it would wait for the store to own the line (~0.5% of the 1M run's
// CPU).
func (f *fleet) osdAsyncStart(t float64, det int32) {
	o := f.osd
	want := evFlush // the fleet's start follows a flush, a pool's the fleet's
	if det >= 0 {
		want = evFlushStart
	}
	if n := len(o.evs); n > 0 && n == o.mergeN && o.mergeKind == want && o.mergeT == t {
		o.mergeKind++ // evFlushStart, evArrive
		o.evs[n-1].kind = o.mergeKind
		o.evs[n-1].det = det
		return
	}
	f.osdAsyncAdd(osdEv{kind: evStart, t: t, det: det})
}

// osdSend hands the batch being filled to the worker and takes an empty one
// (a returned batch when there is one, a new one while fewer than
// osdBatches exist, else it waits for the worker).
func (f *fleet) osdSend() {
	o := f.osd
	w := o.w
	w.cur.evs = o.evs
	o.mergeN = 0 // the noted event leaves with the batch
	if osdTap != nil {
		osdTap(w.cur.evs)
	}
	w.work <- w.cur
	w.sent++
	select {
	case b := <-w.free:
		w.cur, o.evs = b, b.evs
		f.osdReturned()
		return
	default:
	}
	if w.made < osdBatches {
		w.cur = w.newBatch()
		o.evs = w.cur.evs
		return
	}
	o.waits++
	w.cur = <-w.free
	o.evs = w.cur.evs
	f.osdReturned()
}

// osdReturned counts a batch back from the worker and writes the samples
// whose markers it has passed (batches come back in the order sent).
func (f *fleet) osdReturned() {
	w := f.osd.w
	w.back++
	k := 0
	for k < len(w.pending) && w.pending[k].batch < w.back {
		k++
	}
	// The passed marks leave pending before any is written: a sink that
	// panics leaves pending consistent for osdJoin, deferred.
	n := len(w.spare)
	w.spare = append(w.spare, w.pending[:k]...)
	clear(w.pending[copy(w.pending, w.pending[k:]):])
	w.pending = w.pending[:len(w.pending)-k]
	for _, mk := range w.spare[n:] {
		if f.err == nil {
			if err := f.ts.sink.WriteSeries(mk.rows); err != nil {
				f.fail(fmt.Errorf("writing the time series: %w", err))
			}
		}
	}
}

// osdMarkSample queues a time-series sample's rows (osd_alert prefilled 0)
// behind the events fed so far.
func (f *fleet) osdMarkSample(rows []SeriesRow) {
	w := f.osd.w
	var mk *osdMark
	if n := len(w.spare); n > 0 {
		mk, w.spare = w.spare[n-1], w.spare[:n-1]
	} else {
		mk = &osdMark{}
	}
	mk.rows, mk.batch = append(mk.rows[:0], rows...), w.sent
	w.pending = append(w.pending, mk)
	w.cur.marks = append(w.cur.marks, mk)
	f.osdAsyncAdd(osdEv{kind: evMark})
	if len(w.pending) >= osdMaxMarks && len(f.osd.evs) > 0 {
		f.osdSend()
	}
}

// osdJoin ends the worker: the last batch is handed over, the worker's
// detectors become the feed's (read synchronously from then on) and the
// waiting samples are written (unless the run failed).
func (f *fleet) osdJoin() {
	o := f.osd
	if o == nil || o.w == nil {
		return
	}
	w := o.w
	w.cur.evs, o.evs = o.evs, nil
	if len(w.cur.evs) > 0 {
		if osdTap != nil {
			osdTap(w.cur.evs)
		}
		w.work <- w.cur
		w.sent++
	}
	close(w.work)
	<-w.done
	for w.back < w.sent {
		<-w.free
		f.osdReturned()
	}
	o.w = nil
	if w.fleet != nil {
		o.fleet, o.pools = w.fleet, w.pools
	}
	o.backwards += w.backwards
	o.lastT = w.lastT
}
