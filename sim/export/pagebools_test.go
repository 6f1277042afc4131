package export

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestAddBoolsBitByBit: addBools, given words of 1 to 64 values at any bit
// offset, leaves the bytes, count and seen values that adding the values one
// at a time gives (PLAIN booleans: value k is bit k%8 of byte k/8, the bits
// past the last value clear). The words are random, all true, all false,
// and one value off either.
func TestAddBoolsBitByBit(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 20))
	for trial := range 300 {
		c := &pageColumn{kind: colBool}
		var want []byte
		nbits := 0
		anyTrue, anyFalse := false, false
		for range rng.IntN(40) + 1 {
			n := rng.IntN(chunkRows) + 1
			if rng.IntN(4) == 0 {
				n = []int{1, 7, 8, 9, 63, 64}[rng.IntN(6)]
			}
			all := ^uint64(0) >> (64 - n)
			m := rng.Uint64() & all
			switch rng.IntN(6) {
			case 0:
				m = all
			case 1:
				m = 0
			case 2:
				m = all &^ (1 << rng.IntN(n))
			case 3:
				m = 1 << rng.IntN(n)
			}
			c.addBools(m, n)
			for i := range n {
				if nbits%8 == 0 {
					want = append(want, 0)
				}
				if m>>i&1 == 1 {
					want[nbits/8] |= 1 << (nbits % 8)
					anyTrue = true
				} else {
					anyFalse = true
				}
				nbits++
			}
			if !bytes.Equal(c.bits, want) || c.nbits != nbits || c.anyTrue != anyTrue || c.anyFalse != anyFalse {
				t.Fatalf("trial %d, after %d values (the last %d: %#x): bits %x nbits %d true %v false %v, want %x %d %v %v",
					trial, nbits, n, m, c.bits, c.nbits, c.anyTrue, c.anyFalse, want, nbits, anyTrue, anyFalse)
			}
		}
	}
}
