package queueing

import (
	"math"
	"testing"
)

// erlangCDirect is Erlang's C formula summed term by term (small c only):
// C = (a^c/c!)·c/(c−a) / (Σ_{k<c} a^k/k! + (a^c/c!)·c/(c−a)).
func erlangCDirect(c int, a float64) float64 {
	term, sum := 1.0, 0.0
	for k := 0; k < c; k++ {
		sum += term
		term *= a / float64(k+1)
	}
	last := term * float64(c) / (float64(c) - a)
	return last / (sum + last)
}

func TestChainMM1(t *testing.T) {
	// M/M/1 closed forms: P(J >= 1) = ρ, E[J] = ρ/(1−ρ), π(j) = (1−ρ)ρ^j.
	for _, rho := range []float64{0.1, 0.5, 0.9, 0.99} {
		c, err := SolveChain(rho, func(int) float64 { return 1 }, 1)
		if err != nil {
			t.Fatal(err)
		}
		if got := c.AtLeast(1); math.Abs(got-rho) > 1e-12 {
			t.Errorf("ρ %g: P(J>=1) = %v", rho, got)
		}
		if got, want := c.Mean(), rho/(1-rho); math.Abs(got-want) > 1e-9*want {
			t.Errorf("ρ %g: E[J] = %v, want %v", rho, got, want)
		}
		if got, want := c.AtLeast(5), math.Pow(rho, 5); math.Abs(got-want) > 1e-12 {
			t.Errorf("ρ %g: P(J>=5) = %v, want %v", rho, got, want)
		}
	}
}

func TestChainErlangC(t *testing.T) {
	// M/M/c: μ(j) = min(j, c)·μ, K = c; P(J >= c) is Erlang's C and
	// E[min(J, c)] = a (every arrival is served).
	for _, c := range []int{1, 2, 10, 40} {
		for _, rho := range []float64{0.3, 0.7, 0.95} {
			a := rho * float64(c)
			ch, err := SolveChain(a, func(j int) float64 { return float64(min(j, c)) }, c)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := ch.AtLeast(c), erlangCDirect(c, a); math.Abs(got-want) > 1e-10 {
				t.Errorf("c %d ρ %g: P(wait) = %v, want %v", c, rho, got, want)
			}
			if got := ch.MeanMin(c); math.Abs(got-a) > 1e-9*a {
				t.Errorf("c %d ρ %g: busy servers %v, want %v", c, rho, got, a)
			}
		}
	}
	// M/M/2 by hand: C = 2ρ²/(1+ρ).
	rho := 0.6
	ch, _ := SolveChain(1.2, func(j int) float64 { return float64(min(j, 2)) }, 2)
	if got, want := ch.AtLeast(2), 2*rho*rho/(1+rho); math.Abs(got-want) > 1e-12 {
		t.Errorf("M/M/2: %v, want %v", got, want)
	}
}

func TestChainLargeAndBad(t *testing.T) {
	// 10⁵ servers at ρ = 0.999 must not overflow.
	c := 100000
	ch, err := SolveChain(0.999*float64(c), func(j int) float64 { return float64(min(j, c)) }, c)
	if err != nil {
		t.Fatal(err)
	}
	if p := ch.AtLeast(c); !(p > 0 && p < 1) {
		t.Errorf("P(wait) = %v", p)
	}
	if _, err := SolveChain(2, func(int) float64 { return 1 }, 1); err != ErrUnstable {
		t.Errorf("λ > μ: err %v, want ErrUnstable", err)
	}
	if _, err := SolveChain(0, func(int) float64 { return 1 }, 1); err == nil {
		t.Error("λ = 0 accepted")
	}
	if _, err := SolveChain(1, func(int) float64 { return 0 }, 3); err == nil {
		t.Error("μ = 0 accepted")
	}
}
