package engine

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestDecoderHeap checks the decoder heap (4-ary, branch-free choice of
// the smallest child) against a sorted list under random additions,
// removals of the top and of arbitrary members, with many equal fins (ties
// broken by ord) and keys up to 2^62 (decBelow compares them as unsigned
// 128-bit numbers).
func TestDecoderHeap(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := 0; round < 200; round++ {
		e := &Engine{bt: 16, btShift: 4}
		e.cnt = e.cntBuf[:16]
		var ref []decEnt
		ord := int64(0)
		spread := []int{1, 3, 50, 1 << 62}[round%4]
		for op := 0; op < 400; op++ {
			switch r := rng.IntN(10); {
			case r < 5 || len(ref) == 0:
				ord += 1 + rng.Int64N(3)
				s := &seq{ord: ord}
				d := decEnt{fin: rng.IntN(spread), ord: ord, s: s}
				e.dec = append(e.dec, d)
				e.heapUp(len(e.dec) - 1)
				ref = append(ref, d)
			case r < 8:
				slices.SortFunc(ref, func(a, b decEnt) int {
					if decLess(&a, &b) {
						return -1
					}
					return 1
				})
				if got, want := e.dec[0], ref[0]; got != want {
					t.Fatalf("round %d op %d: top %+v, want %+v", round, op, got, want)
				}
				e.removeTop(e.dec[0].s)
				ref = ref[1:]
			default:
				k := rng.IntN(len(ref))
				e.removeDecoder(ref[k].s)
				ref = slices.Delete(ref, k, k+1)
			}
			for i := 1; i < len(e.dec); i++ {
				if decLess(&e.dec[i], &e.dec[(i-1)/4]) {
					t.Fatalf("round %d op %d: entry %d below its parent", round, op, i)
				}
			}
			if len(e.dec) != len(ref) {
				t.Fatalf("round %d op %d: %d entries, want %d", round, op, len(e.dec), len(ref))
			}
		}
	}
}

// TestDecBelow checks the branch-free comparison against decLess on keys
// near the ends of their range.
func TestDecBelow(t *testing.T) {
	vals := []int{0, 1, 2, 1<<31 - 1, 1 << 31, 1<<62 - 1, 1 << 62, 1<<63 - 1}
	for _, f1 := range vals {
		for _, f2 := range vals {
			for _, o1 := range vals[1:] {
				for _, o2 := range vals[1:] {
					a, b := decEnt{fin: f1, ord: int64(o1)}, decEnt{fin: f2, ord: int64(o2)}
					want := 0
					if decLess(&a, &b) {
						want = 1
					}
					if got := decBelow(&a, &b); got != want {
						t.Fatalf("decBelow(%+v, %+v) = %d, want %d", a, b, got, want)
					}
				}
			}
		}
	}
}
