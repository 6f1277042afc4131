package sim

import (
	"fmt"

	"github.com/fleetsim/fleetsim/engine"
	"github.com/fleetsim/fleetsim/workload"
)

// The record side of a run: turning what leaves the fleet into Records,
// adding them to the summary's accumulators (acc) and writing them to the
// sink. None of it decides the run: nothing on the simulation's side reads
// the accumulators' completion fields (completed, sketches, busy and served
// window counts, endTime) before the run ends, and the records reach the
// sink in the order they are handed over. So, when the sink allows it
// (ConcurrentSink, or none) and no autoscaler reads the records
// (scaling.go), the record side runs on a goroutine of its own (recWriter),
// fed in batches; otherwise the simulation's goroutine runs it itself, in
// the same order, with the same code.

// ConcurrentSink is a Sink whose Write may be called from a goroutine other
// than Run's caller and that affects nothing the run reads while it runs
// (Options.Stop, Options.Progress, a Source): Run may then write the
// records on a goroutine of its own, in the same order, a little after the
// simulation produced them. Once Run has returned, every record has been
// written. A Write error still fails the run with the same error (the
// request it names included), and a panic in Write reaches Run's caller.
type ConcurrentSink interface {
	Sink
	// ConcurrentWrite marks the sink; it does nothing.
	ConcurrentWrite()
}

// recWindow is the measurement window as the record side sees it.
type recWindow struct {
	started, ended bool
	t0, t1         float64
	t0ps, t1ps     engine.Time // t0, t1 in engine time
}

// Kinds of recEntry.
const (
	entServed uint8 = iota // a result the engine served
	entReject              // a rejection, its record built (rej)
	entWindow              // the window changed (win)
)

// recEntry is one step of the record side: a served result with what its
// flight knew, a rejection's record, or a change of the window. It is 128
// bytes, two cache lines, written by the simulation and read by the writer.
type recEntry struct {
	adm, first, fin engine.Time // the result's Admitted, FirstToken, Finished
	arrival         engine.Time // the arrival as the engines saw it
	pool            *pool
	id              int64
	outTokens       int        // the request's L_out
	rej             *Record    // entReject: the record
	win             *recWindow // entWindow: the window now
	ext             RecordExt  // fl.ext (disagg.go)
	instance        int32
	estimated       int32
	retries         int32
	origIn          int32 // the request's L_in as it arrived
	served          int32 // L_in as served (after compression)
	preemptions     int32
	cat             workload.Category
	kind            uint8
	warmup          bool
	compressed      bool
}

// recSide is the record side's state: owned by the recWriter's goroutine
// while one runs, else by the simulation's.
type recSide struct {
	sink    Sink
	slo     SLO
	fm      *acc
	win     recWindow
	rec     Record
	endTime float64 // the latest finish of a served request, s
}

// setServed fills e from a served result and its flight.
func setServed(e *recEntry, fl *flight, res *engine.Result) {
	e.kind = entServed
	e.adm, e.first, e.fin = res.Admitted, res.FirstToken, res.Finished
	e.preemptions = int32(res.Preemptions)
	e.pool = fl.pool
	e.id = fl.req.ID
	e.arrival = fl.arrivalPS
	e.instance = int32(fl.instance)
	e.estimated = int32(fl.estimated)
	e.retries = int32(fl.retries)
	e.outTokens = fl.req.OutputTokens
	e.origIn = int32(fl.req.InputTokens)
	e.served = int32(res.Job.In) // fl.job.In: the engines keep the job as submitted
	e.cat = fl.req.Category
	e.warmup = fl.warmup
	e.compressed = fl.compressed
	e.ext = fl.ext(res) // disagg.go
}

// tpotOf is the TPOT of a request of out output tokens whose first token
// came at first and its last at fin, s. Durations are differences of
// engine times (whole picoseconds, the arrival rounded to one as the
// engines saw it): exact, never negative.
func tpotOf(first, fin engine.Time, out int) float64 {
	if out > 1 {
		return (fin - first).Seconds() / float64(out-1)
	}
	return 0
}

// apply runs one entry: the record it leaves in s.rec (none for a window
// change, reported false) and the accumulators.
func (s *recSide) apply(e *recEntry) bool {
	switch e.kind {
	case entWindow:
		s.win = *e.win
		return false
	case entReject:
		s.rec = *e.rej
		return true
	}
	s.served(e, &s.rec)
	return true
}

// served runs a served result's entry: its record, built in r, and the
// accumulators.
func (s *recSide) served(e *recEntry, r *Record) {
	p := e.pool
	adm, ft, fin := e.adm.Seconds(), e.first.Seconds(), e.fin.Seconds()
	ap := e.arrival
	// Field by field into r: a composite literal would be built on the
	// stack and copied (about 200 bytes) on every served request.
	*r = Record{}
	r.ID = e.id
	r.Pool = p.cfg.Name
	r.Instance = e.instance
	r.Category = e.cat.String()
	r.ArrivalS = ap.Seconds()
	r.AdmitS = adm
	r.FirstTokenS = ft
	r.FinishS = fin
	r.QueueWaitS = (e.adm - ap).Seconds()
	r.TTFTS = (e.first - ap).Seconds()
	r.TPOTS = tpotOf(e.first, e.fin, e.outTokens)
	r.E2ES = (e.fin - ap).Seconds()
	r.InputTokens = e.served
	r.OutputTokens = int32(e.outTokens)
	r.OriginalInputTokens = e.origIn
	r.EstimatedTokens = e.estimated
	r.Preemptions = e.preemptions
	r.Retries = e.retries
	r.Compressed = e.compressed
	r.Warmup = e.warmup
	r.Ext = e.ext
	s.addBusy(p, adm, fin)
	w := &s.win
	if w.started && e.fin >= w.t0ps && (!w.ended || e.fin <= w.t1ps) {
		p.m.servedWin++
		s.fm.servedWin++
	}
	if !e.warmup {
		meets := (s.slo.TTFTS <= 0 || r.TTFTS <= s.slo.TTFTS) &&
			(s.slo.TPOTS <= 0 || r.TPOTS <= s.slo.TPOTS)
		for _, m := range [2]*acc{&p.m, s.fm} {
			m.completed++
			m.preemptions += int64(e.preemptions)
			m.cached += int64(e.ext.CachedTokens) // prefix cache (prefixmetrics.go)
			m.prompt += int64(e.served)
			if meets {
				m.sloMet++
			}
		}
		// The pool's sketches only: the fleet's are their sum
		// (acc.withPoolSketches).
		m := &p.m
		m.ttft.addIndex(sketchIndex(r.TTFTS))
		m.tpot.addIndex(sketchIndex(r.TPOTS))
		m.e2e.addIndex(sketchIndex(r.E2ES))
		m.wait.addIndex(sketchIndex(r.QueueWaitS))
	}
	if fin > s.endTime {
		s.endTime = fin
	}
}

// addBusy adds the slot time a served request spent inside the measurement
// window [t0, t1] to its pool's and the fleet's busy slot-seconds. A request
// holds one slot from its admission to its finish: the catalog sizes every
// pool's slots so that each can hold a max-context sequence (pools.GPU.Slots),
// so the engine never preempts here. Records come out in finish order, so
// while the window is open every finish is at or before the current arrival,
// hence before t1.
func (s *recSide) addBusy(p *pool, admitted, finished float64) {
	w := &s.win
	if !w.started {
		return
	}
	hi := finished
	if w.ended {
		hi = min(hi, w.t1)
	}
	if d := hi - max(admitted, w.t0); d > 0 {
		p.m.busyWin += d
		s.fm.busyWin += d
	}
}

// write writes s.rec to the sink, if any.
func (s *recSide) write() error {
	if s.sink == nil {
		return nil
	}
	return writeErr(s.rec.ID, s.sink.Write(&s.rec))
}

// writeErr is the run's error for the sink's error err writing request id.
func writeErr(id int64, err error) error {
	if err != nil {
		return fmt.Errorf("writing request %d: %w", id, err)
	}
	return nil
}
