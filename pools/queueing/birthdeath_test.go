package queueing

import (
	"errors"
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

// occMu is an occupancy-model-like departure rate (pools/occupancy):
// μ(j) = r/(e·(w + b·r)), r = min(j, c), non-decreasing and concave.
func occMu(c int, e, w, b float64) func(int) float64 {
	return func(j int) float64 {
		r := float64(min(j, c))
		return r / (e * (w + b*r))
	}
}

// A chain of millions of servers is held as a window around its mode, not
// as every state (issue 20 item 2: 10⁹ req/s allocated 34 GB here), and
// its P(wait) and busy servers match Erlang's C from the independent
// summation of erlang.go and E[min(J, c)] = a (every arrival is served).
func TestChainHugeIsWindowed(t *testing.T) {
	for _, c := range []int{3_000_000, 1 << 30} {
		for _, rho := range []float64{0.5, 0.9, 0.999} {
			a := rho * float64(c)
			ch, err := SolveChain(a, func(j int) float64 { return float64(min(j, c)) }, c)
			if err != nil {
				t.Fatalf("c %d ρ %g: %v", c, rho, err)
			}
			// The window is ~15 standard deviations (√a) wide.
			if n := len(ch.P); n > 20*int(math.Sqrt(a))+1000 {
				t.Fatalf("c %d ρ %g: %d states held", c, rho, n)
			}
			if ch.Truncated > TruncationTol {
				t.Errorf("c %d ρ %g: truncated mass bound %g", c, rho, ch.Truncated)
			}
			if got, want := ch.AtLeast(c), ErlangC(c, a); math.Abs(got-want) > 1e-9+1e-7*want {
				t.Errorf("c %d ρ %g: P(wait) %v, Erlang C %v", c, rho, got, want)
			}
			if got := ch.MeanMin(c); math.Abs(got-a) > 1e-9*a {
				t.Errorf("c %d ρ %g: busy servers %v, want %v", c, rho, got, a)
			}
		}
	}
}

// The truncated solution agrees with the exact one state by state within
// its stated bound, on M/M/c and on an occupancy-like chain, with the mode
// in the middle, near 0 and near K.
func TestChainWindowMatchesExact(t *testing.T) {
	cases := []struct {
		name   string
		lambda float64
		mu     func(int) float64
		k      int
	}{
		{"M/M/c ρ 0.7", 0.7 * 40000, func(j int) float64 { return float64(min(j, 40000)) }, 40000},
		{"M/M/c ρ 0.999", 0.999 * 40000, func(j int) float64 { return float64(min(j, 40000)) }, 40000},
		{"M/M/c light", 3, func(j int) float64 { return float64(min(j, 40000)) }, 40000},
		{"occupancy", 0.9 * occMu(50000, 30, 0.02, 0.001)(50000), occMu(50000, 30, 0.02, 0.001), 50000},
	}
	for _, tc := range cases {
		ex, err := solveExact(tc.lambda, tc.mu, tc.k)
		if err != nil {
			t.Fatal(err)
		}
		wi, err := solveWindow(tc.lambda, tc.mu, tc.k, MaxWindowStates)
		if err != nil {
			t.Fatal(err)
		}
		if wi.Truncated > TruncationTol || len(wi.P) > tc.k {
			t.Errorf("%s: truncated %g, %d states", tc.name, wi.Truncated, len(wi.P))
		}
		// Exact mass outside the window is below the stated bound.
		out := 0.0
		for j := 0; j <= tc.k; j++ {
			if j < wi.Lo || j > wi.Hi() {
				out += ex.P[j]
			}
		}
		if j := tc.k; wi.Hi() < j {
			out += ex.AtLeast(j + 1)
		}
		if out > wi.Truncated+1e-15 {
			t.Errorf("%s: exact mass outside the window %g > bound %g", tc.name, out, wi.Truncated)
		}
		for j := 0; j <= tc.k+3; j++ {
			if d := math.Abs(wi.Prob(j) - ex.Prob(j)); d > 1e-12 {
				t.Fatalf("%s: π(%d) window %g exact %g", tc.name, j, wi.Prob(j), ex.Prob(j))
			}
		}
		for _, j := range []int{0, 1, tc.k / 2, tc.k - 1, tc.k, tc.k + 5} {
			if d := math.Abs(wi.AtLeast(j) - ex.AtLeast(j)); d > 1e-11 {
				t.Errorf("%s: P(J >= %d) window %g exact %g", tc.name, j, wi.AtLeast(j), ex.AtLeast(j))
			}
		}
		if d := math.Abs(wi.Mean() - ex.Mean()); d > 1e-9*ex.Mean() {
			t.Errorf("%s: E[J] window %g exact %g", tc.name, wi.Mean(), ex.Mean())
		}
	}
	// A window wider than allowed is refused, not grown.
	if _, err := solveWindow(0.9*40000, func(j int) float64 { return float64(min(j, 40000)) }, 40000, 100); !errors.Is(err, ErrTooManyStates) {
		t.Errorf("narrow limit: err %v, want ErrTooManyStates", err)
	}
	// Truncation needs non-decreasing rates.
	if _, err := solveWindow(10, func(j int) float64 { return 20 + 5*math.Sin(float64(j)) }, 1000, MaxWindowStates); err == nil {
		t.Error("oscillating μ accepted")
	}
}
