package sim

import (
	"math"
	"math/bits"
)

// idxHeap finds, among the instances 0..n-1 of a pool, the one with the
// smallest int64 key (an engine.Time, or a count) and, on equal keys, the
// lower instance index (the explicit tie rule of the fleet model). Every
// instance is always in it; update changes one instance's key.
//
// It is a tournament tree, not a heap: the leaves, padded to a power of
// two, hold the keys in instance order, and each inner node the winner of
// its two children, the left one unless the right one's key is smaller
// (the left subtree holds the lower indices, so that is the tie rule, with
// one comparison). An update replays the matches on the leaf's path to the
// root: log2(leaves) comparisons that the compiler turns into conditional
// moves, where a 4-ary heap's sift took data-dependent branches that the
// processor mispredicts (half the cost of refresh, in profiles of the
// benchmark fleets). Padding leaves hold math.MaxInt64 and lose every tie
// (their indices are the highest).
type idxHeap struct {
	n    int     // instances
	keys []int64 // node k's winning key; leaf of instance i at len(keys)/2 + i
	win  []int32 // node k's winning instance
}

// heapPad is the key of the padding leaves.
const heapPad = math.MaxInt64

func newIdxHeap(n int, key int64) idxHeap {
	var h idxHeap
	h.build(n, func(int) int64 { return key })
	return h
}

// build makes h a tree over n instances with the given keys.
func (h *idxHeap) build(n int, key func(i int) int64) {
	leaves := 1
	for leaves < n {
		leaves *= 2
	}
	h.n = n
	h.keys = make([]int64, 2*leaves)
	h.win = make([]int32, 2*leaves)
	for i := range leaves {
		h.keys[leaves+i], h.win[leaves+i] = heapPad, int32(i)
		if i < n {
			h.keys[leaves+i] = key(i)
		}
	}
	for k := leaves - 1; k >= 1; k-- {
		h.match(k)
	}
}

// match sets inner node k to the winner of its children.
func (h *idxHeap) match(k int) {
	kl, kr := h.keys[2*k], h.keys[2*k+1]
	wl, wr := h.win[2*k], h.win[2*k+1]
	if kr < kl {
		kl, wl = kr, wr
	}
	h.keys[k], h.win[k] = kl, wl
}

// top returns the instance with the smallest key and that key.
func (h *idxHeap) top() (int, int64) { return int(h.win[1]), h.keys[1] }

// key returns instance i's key.
func (h *idxHeap) key(i int) int64 { return h.keys[len(h.keys)/2+i] }

// update sets instance i's key and replays the matches above it.
func (h *idxHeap) update(i int, key int64) {
	keys, win := h.keys, h.win
	k := len(keys)/2 + i
	if keys[k] == key {
		return
	}
	keys[k] = key
	for k > 1 {
		k &^= 1 // the left sibling
		kl, kr := keys[k], keys[k+1]
		wl, wr := win[k], win[k+1] // both read: a select, not a branch
		if kr < kl {
			kl, wl = kr, wr
		}
		k >>= 1
		keys[k], win[k] = kl, wl
	}
}

// grow adds instance n (the old count) with key key.
func (h *idxHeap) grow(key int64) {
	n := h.n
	if n < len(h.keys)/2 { // a padding leaf becomes instance n
		h.n = n + 1
		h.update(n, key)
		return
	}
	old := *h
	h.build(n+1, func(i int) int64 {
		if i == n {
			return key
		}
		return old.key(i)
	})
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
