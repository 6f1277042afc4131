package sim

import (
	"math/bits"
)

// idxHeap is an indexed 4-ary min-heap over the instances 0..n-1 of a pool,
// ordered by an int64 key (an engine.Time, or a count) and, on equal keys,
// by the lower instance index
// (the explicit tie rule of the fleet model). Every instance is always in
// the heap; update moves one instance after its key changed. Keys live in
// the heap nodes (no indirection when comparing). It replaces container/heap
// on the hot path: no interface calls, no boxing.
type idxHeap struct {
	heap []heapNode
	pos  []int32 // pos[i] = heap position of instance i
}

type heapNode struct {
	key int64
	i   int32
}

func newIdxHeap(n int, key int64) idxHeap {
	h := idxHeap{heap: make([]heapNode, n), pos: make([]int32, n)}
	for i := range n {
		h.heap[i], h.pos[i] = heapNode{key, int32(i)}, int32(i)
	}
	return h
}

func nodeLess(a, b heapNode) bool {
	if a.key != b.key {
		return a.key < b.key
	}
	return a.i < b.i
}

// top returns the instance with the smallest key and that key.
func (h *idxHeap) top() (int, int64) { return int(h.heap[0].i), h.heap[0].key }

// key returns instance i's key.
func (h *idxHeap) key(i int) int64 { return h.heap[h.pos[i]].key }

// update sets instance i's key and restores the heap order.
func (h *idxHeap) update(i int, key int64) {
	k := int(h.pos[i])
	old := h.heap[k].key
	if old == key {
		return
	}
	h.heap[k].key = key
	if key < old {
		h.up(k)
	} else {
		h.down(k)
	}
}

func (h *idxHeap) up(k int) {
	x := h.heap[k]
	for k > 0 {
		p := (k - 1) / 4
		if !nodeLess(x, h.heap[p]) {
			break
		}
		h.heap[k] = h.heap[p]
		h.pos[h.heap[k].i] = int32(k)
		k = p
	}
	h.heap[k] = x
	h.pos[x.i] = int32(k)
}

func (h *idxHeap) down(k int) {
	n := len(h.heap)
	x := h.heap[k]
	for {
		c := 4*k + 1
		if c >= n {
			break
		}
		m := c
		for j := c + 1; j < min(c+4, n); j++ {
			if nodeLess(h.heap[j], h.heap[m]) {
				m = j
			}
		}
		if !nodeLess(h.heap[m], x) {
			break
		}
		h.heap[k] = h.heap[m]
		h.pos[h.heap[k].i] = int32(k)
		k = m
	}
	h.heap[k] = x
	h.pos[x.i] = int32(k)
}

// slotIndex finds the instance with the most free slots (ties: the lowest
// index) in O(1) updates: one bitset of instances per free-slot count.
// Central dispatch asks it for candidates; it replaces a heap whose sifts
// dominated big pools.
type slotIndex struct {
	words int      // 64-bit words per bucket
	bits  []uint64 // bucket b holds bits[b*words : (b+1)*words]
	cnt   []int    // instances per bucket
	where []int32  // bucket of each instance
	top   int      // no bucket above top is non-empty
}

// slotIndexMaxBuckets bounds the index's memory for absurd slot counts
// (max_ctx of a few tokens): instances with more free slots than this share
// the top bucket, ordered by index.
const slotIndexMaxBuckets = 1 << 12

func newSlotIndex(n, maxFree int) slotIndex {
	maxFree = min(maxFree, slotIndexMaxBuckets-1)
	w := (n + 63) / 64
	s := slotIndex{words: w, bits: make([]uint64, (maxFree+1)*w), cnt: make([]int, maxFree+1), where: make([]int32, n)}
	for i := range n {
		s.where[i] = -1
		s.set(i, 0)
	}
	return s
}

// set files instance i under free (clamped to [0, max]).
func (s *slotIndex) set(i, free int) {
	b := min(max(free, 0), len(s.cnt)-1)
	old := int(s.where[i])
	if old == b {
		return
	}
	word, bit := i/64, uint64(1)<<(i%64)
	if old >= 0 {
		s.bits[old*s.words+word] &^= bit
		s.cnt[old]--
	}
	s.bits[b*s.words+word] |= bit
	s.cnt[b]++
	s.where[i] = int32(b)
	if b > s.top {
		s.top = b
	}
}

// best returns the instance with the most free slots (lowest index among
// equals), or -1 when no instance has a free slot.
func (s *slotIndex) best() int {
	for s.top > 0 && s.cnt[s.top] == 0 {
		s.top--
	}
	if s.top == 0 {
		return -1
	}
	return s.first(s.top, 0)
}

// first returns the lowest instance >= from in bucket b, or -1.
func (s *slotIndex) first(b, from int) int {
	row := s.bits[b*s.words : (b+1)*s.words]
	for w := from / 64; w < len(row); w++ {
		x := row[w]
		if w == from/64 {
			x &= ^uint64(0) << (from % 64)
		}
		if x != 0 {
			return w*64 + bits.TrailingZeros64(x)
		}
	}
	return -1
}

// candidates appends the instances with a free slot in dispatch order:
// most free slots first, then lowest index.
func (s *slotIndex) candidates(out []int) []int {
	for b := len(s.cnt) - 1; b > 0; b-- {
		if s.cnt[b] == 0 {
			continue
		}
		for i := s.first(b, 0); i >= 0; i = s.first(b, i+1) {
			out = append(out, i)
		}
	}
	return out
}
