package variants

import "math"

// chain is a birth–death chain on states 0..K (requests in one replica):
// births at rate λ in every state below K, deaths at rate mu[n-1] in state
// n ≤ len(mu) and mu[len(mu)-1] above (the batch is full, the rest wait).
// It is the upstream's "M/M/1 with state-dependent service rate" with a
// finite waiting room: an arrival finding K requests is lost.
//
// The stationary distribution is p_n ∝ ∏_{i=1..n} λ/μ_min(i,N). Up to N it
// is computed in logarithms (Σ log μ is precomputed) and normalized by its
// largest term, so no rate or state count overflows (the upstream rescales
// by MaxFloat64/K when a product overflows; both give the same distribution
// where neither overflows). Beyond N the terms are geometric,
// p_{N+j} = p_N·ρ^j with ρ = λ/μ_N, and are summed by repeated
// multiplication when ρ < 1 (then p_N is the tail's largest term); with
// ρ >= 1 every state is taken in logarithms.
type chain struct {
	k   int       // most requests in the system (batch + queue)
	mu  []float64 // mu[n-1]: departure rate with n requests in service, per ms
	cum []float64 // cum[n] = Σ_{i<=n} log mu[i-1], n = 0..N
	lp  []float64 // scratch: log p_n, then weights
}

func newChain(k int, mu []float64) *chain {
	c := &chain{k: k, mu: mu, cum: make([]float64, len(mu)+1), lp: make([]float64, k+1)}
	for i, m := range mu {
		c.cum[i+1] = c.cum[i] + math.Log(m)
	}
	return c
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
	n := min(len(c.mu), c.k)
	ll := math.Log(lambda)
	rho := lambda / c.mu[len(c.mu)-1]
	top := 0.0
	last := c.k
	if rho < 1 {
		last = n // the tail is geometric and decreasing
	}
	for i := 1; i <= last; i++ {
		c.lp[i] = float64(i)*ll - c.cum[min(i, len(c.mu))] - float64(max(i-len(c.mu), 0))*math.Log(c.mu[len(c.mu)-1])
		top = math.Max(top, c.lp[i])
	}
	c.lp[0] = 0
	var sum, inSys, inServ, pK float64
	for i := 0; i <= last; i++ {
		w := math.Exp(c.lp[i] - top)
		sum += w
		inSys += float64(i) * w
		inServ += float64(min(i, n)) * w
		pK = w
	}
	if last < c.k {
		w := pK // weight of state N
		for i := n + 1; i <= c.k; i++ {
			w *= rho
			sum += w
			inSys += float64(i) * w
			inServ += float64(n) * w
		}
		pK = w
	}
	var s chainStats
	s.InSystem, s.InService, s.PFull = inSys/sum, inServ/sum, pK/sum
	s.Throughput = lambda * (1 - s.PFull)
	s.RespTime = s.InSystem / s.Throughput
	s.ServTime = s.InService / s.Throughput
	s.WaitTime = math.Max(0, s.RespTime-s.ServTime)
	s.Utilization = math.Min(1, math.Max(0, s.InService/float64(len(c.mu))))
	return s
}
