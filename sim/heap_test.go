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
	}
}

// TestIdxHeapExtremeKeys is TestIdxHeap with keys at the ends of int64
// (Never is MaxInt64), where a comparison by subtraction would overflow,
// many ties among them, and sizes whose last node has 1 to 4 children. It
// checks the whole heap order and the positions after every update.
func TestIdxHeapExtremeKeys(t *testing.T) {
	rnd := workload.NewRand(3, workload.StreamPlanner)
	vals := []int64{math.MinInt64, math.MinInt64 + 1, -1, 0, 1, 2, math.MaxInt64 - 1, math.MaxInt64}
	for _, n := range []int{2, 3, 4, 5, 6, 7, 8, 9, 21, 22, 23, 24, 131} {
		h := newIdxHeap(n, math.MaxInt64)
		keys := make([]int64, n)
		for i := range keys {
			keys[i] = math.MaxInt64
		}
		for range 3000 {
			i := rnd.IntN(n)
			keys[i] = vals[rnd.IntN(len(vals))]
			h.update(i, keys[i])
			for k, nd := range h.heap {
				if h.pos[nd.i] != int32(k) || nd.key != keys[nd.i] {
					t.Fatalf("n=%d: node %d holds (%d, %d): pos %d, key %d", n, k, nd.i, nd.key, h.pos[nd.i], keys[nd.i])
				}
				if p := (k - 1) / 4; k > 0 {
					if pn := h.heap[p]; pn.key > nd.key || (pn.key == nd.key && pn.i > nd.i) {
						t.Fatalf("n=%d: parent %d (%d, %d) after child %d (%d, %d)", n, p, pn.i, pn.key, k, nd.i, nd.key)
					}
				}
			}
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
