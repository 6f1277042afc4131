package sim

import (
	"errors"
	"sync/atomic"
)

// recWriter runs the record side (records.go) on a goroutine of its own:
// the simulation fills entries in batches of recBatchLen and hands each
// over through a channel; the batches come back through another. A sink
// error or panic stops the writing (the batches still come back, so the
// simulation never blocks); the simulation sees it at its next hand-over
// and ends the run (errRecordsFailed), and Run returns the writer's error,
// or raises its panic, once the writer has ended (stop). Any error the
// simulation meets after a record was handed over would have come after
// that record's write when written in place, so the writer's error is the
// run's.
type recWriter struct {
	rs     *recSide
	slots  SlotSink // rs.sink when it is one
	todo   chan *recBatch
	free   chan *recBatch
	done   chan struct{}
	cur    *recBatch
	made   int         // batches made so far (at most recBatches)
	waits  int         // times the simulation waited for a batch back (handover.go)
	failed atomic.Bool // err or pan set (before it)
	err    error
	pan    any
	closed bool
}

// recBatch is a batch of entries, the first n used, and the records of
// its rejections (recs[:nrec]; allocated at the batch's first rejection and
// reused with the batch: an overloaded pool may reject most requests).
type recBatch struct {
	ents []recEntry
	n    int
	recs []Record
	nrec int
}

// recBatchLen is the number of entries in a batch (128 bytes each: 128 KiB).
const recBatchLen = 1024

// recBatches is the most batches in circulation, made as the writer falls
// behind (a run it keeps up with makes two or three; the scheduler leaves it
// behind often: the 1M CLI run made 24–32, a 100,000-request run 13, a
// 4,096-request run 4). Together they are the simulation's slack
// (handover.go): 32,768 entries, ~30 ms of the 1M run, before it waits for
// the writer. Larger batches (8,192 entries, 4 of them) saved no more CPU in
// 16 interleaved rounds and would raise the fixed cost of a short run.
const recBatches = 32

// errRecordsFailed ends the simulation once the writer has failed; Run
// returns the writer's own error instead.
var errRecordsFailed = errors.New("sim: writing the records failed")

func newRecWriter(rs *recSide) *recWriter {
	w := &recWriter{rs: rs,
		todo: make(chan *recBatch, recBatches),
		free: make(chan *recBatch, recBatches),
		done: make(chan struct{}),
	}
	w.slots, _ = rs.sink.(SlotSink)
	w.cur = w.newBatch()
	go w.loop()
	return w
}

func (w *recWriter) newBatch() *recBatch {
	w.made++
	return &recBatch{ents: make([]recEntry, recBatchLen)}
}

func (w *recWriter) loop() {
	defer close(w.done)
	for b := range w.todo {
		if !w.failed.Load() {
			w.apply(b)
		}
		clear(b.ents[:b.n]) // no references kept (records, prefixes)
		clear(b.recs[:b.nrec])
		b.n, b.nrec = 0, 0
		w.free <- b
	}
}

// apply runs a batch's entries, stopping at a sink's error or panic.
func (w *recWriter) apply(b *recBatch) {
	defer func() {
		if p := recover(); p != nil {
			w.pan = p
			w.failed.Store(true)
		}
	}()
	slots := w.slots
	for i := range b.ents[:b.n] {
		e := &b.ents[i]
		var err error
		switch {
		case slots != nil && e.kind == entServed:
			// Built in the sink's storage, not copied there by Write.
			r := slots.Slot()
			w.rs.served(e, r)
			id := r.ID
			err = writeErr(id, slots.WriteSlot())
		case !w.rs.apply(e):
			continue
		default:
			err = w.rs.write()
		}
		if err != nil {
			w.err = err
			w.failed.Store(true)
			return
		}
	}
}

// rejRecord returns storage for the record of a rejection whose entry is
// the next one put (it belongs to the batch being filled, which holds at
// most one rejection per entry).
func (w *recWriter) rejRecord() *Record {
	b := w.cur
	if b.recs == nil {
		b.recs = make([]Record, len(b.ents))
	}
	r := &b.recs[b.nrec]
	b.nrec++
	return r
}

// next returns the entry to fill; put hands it over.
func (w *recWriter) next() *recEntry { return &w.cur.ents[w.cur.n] }

// put hands the entry returned by next over; it reports false once the
// writer has failed.
func (w *recWriter) put() bool {
	if w.cur.n++; w.cur.n < len(w.cur.ents) {
		return true
	}
	w.todo <- w.cur
	select {
	case w.cur = <-w.free:
	default:
		if w.made < recBatches {
			w.cur = w.newBatch()
		} else {
			w.waits++
			w.cur = <-w.free
		}
	}
	return !w.failed.Load()
}

// stop hands the last entries over and waits for the writer to end. It may
// be called more than once and on nil.
func (w *recWriter) stop() {
	if w == nil || w.closed {
		return
	}
	w.closed = true
	if w.cur.n > 0 {
		w.todo <- w.cur
	}
	close(w.todo)
	<-w.done
}

// result is the writer's error, once stopped; it raises the writer's panic.
func (w *recWriter) result() error {
	if w == nil {
		return nil
	}
	if w.pan != nil {
		panic(w.pan)
	}
	return w.err
}
