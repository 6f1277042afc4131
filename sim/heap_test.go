package sim

import (
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
