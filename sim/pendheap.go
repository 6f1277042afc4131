package sim

import "github.com/fleetsim/fleetsim/engine"

// pendHeap holds the fleet's finished results not yet emitted, popped in
// (Finished, request ID) order (resHeap's order). The heap orders 24-byte
// keys; the results (104 bytes each) stay put in a slab, each reused once
// popped, so a sift moves keys, not results.
type pendHeap struct {
	keys []pendKey
	slab []engine.Result
	free []int32 // slab slots to reuse
}

// pendKey is a pending result's place in the order and its slab slot.
type pendKey struct {
	fin  engine.Time
	id   int64
	slot int32
}

func pendLess(a, b *pendKey) bool {
	if a.fin != b.fin {
		return a.fin < b.fin
	}
	return a.id < b.id
}

// len is the number of pending results.
func (h *pendHeap) len() int { return len(h.keys) }

// next is the earliest pending Finished time; the heap must not be empty.
func (h *pendHeap) next() engine.Time { return h.keys[0].fin }

// push adds r, finished by the request with the given ID.
func (h *pendHeap) push(r *engine.Result, id int64) {
	var slot int32
	if n := len(h.free); n > 0 {
		slot = h.free[n-1]
		h.free = h.free[:n-1]
		h.slab[slot] = *r
	} else {
		slot = int32(len(h.slab))
		h.slab = append(h.slab, *r)
	}
	h.keys = append(h.keys, pendKey{r.Finished, id, slot})
	siftUp(h.keys, len(h.keys)-1, pendLess)
}

// pop removes and returns the earliest result (ties: the lower request ID).
func (h *pendHeap) pop() engine.Result {
	slot := h.keys[0].slot
	r := h.slab[slot]
	h.slab[slot] = engine.Result{} // no reference kept (Job.Prefix)
	h.free = append(h.free, slot)
	n := len(h.keys) - 1
	h.keys[0] = h.keys[n]
	h.keys = h.keys[:n]
	siftDown(h.keys, 0, pendLess)
	return r
}
