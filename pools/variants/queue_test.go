package variants

import (
	"math"
	"testing"
)

// naiveSolve is the chain's definition taken literally: every p_n in
// logarithms, normalized, and the measures summed state by state.
func naiveSolve(k int, mu []float64, lambda float64) (inSys, inServ, pK float64) {
	n := len(mu)
	lp := make([]float64, k+1)
	top := 0.0
	for i := 1; i <= k; i++ {
		lp[i] = lp[i-1] + math.Log(lambda/mu[min(i, n)-1])
		top = math.Max(top, lp[i])
	}
	var sum float64
	for i := range lp {
		lp[i] = math.Exp(lp[i] - top)
		sum += lp[i]
	}
	for i := range lp {
		inSys += float64(i) * lp[i] / sum
		inServ += float64(min(i, n)) * lp[i] / sum
	}
	return inSys, inServ, lp[k] / sum
}

// TestChainAgainstNaive: the chain's fast paths (precomputed log sums, the
// geometric tail by multiplication) give the literal definition's measures,
// below, near and above μ_N.
func TestChainAgainstNaive(t *testing.T) {
	m, _ := NewModel(h100, 512, 1155, 211)
	small := newChain(11*4, []float64{0.5, 0.9, 1.2, 1.4})
	for _, c := range []struct {
		ch      *chain
		lambdas []float64
	}{
		{m.ch, []float64{1e-6, 0.01, 0.05, 0.0720, 0.0785, 0.0786, 0.1, 1}},
		{small, []float64{0.01, 0.5, 1.39, 1.4, 1.41, 3}},
	} {
		for _, l := range c.lambdas {
			s := c.ch.solve(l)
			inSys, inServ, pK := naiveSolve(c.ch.k, c.ch.mu, l)
			for _, q := range []struct {
				name      string
				got, want float64
			}{{"in system", s.InSystem, inSys}, {"in service", s.InService, inServ}, {"p_K", s.PFull, pK}} {
				if d := math.Abs(q.got - q.want); d > 1e-9*math.Abs(q.want) && d > 1e-300 {
					t.Errorf("k=%d λ=%v: %s = %.15g, naive %.15g", c.ch.k, l, q.name, q.got, q.want)
				}
			}
		}
	}
}
