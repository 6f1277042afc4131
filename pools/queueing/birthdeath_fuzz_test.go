package queueing

import (
	"errors"
	"math"
	"slices"
	"testing"
)

// FuzzChainBounds checks the chain solver's bounds on M/M/c and
// occupancy-like chains of any size: it either refuses (unstable, too many
// states) or returns at most max(MaxExactStates, MaxWindowStates) states,
// finite probabilities summing to 1, a truncation bound within
// TruncationTol, a non-increasing P(J >= j) in [0, 1], and — where the
// exact chain is small enough to solve here — the exact chain's values.
//
//	go test ./pools/queueing -run '^$' -fuzz FuzzChainBounds -fuzztime 60s
func FuzzChainBounds(f *testing.F) {
	f.Add(uint64(40), 0.7, 0.0, 1.0)
	f.Add(uint64(3_000_000), 0.999, 0.0, 1.0)
	f.Add(uint64(1<<34), 0.9, 0.001, 0.02)
	f.Add(uint64(50000), 0.5, 0.01, 0.5)
	f.Add(uint64(1), 0.99, 0.0, 1.0)
	f.Fuzz(func(t *testing.T, k uint64, load, slope, w float64) {
		if k == 0 || k > 1<<40 || !(load > 0 && load < 2) || !(slope >= 0 && slope < 10) || !(w > 1e-6 && w < 10) {
			t.Skip()
		}
		c := int(k)
		mu := occMu(c, 1, w, slope) // slope 0: M/M/c with μ = 1/w
		lambda := load * mu(c)
		ch, err := SolveChain(lambda, mu, c)
		if err != nil {
			if load >= 1 && errors.Is(err, ErrUnstable) || errors.Is(err, ErrTooManyStates) {
				return
			}
			t.Fatalf("k %d load %g slope %g w %g: %v", c, load, slope, w, err)
		}
		if load >= 1 {
			t.Fatalf("load %g accepted", load)
		}
		if n := len(ch.P); n > max(MaxExactStates, MaxWindowStates) || ch.Lo < 0 || ch.Hi() > c {
			t.Fatalf("k %d: window [%d, %d], %d states", c, ch.Lo, ch.Hi(), n)
		}
		if !(ch.Truncated >= 0 && ch.Truncated <= TruncationTol) {
			t.Fatalf("k %d: truncated %g", c, ch.Truncated)
		}
		sum := 0.0
		for _, p := range ch.P {
			if !(p >= 0 && p <= 1) {
				t.Fatalf("k %d: probability %v", c, p)
			}
			sum += p
		}
		if ch.Hi() == c {
			sum += ch.P[len(ch.P)-1] * ch.Tail / (1 - ch.Tail)
		}
		if math.Abs(sum-1) > 1e-9 {
			t.Fatalf("k %d: total mass %v", c, sum)
		}
		prev := 1.0
		js := []int{0, ch.Lo, ch.Lo + 1, (ch.Lo + ch.Hi()) / 2, ch.Hi(), c, c + 1}
		slices.Sort(js)
		for _, j := range js {
			p := ch.AtLeast(j)
			if !(p >= 0 && p <= prev+1e-12) {
				t.Fatalf("k %d: P(J >= %d) = %v after %v", c, j, p, prev)
			}
			prev = p
		}
		if c < 100000 && c >= 2 {
			wi, err := solveWindow(lambda, mu, c, MaxWindowStates)
			if err != nil {
				t.Fatalf("k %d: window: %v", c, err)
			}
			for _, j := range []int{0, c / 3, c / 2, c - 1, c} {
				if d := math.Abs(wi.AtLeast(j) - ch.AtLeast(j)); d > 1e-10 {
					t.Fatalf("k %d load %g: P(J >= %d) window %v exact %v", c, load, j, wi.AtLeast(j), ch.AtLeast(j))
				}
			}
		}
	})
}
