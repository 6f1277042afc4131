package sim

import (
	"testing"

	"github.com/fleetsim/fleetsim/engine"
	"github.com/fleetsim/fleetsim/workload"
)

// TestPendHeapOrder checks pendHeap against a linear scan on random
// interleavings of pushes and pops, in phases of different depths (sorted
// keys, a heap, and the turns between them): each pop returns the pending result with
// the least (Finished, request ID), whole (its Job.Tag and times intact
// through slot reuse), and the heap empties in that order. The slab never
// holds more results than were ever pending at once (a popped slot is
// reused: without that it would grow by one result per request served),
// nor the keys more than twice that (the sorted keys are moved to the front
// rather than grown).
func TestPendHeapOrder(t *testing.T) {
	rnd := workload.NewRand(2, workload.StreamPlanner)
	type item struct {
		res engine.Result
		id  int64
	}
	var h pendHeap
	var ref []item
	nextID := int64(0)
	peak := 0 // most results pending at once
	heapSteps, sortedAgain := 0, false
	pop := func() {
		best := 0
		for k := range ref {
			if a, b := ref[k], ref[best]; a.res.Finished < b.res.Finished || a.res.Finished == b.res.Finished && a.id < b.id {
				best = k
			}
		}
		want := ref[best]
		ref = append(ref[:best], ref[best+1:]...)
		if h.next() != want.res.Finished {
			t.Fatalf("next %v, want %v", h.next(), want.res.Finished)
		}
		if got := h.pop(); got != want.res {
			t.Fatalf("pop %+v, want %+v", got, want.res)
		}
	}
	limits := []int{8, 64, 300, 20, 200, 3}
	for step := range 30000 {
		// Phases of different depths, so that the keys turn from sorted
		// to a heap (past pendSortedMax) and back (pendSortedBack).
		limit := limits[step/1000%len(limits)]
		if len(ref) == 0 || rnd.IntN(3) > 0 && len(ref) < limit {
			nextID += int64(1 + rnd.IntN(3))
			id := nextID
			if rnd.IntN(2) == 0 { // IDs out of push order too
				id = -id
			}
			r := engine.Result{Job: engine.Job{In: rnd.IntN(100), Tag: int(nextID)},
				Admitted: engine.Time(rnd.IntN(5)), Finished: engine.Time(rnd.IntN(8))} // many ties
			h.push(&r, id)
			ref = append(ref, item{r, id})
		} else {
			pop()
		}
		if h.len() != len(ref) {
			t.Fatalf("len %d, want %d", h.len(), len(ref))
		}
		peak = max(peak, len(ref))
		if h.inHeap {
			heapSteps++
		} else if heapSteps > 0 {
			sortedAgain = true
		}
		if cap(h.keys) > 2*peak+8 {
			t.Fatalf("%d keys' room with at most %d ever pending", cap(h.keys), peak)
		}
		if len(h.slab) > peak || len(h.slab) != h.len()+len(h.free) {
			t.Fatalf("slab of %d results (%d free) with %d pending, at most %d ever pending", len(h.slab), len(h.free), h.len(), peak)
		}
	}
	for len(ref) > 0 {
		pop()
	}
	if heapSteps == 0 || !sortedAgain {
		t.Fatalf("%d steps as a heap, sorted again: %v (the phases must visit both modes)", heapSteps, sortedAgain)
	}
}
