package queueing

import (
	"errors"
	"fmt"
	"math"
)

// Chain is the stationary distribution of a birth–death chain over the
// number j = 0, 1, 2, … of requests in a system with a constant arrival rate
// λ and state-dependent departure rates μ(j), j >= 1, constant from state K
// on: μ(j) = μ(K) for j >= K. Its balance equations are
//
//	π(j) = π(j−1)·λ/μ(j)            (j >= 1)
//	π(K+i) = π(K)·ρ_K^i             (ρ_K = λ/μ(K) < 1: a geometric tail)
//
// With μ(j) = min(j, c)·μ and K = c it is M/M/c (Erlang C); with μ(j)
// growing slower than j it models a server whose requests slow down as it
// fills (the occupancy model, pools/occupancy).
//
// The chain holds the states Lo..Hi explicitly (P[i] = π(Lo+i)), plus the
// geometric tail beyond K when Hi = K. Up to MaxExactStates states (K + 1
// <= MaxExactStates) it holds all of 0..K. Beyond that it holds the window
// around the mode outside which the probability mass is at most
// TruncationTol (Truncated is the bound that was reached): see SolveChain.
type Chain struct {
	// Lo is the first explicit state.
	Lo int
	// P holds π(Lo..Hi).
	P []float64
	// KState is K, the state from which μ is constant.
	KState int
	// Tail is ρ_K = λ/μ(K), the ratio of the geometric tail beyond K.
	Tail float64
	// MuK is μ(K), the departure rate of every state >= K, 1/s.
	MuK float64
	// Lambda is the arrival rate, 1/s.
	Lambda float64
	// Truncated is an upper bound on the probability mass of the states
	// the window leaves out (below Lo, above Hi): 0 when the chain is
	// exact, at most TruncationTol otherwise. Every probability the chain
	// returns is within Truncated of the untruncated chain's.
	Truncated float64
}

// ErrUnstable is returned when λ >= μ(K): the chain has no stationary
// distribution (the number in system grows without bound).
var ErrUnstable = errors.New("unstable: the arrival rate is at or above the largest departure rate")

// ErrTooManyStates is returned when the window the truncation bound needs
// holds more than MaxWindowStates states.
var ErrTooManyStates = errors.New("the birth–death chain needs more states than the planner holds (a lower rate is answered)")

// Bounds of SolveChain.
const (
	// MaxExactStates is the largest K + 1 solved over every state 0..K
	// (two float64 slices: 32 MiB at most).
	MaxExactStates = 1 << 21
	// MaxWindowStates bounds the window of a truncated chain (one float64
	// slice: 64 MiB at most). A window this wide is reached only when the
	// standard deviation of J exceeds about 5·10⁵ requests.
	MaxWindowStates = 1 << 23
	// TruncationTol bounds the probability mass a truncated chain leaves
	// out, below its window and above it together.
	TruncationTol = 1e-12
)

// SolveChain returns the stationary distribution of the chain with arrival
// rate lambda (> 0, 1/s) and departure rates mu(1..k) (> 0, 1/s), constant
// at mu(k) beyond k (k >= 1). It works in logarithms, so the weights never
// overflow.
//
// Up to MaxExactStates states it solves every state. Beyond, μ must be
// non-decreasing (so the weights are unimodal): it finds the mode m (the
// last j with μ(j) <= λ) by bisection and walks down and up from it,
// stopping at the first state L below (U above) at which the mass left out
// is provably small: for non-decreasing μ,
//
//	Σ_{i<L} π(i) <= π(L)·r/(1−r),  r = μ(L)/λ   (the ratios below L are <= r)
//	Σ_{i>U} π(i) <= π(U)·s/(1−s),  s = λ/μ(U+1) (the ratios above U are <= s)
//
// and it stops when each bound is at most TruncationTol/2 of π(m) (hence of
// the total mass). The window is about 15 standard deviations of J wide.
// A window wider than MaxWindowStates is ErrTooManyStates; a decreasing μ
// met on the walk is an error. μ outside the window is not evaluated, so
// a μ that rises again below L or falls again above U (not
// non-decreasing) goes unnoticed and voids the bound: the caller
// guarantees monotonicity (the occupancy model's μ(j) = r/(E[k]·(W + β·r/G)),
// r = min(j, G·N), has derivative W/… > 0 for W > 0).
func SolveChain(lambda float64, mu func(j int) float64, k int) (Chain, error) {
	if !(lambda > 0) || math.IsInf(lambda, 0) {
		return Chain{}, fmt.Errorf("arrival rate %v: must be finite and > 0", lambda)
	}
	if k < 1 {
		return Chain{}, fmt.Errorf("states %d: must be >= 1", k)
	}
	if k < MaxExactStates {
		return solveExact(lambda, mu, k)
	}
	return solveWindow(lambda, mu, k, MaxWindowStates)
}

// monotoneSlack is the relative decrease of μ between neighbours that the
// truncated walk takes for rounding, not for a decreasing rate.
const monotoneSlack = 1e-12

// rate returns μ(j), checked.
func rate(mu func(int) float64, j int) (float64, error) {
	m := mu(j)
	if !(m > 0) || math.IsInf(m, 0) {
		return 0, fmt.Errorf("departure rate μ(%d) = %v: must be finite and > 0", j, m)
	}
	return m, nil
}

// solveExact solves every state 0..k.
func solveExact(lambda float64, mu func(j int) float64, k int) (Chain, error) {
	logw := make([]float64, k+1)
	ll := math.Log(lambda)
	top := 0.0
	var muK float64
	for j := 1; j <= k; j++ {
		m, err := rate(mu, j)
		if err != nil {
			return Chain{}, err
		}
		logw[j] = logw[j-1] + ll - math.Log(m)
		top = math.Max(top, logw[j])
		muK = m
	}
	rho := lambda / muK
	if rho >= 1 {
		return Chain{}, ErrUnstable
	}
	for j, lw := range logw {
		logw[j] = math.Exp(lw - top)
	}
	c := Chain{P: logw, KState: k, Tail: rho, MuK: muK, Lambda: lambda}
	c.normalize()
	return c, nil
}

// normalize scales P (and the tail) to total mass 1.
func (c *Chain) normalize() {
	sum := 0.0
	for _, p := range c.P {
		sum += p
	}
	if c.Hi() == c.KState {
		sum += c.P[len(c.P)-1] * c.Tail / (1 - c.Tail)
	}
	for j := range c.P {
		c.P[j] /= sum
	}
	c.Truncated /= sum
}

// solveWindow solves the window of states around the mode that holds all
// but TruncationTol of the mass; at most maxStates states. Inside the
// window every weight relative to the mode's is above ~1e-30, so the
// weights are built by products in linear space (no logarithms, no
// underflow).
func solveWindow(lambda float64, mu func(j int) float64, k, maxStates int) (Chain, error) {
	muK, err := rate(mu, k)
	if err != nil {
		return Chain{}, err
	}
	rho := lambda / muK
	if rho >= 1 {
		return Chain{}, ErrUnstable
	}
	// Mode: the last j in [0, k) with μ(j) <= λ (0 if none); μ(k) > λ.
	lo, hi := 0, k // μ(lo) <= λ or lo = 0; μ(hi) > λ
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		m, err := rate(mu, mid)
		if err != nil {
			return Chain{}, err
		}
		if m <= lambda {
			lo = mid
		} else {
			hi = mid
		}
	}
	mode := lo
	tol := TruncationTol / 2
	tooMany := func() error {
		return fmt.Errorf("%w: more than %d around the mode %d of %d (arrival rate %.4g/s)", ErrTooManyStates, maxStates, mode, k, lambda)
	}
	// Down from the mode, w(j−1) = w(j)·μ(j)/λ with w(mode) = 1, to the
	// first L whose bound on the mass below is small enough. Walked twice:
	// to find L, then to fill the window (no slice grows).
	down := func(fill []float64) (lo int, below float64, err error) {
		wj, prev := 1.0, math.Inf(1)
		for j := mode; j > 0; j-- {
			if fill != nil {
				fill[j-(mode-len(fill)+1)] = wj
			}
			m, err := rate(mu, j)
			if err != nil {
				return 0, 0, err
			}
			if m > prev*(1+monotoneSlack) {
				return 0, 0, fmt.Errorf("departure rate μ(%d) = %v > μ(%d) = %v: a truncated chain needs non-decreasing rates", j, m, j+1, prev)
			}
			prev = m
			if r := m / lambda; r < 1 {
				if b := wj * r / (1 - r); b <= tol {
					return j, b, nil
				}
			}
			if mode-j+1 >= maxStates {
				return 0, 0, tooMany()
			}
			wj *= m / lambda
		}
		if fill != nil {
			fill[0] = wj
		}
		return 0, 0, nil
	}
	lo, below, err := down(nil)
	if err != nil {
		return Chain{}, err
	}
	n := mode - lo + 1
	// Room for the walk up, about as long as the walk down (the weights
	// fall off like a normal density either side of the mode).
	w := make([]float64, n, min(maxStates, 2*n+1024))
	if _, _, err := down(w); err != nil {
		return Chain{}, err
	}
	// Up from the mode: w(j+1) = w(j)·λ/μ(j+1).
	var above float64
	prev := 0.0
	for j := mode; j < k; j++ {
		m, err := rate(mu, j+1)
		if err != nil {
			return Chain{}, err
		}
		if m < prev*(1-monotoneSlack) {
			return Chain{}, fmt.Errorf("departure rate μ(%d) = %v < μ(%d) = %v: a truncated chain needs non-decreasing rates", j+1, m, j, prev)
		}
		prev = m
		wj := w[len(w)-1]
		if s := lambda / m; s < 1 {
			if b := wj * s / (1 - s); b <= tol {
				above = b
				break
			}
		}
		if len(w) >= maxStates {
			return Chain{}, tooMany()
		}
		w = append(w, wj*lambda/m)
	}
	c := Chain{Lo: lo, P: w, KState: k, Tail: rho, MuK: muK, Lambda: lambda, Truncated: below + above}
	c.normalize()
	return c, nil
}

// K is the state from which μ is constant.
func (c Chain) K() int { return c.KState }

// Hi is the last explicit state.
func (c Chain) Hi() int { return c.Lo + len(c.P) - 1 }

// Prob returns π(j) (0 outside the window).
func (c Chain) Prob(j int) float64 {
	switch {
	case j < c.Lo:
		return 0
	case j <= c.Hi():
		return c.P[j-c.Lo]
	case c.Hi() == c.KState:
		return c.P[len(c.P)-1] * math.Pow(c.Tail, float64(j-c.KState))
	}
	return 0
}

// AtLeast returns P(J >= j).
func (c Chain) AtLeast(j int) float64 {
	hi := c.Hi()
	switch {
	case j <= c.Lo:
		return 1
	case j > hi:
		if hi != c.KState {
			return 0
		}
		return c.P[len(c.P)-1] * math.Pow(c.Tail, float64(j-hi)) / (1 - c.Tail)
	}
	s := 0.0
	if hi == c.KState {
		s = c.P[len(c.P)-1] / (1 - c.Tail) // P(J >= K)
	} else {
		hi++ // no tail: sum through Hi
	}
	for i := j; i < hi; i++ {
		s += c.P[i-c.Lo]
	}
	return math.Min(1, s)
}

// MeanMin returns E[min(J, m)] for 0 <= m <= K: the mean number of busy
// servers when m serve at once.
func (c Chain) MeanMin(m int) float64 {
	m = min(m, c.KState)
	s := 0.0
	for j := max(1, c.Lo); j < m && j <= c.Hi(); j++ {
		s += float64(j) * c.P[j-c.Lo]
	}
	return s + float64(m)*c.AtLeast(m)
}

// Mean returns E[J].
func (c Chain) Mean() float64 {
	s := 0.0
	for i, p := range c.P {
		s += float64(c.Lo+i) * p
	}
	if c.Hi() != c.KState {
		return s
	}
	// Σ_{i>=1} (K+i)·π(K)·ρ^i
	r, k := c.Tail, c.KState
	return s + c.P[len(c.P)-1]*(float64(k)*r/(1-r)+r/((1-r)*(1-r)))
}
