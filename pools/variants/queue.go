package variants

import "math"

// chain is a birth–death chain on states 0..K (requests in one replica):
// births at rate λ in every state below K, deaths at rate mu[n-1] in state
// n ≤ len(mu) and mu[len(mu)-1] above (the batch is full, the rest wait).
// It is the upstream's "M/M/1 with state-dependent service rate" with a
// finite waiting room: an arrival finding K requests is lost.
//
// The stationary distribution is p_n ∝ ∏_{i=1..n} λ/μ_i. It is computed in
// logarithms and normalized by its largest term, so no state count or rate
// overflows (the upstream rescales by MaxFloat64/K when a product overflows;
// both give the same distribution where neither overflows).
type chain struct {
	k  int       // most requests in the system (batch + queue)
	mu []float64 // mu[n-1]: departure rate with n requests in service, per ms
	lp []float64 // scratch: log p_n, then p_n
}

func newChain(k int, mu []float64) *chain {
	return &chain{k: k, mu: mu, lp: make([]float64, k+1)}
}

// chainStats are the stationary measures of a chain at one arrival rate.
type chainStats struct {
	Throughput  float64 // λ·(1 − p_K), requests per ms
	InSystem    float64 // mean requests in the system
	InService   float64 // mean requests in the batch: Σ min(n, N)·p_n
	RespTime    float64 // InSystem / Throughput, ms (Little)
	ServTime    float64 // InService / Throughput, ms
	WaitTime    float64 // max(0, RespTime − ServTime), ms
	PFull       float64 // p_K: probability an arrival is lost
	Utilization float64 // InService / N, in [0, 1]
}

// solve returns the chain's stationary measures at arrival rate lambda
// (requests per ms, > 0).
func (c *chain) solve(lambda float64) chainStats {
	n := len(c.mu)
	ll := math.Log(lambda)
	c.lp[0] = 0
	top := 0.0
	for i := 1; i <= c.k; i++ {
		m := c.mu[min(i, n)-1]
		c.lp[i] = c.lp[i-1] + ll - math.Log(m)
		top = math.Max(top, c.lp[i])
	}
	var sum float64
	for i := range c.lp {
		c.lp[i] = math.Exp(c.lp[i] - top)
		sum += c.lp[i]
	}
	var s chainStats
	for i := range c.lp {
		p := c.lp[i] / sum
		c.lp[i] = p
		s.InSystem += float64(i) * p
		s.InService += float64(min(i, n)) * p
	}
	s.PFull = c.lp[c.k]
	s.Throughput = lambda * (1 - s.PFull)
	s.RespTime = s.InSystem / s.Throughput
	s.ServTime = s.InService / s.Throughput
	s.WaitTime = math.Max(0, s.RespTime-s.ServTime)
	s.Utilization = math.Min(1, math.Max(0, s.InService/float64(n)))
	return s
}
