package sim

import "github.com/fleetsim/fleetsim/engine"

// pendHeap holds the fleet's finished results not yet emitted, popped in
// (Finished, request ID) order (resHeap's order; results equal in both,
// which only a source repeating an ID can give, leave in an unspecified
// but deterministic order). It orders 24-byte keys; the results (104 bytes
// each) stay put in a slab, each reused once popped, so that moves are of
// keys, not results.
//
// A few results are pending at a time in a run that is not draining (those
// that finish within the iterations in progress: 4 to 16 in the benchmark
// fleets), and most new ones finish after most pending ones: there the keys
// are kept sorted, a push inserted by a scan from the back and a pop taken
// from the front, which costs less than a heap's sifts (whose comparisons
// the processor mispredicts). Past pendSortedMax pending (a drain steps a
// second of simulated time at once; an overloaded pool) the keys become a
// binary min-heap, so that a push stays O(log n), and sorted again once
// pendSortedBack or fewer remain.
type pendHeap struct {
	keys   []pendKey // sorted: keys[head:] ascending; heap mode: a min-heap, head 0
	head   int
	inHeap bool
	slab   []engine.Result
	free   []int32 // slab slots to reuse
}

// pendSortedMax is the most pending results kept sorted; pendSortedBack the
// number at which a heap turns sorted again (below pendSortedMax, so that
// the mode does not flip at every push and pop).
const (
	pendSortedMax  = 64
	pendSortedBack = 16
)

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
func (h *pendHeap) len() int { return len(h.keys) - h.head }

// next is the earliest pending Finished time; the heap must not be empty.
func (h *pendHeap) next() engine.Time { return h.keys[h.head].fin }

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
	x := pendKey{r.Finished, id, slot}
	if !h.inHeap && h.len() >= pendSortedMax {
		h.compact() // sorted from index 0: already a min-heap
		h.inHeap = true
	}
	if h.inHeap {
		h.keys = append(h.keys, x)
		siftUp(h.keys, len(h.keys)-1, pendLess)
		return
	}
	if h.head > 0 && len(h.keys) == cap(h.keys) {
		h.compact() // rather than grow
	}
	h.keys = append(h.keys, x)
	s := h.keys
	k := len(s) - 1
	for k > h.head && pendLess(&x, &s[k-1]) {
		s[k] = s[k-1]
		k--
	}
	s[k] = x
}

// compact moves the sorted keys to the front.
func (h *pendHeap) compact() {
	n := copy(h.keys, h.keys[h.head:])
	h.keys = h.keys[:n]
	h.head = 0
}

// pop removes and returns the earliest result (ties: the lower request ID).
func (h *pendHeap) pop() engine.Result {
	slot := h.take()
	r := h.slab[slot]
	h.release(slot)
	return r
}

// take removes the earliest result from the order and returns its slab
// slot, which holds it until release: the caller reads it in place
// (&h.slab[slot], read before any push, which may move the slab: a
// pointer taken before still reads the result, from the slab's old array).
func (h *pendHeap) take() int32 {
	slot := h.keys[h.head].slot
	if !h.inHeap {
		if h.head++; h.head == len(h.keys) {
			h.keys, h.head = h.keys[:0], 0
		}
		return slot
	}
	n := len(h.keys) - 1
	h.keys[0] = h.keys[n]
	h.keys = h.keys[:n]
	siftDown(h.keys, 0, pendLess)
	if n <= pendSortedBack {
		h.inHeap = false
		s := h.keys
		for i := 1; i < len(s); i++ { // insertion sort: a few keys, rarely
			x := s[i]
			k := i
			for k > 0 && pendLess(&x, &s[k-1]) {
				s[k] = s[k-1]
				k--
			}
			s[k] = x
		}
	}
	return slot
}

// release frees the slot of a result taken (take).
func (h *pendHeap) release(slot int32) {
	h.slab[slot].Job.Prefix, h.slab[slot].Reason = nil, "" // no reference kept
	h.free = append(h.free, slot)
}
