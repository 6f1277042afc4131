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
// so the chain needs only the K+1 states 0..K explicitly. With μ(j) =
// min(j, c)·μ and K = c it is M/M/c (Erlang C); with μ(j) growing slower
// than j it models a server whose requests slow down as it fills (the
// occupancy model, pools/occupancy).
type Chain struct {
	// P holds π(0..K).
	P []float64
	// Tail is ρ_K = λ/μ(K), the ratio of the geometric tail beyond K.
	Tail float64
	// MuK is μ(K), the departure rate of every state >= K, 1/s.
	MuK float64
	// Lambda is the arrival rate, 1/s.
	Lambda float64
}

// ErrUnstable is returned when λ >= μ(K): the chain has no stationary
// distribution (the number in system grows without bound).
var ErrUnstable = errors.New("unstable: the arrival rate is at or above the largest departure rate")

// SolveChain returns the stationary distribution of the chain with arrival
// rate lambda (> 0, 1/s) and departure rates mu(1..k) (> 0, 1/s), constant
// at mu(k) beyond k (k >= 1). It works in logarithms, so k may be large
// (10⁶ states cost a few ms) and the weights never overflow.
func SolveChain(lambda float64, mu func(j int) float64, k int) (Chain, error) {
	if !(lambda > 0) || math.IsInf(lambda, 0) {
		return Chain{}, fmt.Errorf("arrival rate %v: must be finite and > 0", lambda)
	}
	if k < 1 {
		return Chain{}, fmt.Errorf("states %d: must be >= 1", k)
	}
	logw := make([]float64, k+1)
	ll := math.Log(lambda)
	top := 0.0
	var muK float64
	for j := 1; j <= k; j++ {
		m := mu(j)
		if !(m > 0) || math.IsInf(m, 0) {
			return Chain{}, fmt.Errorf("departure rate μ(%d) = %v: must be finite and > 0", j, m)
		}
		logw[j] = logw[j-1] + ll - math.Log(m)
		top = math.Max(top, logw[j])
		muK = m
	}
	rho := lambda / muK
	if rho >= 1 {
		return Chain{}, ErrUnstable
	}
	c := Chain{P: make([]float64, k+1), Tail: rho, MuK: muK, Lambda: lambda}
	sum := 0.0
	for j, lw := range logw {
		c.P[j] = math.Exp(lw - top)
		sum += c.P[j]
	}
	sum += c.P[k] * rho / (1 - rho)
	for j := range c.P {
		c.P[j] /= sum
	}
	return c, nil
}

// K is the last explicit state.
func (c Chain) K() int { return len(c.P) - 1 }

// AtLeast returns P(J >= j).
func (c Chain) AtLeast(j int) float64 {
	k := c.K()
	if j <= 0 {
		return 1
	}
	if j > k {
		return c.P[k] * math.Pow(c.Tail, float64(j-k)) / (1 - c.Tail)
	}
	s := c.P[k] / (1 - c.Tail) // P(J >= k)
	for i := j; i < k; i++ {
		s += c.P[i]
	}
	return math.Min(1, s)
}

// MeanMin returns E[min(J, m)] for 0 <= m <= K: the mean number of busy
// servers when m serve at once.
func (c Chain) MeanMin(m int) float64 {
	m = min(m, c.K())
	s := 0.0
	for j := 1; j < m; j++ {
		s += float64(j) * c.P[j]
	}
	return s + float64(m)*c.AtLeast(m)
}

// Mean returns E[J].
func (c Chain) Mean() float64 {
	k := c.K()
	s := 0.0
	for j := 1; j <= k; j++ {
		s += float64(j) * c.P[j]
	}
	// Σ_{i>=1} (k+i)·π(k)·ρ^i
	r := c.Tail
	return s + c.P[k]*(float64(k)*r/(1-r)+r/((1-r)*(1-r)))
}
