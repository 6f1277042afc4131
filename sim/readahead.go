package sim

import "github.com/fleetsim/fleetsim/workload"

// Reading the workload ahead. Generating a request (a CDF draw, the split,
// the category, the arrival) is work that does not depend on the run, so a
// run of a source that says so (workload.SelfContained) and that is long
// enough reads it on a goroutine of its own, readAheadBatch requests at a
// time, while the simulation goroutine copies them out: the same requests
// in the same order, and the source's error (Err) after the same request.
// Batches go round between the two goroutines through two channels; the
// producer stops at the source's end, or when the run ends first
// (readAhead.stop, deferred by fleet.run), and Run returns only after it
// has.

// readAheadBatch is the number of requests in one batch (64 bytes each).
const readAheadBatch = 4096

// readAheadBatches is the number of batches in circulation: one being read
// by the run, the others being filled or waiting for it. Together they are
// the simulation's slack (handover.go): 32,768 requests, ~30 ms of the 1M
// run.
const readAheadBatches = 8

// readAheadMin is the least number of requests (workload.Sized) for which a
// source is read ahead: a shorter run reads it directly, paying for no
// goroutine or batch.
const readAheadMin = 2 * readAheadBatch

// readAhead is the run's side of a source read ahead.
type readAhead struct {
	full chan *raBatch // filled batches, in order
	free chan *raBatch // batches read out, for the producer to refill
	quit chan struct{} // closed by stop: the producer must end
	done chan struct{} // closed by the producer when it ends
	cur  *raBatch      // the batch being read out
	i    int           // next request in cur
	err  error         // the source's error, once its end is reached
	pan  any           // what the source panicked with (set before done closes)
	// waits counts the batches not ready when the run wanted them
	// (handover.go).
	waits int
	made  int // batches made (readAheadBatches, fewer for a short run)
}

// raBatch is one batch of requests.
type raBatch struct {
	reqs []workload.Request // the requests read (len <= readAheadBatch)
	end  bool               // the source ended after reqs
	err  error              // the source's Err at its end
	pan  bool               // the source panicked after reqs (readAhead.pan)
}

// newReadAhead starts reading src ahead when it is self-contained and
// holds at least readAheadMin requests; it returns nil otherwise (src is
// then read directly).
func newReadAhead(src workload.Source) *readAhead {
	if _, ok := src.(workload.SelfContained); !ok {
		return nil
	}
	sz, ok := src.(workload.Sized)
	if !ok || sz.Len() < readAheadMin {
		return nil
	}
	ra := &readAhead{
		full: make(chan *raBatch, readAheadBatches),
		free: make(chan *raBatch, readAheadBatches),
		quit: make(chan struct{}),
		done: make(chan struct{}),
		cur:  &raBatch{}, // empty: the first next receives
	}
	// No more batches than the run's requests fill (a run of 8,192 needs
	// two: the producer's end is an empty batch, refilled from a read one).
	// Len is capped before it is rounded up: near math.MaxInt64 the sum
	// would overflow and make no batch, and the run would wait forever.
	fill := min(sz.Len(), readAheadBatches*readAheadBatch)
	ra.made = int((fill + readAheadBatch - 1) / readAheadBatch)
	for range ra.made {
		ra.free <- &raBatch{reqs: make([]workload.Request, readAheadBatch)}
	}
	go ra.produce(src)
	return ra
}

// produce fills batches from src until its end or until stop.
// A panic of the source ends the producer: the batch it was filling goes
// to the run with the requests read before it, and the run panics with it
// once it has taken them (refill), at the same request as read directly.
func (ra *readAhead) produce(src workload.Source) {
	defer close(ra.done)
	var b *raBatch
	n := 0
	defer func() {
		if p := recover(); p != nil {
			ra.pan = p
			b.reqs, b.end, b.pan = b.reqs[:n], true, true
			ra.full <- b // never blocks: full has room for every batch
		}
	}()
	for {
		select {
		case b = <-ra.free:
		case <-ra.quit:
			return
		}
		b.reqs = b.reqs[:cap(b.reqs)]
		n = 0
		for n < len(b.reqs) && src.Next(&b.reqs[n]) {
			n++
		}
		b.reqs = b.reqs[:n]
		if n < cap(b.reqs) {
			b.end, b.err = true, src.Err()
		}
		select {
		case ra.full <- b:
		case <-ra.quit:
			return
		}
		if b.end {
			return
		}
	}
}

// Next copies the next request into r and reports whether there was one
// (false at the source's end; Err then gives its error): a readAhead is the
// workload.Source the run reads in place of the one it reads ahead.
func (ra *readAhead) Next(r *workload.Request) bool {
	if ra.i == len(ra.cur.reqs) && !ra.refill() {
		return false
	}
	*r = ra.cur.reqs[ra.i]
	ra.i++
	return true
}

// Err is the source's error, once Next has reported the end.
func (ra *readAhead) Err() error { return ra.err }

// refill hands the read batch back and takes the next; false at the end.
func (ra *readAhead) refill() bool {
	if ra.cur.end {
		if ra.cur.pan {
			panic(ra.pan)
		}
		return false
	}
	if ra.cur.reqs != nil {
		ra.free <- ra.cur // never blocks: free holds every batch
	}
	if len(ra.full) == 0 {
		ra.waits++
	}
	select {
	case ra.cur = <-ra.full:
	case <-ra.done: // the producer ended: a batch sent before (its last)
		select {
		case ra.cur = <-ra.full:
		default: // it sent none: it never returns so without stop
			panic(ra.pan)
		}
	}
	ra.i = 0
	if ra.cur.end {
		ra.err = ra.cur.err
	}
	if len(ra.cur.reqs) == 0 {
		return ra.refill() // the end, or the source's panic
	}
	return true
}

// stop ends the producer and waits for it. It may be called more than once
// and on nil.
func (ra *readAhead) stop() {
	if ra == nil {
		return
	}
	select {
	case <-ra.quit:
	default:
		close(ra.quit)
	}
	<-ra.done
}
