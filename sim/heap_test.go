package sim

import (
	"math"
	"testing"

	"github.com/fleetsim/fleetsim/workload"
)

// TestIdxHeap checks the heap's top against a linear scan after random
// updates (ties broken by the lower index).
func TestIdxHeap(t *testing.T) {
	rnd := workload.NewRand(1, workload.StreamPlanner)
	for _, n := range []int{1, 2, 5, 17, 100} {
		h := newIdxHeap(n, 0)
		keys := make([]int64, n)
		for range 2000 {
			i := rnd.IntN(n)
			keys[i] = int64(rnd.IntN(10)) // many ties
			h.update(i, keys[i])
			checkTop(t, &h, keys, n)
		}
	}
}

// checkTop checks h's top against a linear scan of keys (ties: the lower
// index); n names the case.
func checkTop(t *testing.T, h *idxHeap, keys []int64, n int) {
	t.Helper()
	best := 0
	for j := range keys {
		if keys[j] < keys[best] {
			best = j
		}
	}
	if g, k := h.top(); g != best || k != keys[best] {
		t.Fatalf("n=%d: top (%d, %v), want (%d, %v)", n, g, k, best, keys[best])
	}
}

// TestIdxHeapExtremeKeys is TestIdxHeap with keys at the ends of int64
// (Never is MaxInt64, also the padding leaves' key), where a comparison by
// subtraction would overflow, many ties among them, sizes on both sides of
// a power of two, and instances added by grow. After every update it checks
// every leaf's key and every inner node (the winner of its children: the
// smaller key, the left one on ties) besides the top.
func TestIdxHeapExtremeKeys(t *testing.T) {
	rnd := workload.NewRand(3, workload.StreamPlanner)
	vals := []int64{math.MinInt64, math.MinInt64 + 1, -1, 0, 1, 2, math.MaxInt64 - 1, math.MaxInt64}
	for _, n := range []int{1, 2, 3, 4, 5, 7, 8, 9, 21, 31, 32, 33, 131} {
		h := newIdxHeap(n, math.MaxInt64)
		keys := make([]int64, n)
		for i := range keys {
			keys[i] = math.MaxInt64
		}
		for step := range 3000 {
			if step%500 == 499 { // an instance added (autoscaling)
				h.grow(math.MaxInt64)
				keys = append(keys, math.MaxInt64)
			}
			i := rnd.IntN(len(keys))
			keys[i] = vals[rnd.IntN(len(vals))]
			h.update(i, keys[i])
			leaves := len(h.keys) / 2
			if leaves < len(keys) || leaves >= 2*len(keys) && leaves > 1 {
				t.Fatalf("n=%d: %d leaves for %d instances", n, leaves, len(keys))
			}
			for j := range leaves {
				want := int64(math.MaxInt64)
				if j < len(keys) {
					want = keys[j]
				}
				if h.key(j) != want || h.win[leaves+j] != int32(j) {
					t.Fatalf("n=%d: leaf %d holds (%d, %d), want (%d, %d)", n, j, h.win[leaves+j], h.key(j), j, want)
				}
			}
			for k := leaves - 1; k >= 1; k-- {
				w, kw := h.win[2*k], h.keys[2*k]
				if h.keys[2*k+1] < kw {
					w, kw = h.win[2*k+1], h.keys[2*k+1]
				}
				if h.win[k] != w || h.keys[k] != kw {
					t.Fatalf("n=%d: node %d holds (%d, %d), its children's winner is (%d, %d)", n, k, h.win[k], h.keys[k], w, kw)
				}
			}
			checkTop(t, &h, keys, n)
		}
	}
}

// TestSlotIndex checks best and candidates against a linear scan.
func TestSlotIndex(t *testing.T) {
	rnd := workload.NewRand(2, workload.StreamPlanner)
	for _, n := range []int{1, 63, 64, 65, 200} {
		const maxFree = 8
		s := newSlotIndex(n, maxFree)
		free := make([]int, n)
		for range 3000 {
			i := rnd.IntN(n)
			free[i] = rnd.IntN(maxFree+3) - 2 // below 0 clamps to 0
			s.set(i, free[i])
			best := -1
			for j := range free {
				if free[j] > 0 && (best < 0 || free[j] > free[best]) {
					best = j
				}
			}
			if g := s.best(); g != best {
				t.Fatalf("n=%d: best %d, want %d (free %v)", n, g, best, free)
			}
		}
		var want []int
		for f := maxFree; f > 0; f-- {
			for j := range free {
				if free[j] == f {
					want = append(want, j)
				}
			}
		}
		got := s.candidates(nil)
		if len(got) != len(want) {
			t.Fatalf("n=%d: candidates %v, want %v", n, got, want)
		}
		for k := range got {
			if got[k] != want[k] {
				t.Fatalf("n=%d: candidates %v, want %v", n, got, want)
			}
		}
	}
}
