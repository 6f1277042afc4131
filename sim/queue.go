package sim

import (
	"math"

	"github.com/fleetsim/fleetsim/engine"
	"github.com/fleetsim/fleetsim/workload"
)

// waiter is a request waiting in a pool's central queue, stored compactly
// (48 bytes, no pointer): everything its flight holds that is not known
// from the queue itself (the pool) or set later (the instance). An
// overloaded pool can hold millions of them; a flight (about 150 bytes and
// a heap object of its own) is rebuilt when an instance is about to take
// the request (waitQueue.Peek).
type waiter struct {
	id        int64
	arrival   float64 // as it arrived (Request.Arrival = flight.fleetArrival)
	in        int32   // Request.InputTokens (the true prompt)
	out       int32   // Request.OutputTokens
	maxOut    int32   // Request.MaxOutputTokens
	bytes     int32   // Request.Bytes
	served    int32   // engine.Job.In: the prompt as served
	estimated int32
	retries   uint16
	category  workload.Category
	flags     uint8 // waitWarmup, waitCompressed, waitBig
}

const (
	waitWarmup = 1 << iota
	waitCompressed
	waitBig // the flight is kept whole in waitQueue.big
)

// fitsWaiter reports whether fl's values fit a waiter exactly (they always
// do for requests a pool can queue, whose lengths fit its max context; the
// rare others stay flights, in waitQueue.big). A job with a prefix (a pool
// with a prefix cache) stays a flight too: a waiter holds no pointer.
func fitsWaiter(fl *flight) bool {
	r := &fl.req
	for _, v := range [...]int{r.InputTokens, r.OutputTokens, r.MaxOutputTokens, r.Bytes, fl.job.In, fl.estimated} {
		if v < math.MinInt32 || v > math.MaxInt32 {
			return false
		}
	}
	return fl.retries >= 0 && fl.retries <= math.MaxUint16 && fl.fleetArrival == r.Arrival &&
		fl.job.Out == r.OutputTokens && fl.instance == -1 && fl.job.Prefix == nil
}

// waitBlockLen is the number of waiters per block of a waitQueue (48 KiB).
const waitBlockLen = 1024

type waitBlock [waitBlockLen]waiter

// waitQueue is a pool's central FCFS queue (central dispatch). It implements
// engine.Queue so that the pool's instances share it. Waiting requests are
// packed into waiters, in blocks that are appended and dropped whole (no
// copying as the queue grows, no slack beyond one block); their flights go
// back to the fleet's table. Peek rebuilds the head's flight (a new tag) and
// keeps it until Pop hands it to the instance: the *engine.Job it returns
// stays valid as long as the flight is in use.
type waitQueue struct {
	fls    *flights
	pool   *pool
	blocks []*waitBlock
	head   int // index of the head in blocks[0]
	n      int // waiting requests
	spare  *waitBlock
	// big holds, by request ID, the flights whose values do not fit a
	// waiter (a waiter with its id and flag waitBig stands for each).
	big map[int64]*flight
	// front is the head's rebuilt flight, nil until Peek.
	front *flight
	// pops counts the requests taken: the head changes exactly when it
	// grows (or when a push makes an empty queue non-empty).
	pops int64
}

// Len returns the number of waiting requests.
func (q *waitQueue) Len() int { return q.n }

// packed returns the number of waiting requests without a flight (the
// head, once Peek rebuilt it, has one).
func (q *waitQueue) packed() int {
	if q.front != nil {
		return q.n - 1
	}
	return q.n
}

// Push appends fl at the tail; fl is released to the fleet's table (kept
// whole when its values do not fit a waiter).
func (q *waitQueue) Push(fl *flight) {
	k := q.head + q.n
	if k == len(q.blocks)*waitBlockLen {
		b := q.spare
		if b == nil {
			b = new(waitBlock)
		}
		q.spare = nil
		q.blocks = append(q.blocks, b)
	}
	w := &q.blocks[k/waitBlockLen][k%waitBlockLen]
	q.n++
	if !fitsWaiter(fl) {
		if q.big == nil {
			q.big = make(map[int64]*flight)
		}
		q.big[fl.req.ID] = fl
		*w = waiter{id: fl.req.ID, flags: waitBig}
		return
	}
	r := &fl.req
	*w = waiter{id: r.ID, arrival: r.Arrival, in: int32(r.InputTokens), out: int32(r.OutputTokens),
		maxOut: int32(r.MaxOutputTokens), bytes: int32(r.Bytes), served: int32(fl.job.In),
		estimated: int32(fl.estimated), retries: uint16(fl.retries), category: r.Category}
	if fl.warmup {
		w.flags |= waitWarmup
	}
	if fl.compressed {
		w.flags |= waitCompressed
	}
	q.fls.release(fl)
}

// Peek returns the job of the head of the line (nil when empty),
// rebuilding its flight on the first call.
func (q *waitQueue) Peek() *engine.Job {
	if q.n == 0 {
		return nil
	}
	if q.front == nil {
		q.front = q.unpack(&q.blocks[0][q.head])
	}
	return &q.front.job
}

// unpack rebuilds the flight of w as it was pushed (a new tag).
func (q *waitQueue) unpack(w *waiter) *flight {
	if w.flags&waitBig != 0 {
		fl := q.big[w.id]
		delete(q.big, w.id)
		return fl
	}
	fl := q.fls.alloc()
	fl.req = workload.Request{ID: w.id, Arrival: w.arrival, InputTokens: int(w.in), OutputTokens: int(w.out),
		MaxOutputTokens: int(w.maxOut), Bytes: int(w.bytes), Category: w.category}
	fl.job = engine.Job{In: int(w.served), Out: int(w.out), Tag: fl.tag}
	fl.fleetArrival = w.arrival
	fl.arrivalPS = engine.Seconds(w.arrival)
	fl.estimated = int(w.estimated)
	fl.retries = int(w.retries)
	fl.warmup = w.flags&waitWarmup != 0
	fl.compressed = w.flags&waitCompressed != 0
	fl.pool = q.pool
	fl.instance = -1
	return fl
}

// Pop removes the head of the line and returns its job (nil when empty).
func (q *waitQueue) Pop() *engine.Job {
	j := q.Peek()
	if j == nil {
		return nil
	}
	q.front = nil
	q.pops++
	q.n--
	q.head++
	switch {
	case q.head == waitBlockLen: // the head block is used up: keep it as the spare
		q.spare = q.blocks[0]
		q.blocks[0] = nil
		q.blocks = q.blocks[1:]
		q.head = 0
	case q.n == 0: // start over at the first slot
		q.head = 0
	}
	return j
}
