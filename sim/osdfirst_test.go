package sim

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fleetsim/fleetsim/engine"
)

// TestFirstQueueSameAsHeap: the first-token queue (a sorted run with a heap
// for tokens that would move back past more than firstMaxShift others)
// gives the tokens back in the order one heap under firstLess does, on
// adversarial streams: in order, reversed (every token to the heap), many
// at the same time (ties by arrival, across the run and the heap), random
// jitter of a few places and of hundreds, bursts that move back exactly
// firstMaxShift and firstMaxShift + 1 places, drained at random times
// (every token at once, none, a part; limits of ±Inf and NaN) and grown past the run's first
// buffer while its front has wrapped.
func TestFirstQueueSameAsHeap(t *testing.T) {
	r := rand.New(rand.NewPCG(20, 2))
	toHeap := 0
	for trial := range 400 {
		var q firstQueue
		var h firstHeap
		var seq uint64
		now := engine.Time(0)
		mode := trial % 6
		pops := 0
		for i := range 3000 {
			var tk engine.Time
			switch mode {
			case 0: // in order, ties
				tk = now + engine.Time(r.IntN(3))
			case 1: // reversed runs
				tk = now + engine.Time(5000-i%200)
			case 2: // all at one time
				tk = now
			case 3: // jitter of a few places
				tk = now + engine.Time(r.IntN(20))
			case 4: // jitter of hundreds
				tk = now + engine.Time(r.IntN(1000))
			default: // bursts moving back exactly firstMaxShift (+1)
				k := i % (firstMaxShift + 2)
				tk = now + engine.Time(1000-k*(1+r.IntN(2)))
			}
			arr := tk - engine.Time(r.IntN(1000))
			pool := int32(r.IntN(3))
			q.pushToken(tk, arr, pool)
			seq++
			h.push(firstEv{t: tk.Seconds(), ttft: (tk - arr).Seconds(), seq: seq, pool: pool})
			if r.IntN(4) == 0 {
				now += engine.Time(r.IntN(50))
				limit := now.Seconds()
				switch r.IntN(8) {
				case 0:
					limit = 1e300 // everything
				case 1:
					limit = -1 // nothing
				case 2: // not a time: as the heap's test t <= limit, nothing
					limit = math.NaN()
				case 3:
					limit = math.Inf(1)
				case 4:
					limit = math.Inf(-1)
				}
				for {
					a, okA := q.next(limit)
					okB := len(h) > 0 && h[0].t <= limit
					if okA != okB {
						t.Fatalf("trial %d event %d: queue gives a token %v, heap %v (limit %v)", trial, i, okA, okB, limit)
					}
					if !okA {
						break
					}
					b := h.pop()
					if a != b {
						t.Fatalf("trial %d event %d: queue gives %+v, heap %+v", trial, i, a, b)
					}
					pops++
				}
			}
			toHeap = max(toHeap, len(q.rest))
		}
		for len(h) > 0 {
			a, ok := q.next(1e300)
			if b := h.pop(); !ok || a != b {
				t.Fatalf("trial %d at the end: queue gives %+v (%v), heap %+v", trial, a, ok, b)
			}
		}
		if _, ok := q.next(1e300); ok {
			t.Fatalf("trial %d: queue holds a token the heap does not", trial)
		}
	}
	if toHeap == 0 {
		t.Error("no token went to the heap")
	}
}
