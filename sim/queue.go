package sim

import (
	"math"

	"github.com/fleetsim/fleetsim/engine"
	"github.com/fleetsim/fleetsim/workload"
)

// waiter is a request waiting in a pool's central queue, stored compactly
// (40 bytes, no pointer): everything its flight holds that is not known
// from the queue itself (the pool) or set later (the instance). An
// overloaded pool can hold millions of them; a flight (about 150 bytes and
// a heap object of its own) is rebuilt when an instance is about to take
// the request (waitQueue.Peek).
type waiter struct {
	id        int64
	arrival   float64 // as it arrived (Request.Arrival = flight.fleetArrival)
	in        int32   // Request.InputTokens (the true prompt)
	out       int32   // Request.OutputTokens
	bytes     int32   // Request.Bytes
	served    int32   // engine.Job.In: the prompt as served
	estimated int32
	maxOut    uint16 // Request.MaxOutputTokens - Request.OutputTokens
	category  workload.Category
	flags     uint8 // waitWarmup, waitCompressed, waitBig; the retries above waitRetryShift
}

const (
	waitWarmup = 1 << iota
	waitCompressed
	waitBig        // the flight is kept whole in waitQueue.big
	waitRetryShift = iota
	waitRetryMax   = 1<<(8-waitRetryShift) - 1 // 31
)

// fitsWaiter reports whether fl's values fit a waiter exactly (they always
// do for requests a pool can queue, whose lengths fit its max context; the
// rare others stay flights, in waitQueue.big). A job with a prefix (a pool
// with a prefix cache) stays a flight too: a waiter holds no pointer.
func fitsWaiter(fl *flight) bool {
	r := &fl.req
	for _, v := range [...]int{r.InputTokens, r.OutputTokens, r.Bytes, fl.job.In, fl.estimated} {
		if v < math.MinInt32 || v > math.MaxInt32 {
			return false
		}
	}
	if d := r.MaxOutputTokens - r.OutputTokens; d < 0 || d > math.MaxUint16 {
		return false
	}
	return fl.retries >= 0 && fl.retries <= waitRetryMax && fl.fleetArrival == r.Arrival &&
		fl.job.Out == r.OutputTokens && fl.instance == -1 && fl.job.Prefix == nil
}

// Block sizes of a waitQueue, in waiters: the first block holds
// waitBlockMin (768 B), each new one twice the last up to waitBlockLen
// (48 KiB). A pool under jsq or rr has a queue per instance (privqueue.go):
// one that only ever holds a few requests stays small.
const (
	waitBlockMin = 16
	waitBlockLen = 1024
)

// waitQueue is a pool's central FCFS queue (central dispatch), or one
// instance's (jsq, rr: privqueue.go). It implements engine.Queue so that
// the pool's instances share it. Waiting requests are
// packed into waiters, in blocks that are appended and dropped whole (no
// copying as the queue grows, no slack beyond one block); their flights go
// back to the fleet's table. Peek rebuilds the head's flight (a new tag) and
// keeps it until Pop hands it to the instance: the *engine.Job it returns
// stays valid as long as the flight is in use.
type waitQueue struct {
	fls    *flights
	pool   *pool
	blocks [][]waiter
	head   int      // index of the head in blocks[0]
	tail   int      // waiters used in the last block
	n      int      // waiting requests
	spare  []waiter // the last block used up, for reuse (nil: none)
	grow   int      // size of the next block allocated (0: waitBlockMin)
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

// packed returns the number of waiting requests without a flight: not the
// head once Peek rebuilt it, nor those kept whole in big (their flights
// stay in the fleet's table).
func (q *waitQueue) packed() int {
	n := q.n - len(q.big)
	if q.front != nil {
		n--
	}
	return n
}

// Push appends fl at the tail; fl is released to the fleet's table (kept
// whole when its values do not fit a waiter).
func (q *waitQueue) Push(fl *flight) {
	if nb := len(q.blocks); nb == 0 || q.tail == len(q.blocks[nb-1]) {
		b := q.spare
		if b == nil {
			q.grow = min(waitBlockLen, max(waitBlockMin, 2*q.grow))
			b = make([]waiter, q.grow)
		}
		q.spare = nil
		q.blocks = append(q.blocks, b)
		q.tail = 0
	}
	w := &q.blocks[len(q.blocks)-1][q.tail]
	q.tail++
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
		maxOut: uint16(r.MaxOutputTokens - r.OutputTokens), bytes: int32(r.Bytes), served: int32(fl.job.In),
		estimated: int32(fl.estimated), category: r.Category, flags: uint8(fl.retries) << waitRetryShift}
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
		MaxOutputTokens: int(w.out) + int(w.maxOut), Bytes: int(w.bytes), Category: w.category}
	fl.job = engine.Job{In: int(w.served), Out: int(w.out), Tag: fl.tag}
	fl.fleetArrival = w.arrival
	fl.arrivalPS = engine.Seconds(w.arrival)
	fl.estimated = int(w.estimated)
	fl.retries = int(w.flags >> waitRetryShift)
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
	case q.head == len(q.blocks[0]): // the head block is used up: keep it as the spare
		q.spare = q.blocks[0]
		q.blocks[0] = nil
		q.blocks = q.blocks[1:]
		q.head = 0
	case q.n == 0: // start over at the first slot
		q.head, q.tail = 0, 0
	}
	return j
}
