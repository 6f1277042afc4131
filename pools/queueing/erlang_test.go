package queueing

import (
	"fmt"
	"math"
	"math/big"
	"strings"
	"testing"
)

// erlangCExact evaluates FleetOpt eq. 5 in exact rational arithmetic:
//
//	C = (a^c/c!)/(1-ϱ) / (Σ_{k<c} a^k/k! + (a^c/c!)/(1-ϱ)),  ϱ = a/c.
func erlangCExact(c int, a *big.Rat) float64 {
	term := big.NewRat(1, 1) // a^k/k!
	sum := new(big.Rat)
	for k := 0; k < c; k++ {
		sum.Add(sum, term)
		term.Mul(term, a)
		term.Quo(term, big.NewRat(int64(k+1), 1))
	}
	rho := new(big.Rat).Quo(a, big.NewRat(int64(c), 1))
	oneMinus := new(big.Rat).Sub(big.NewRat(1, 1), rho)
	top := new(big.Rat).Quo(term, oneMinus)
	den := new(big.Rat).Add(sum, top)
	f, _ := new(big.Rat).Quo(top, den).Float64()
	return f
}

func TestErlangCExactRational(t *testing.T) {
	// Reference: exact rational evaluation of FleetOpt eq. 5 (math/big).
	for c := 1; c <= 60; c++ {
		for _, num := range []int64{1, 7, 50, 85, 95, 99, 999} {
			den := int64(100)
			if num == 999 {
				den = 1000
			}
			a := big.NewRat(num*int64(c), den) // ϱ = num/den
			af, _ := a.Float64()
			want := erlangCExact(c, a)
			got := ErlangC(c, af)
			if want == 0 {
				if got > 1e-300 {
					t.Errorf("ErlangC(%d, %v) = %g, want 0", c, af, got)
				}
				continue
			}
			if rel := math.Abs(got-want) / want; rel > 1e-9 {
				t.Errorf("ErlangC(%d, %v) = %.15g, exact %.15g (rel err %.2g)", c, af, got, want, rel)
			}
		}
	}
}

func TestErlangCKnownValues(t *testing.T) {
	tests := []struct {
		c    int
		a    float64
		want float64
		src  string
	}{
		{1, 0.5, 0.5, "M/M/1: C = ϱ"},
		{2, 1, 1.0 / 3, "M/M/2: C = 2ϱ²/(1+ϱ) at ϱ = 0.5"},
		{2, 1.6, 2 * 0.64 / 1.8, "M/M/2: C = 2ϱ²/(1+ϱ) at ϱ = 0.8"},
		{5, 0, 0, "zero load: nobody waits"},
		{5, 5, 1, "ϱ = 1: unstable, everyone waits"},
		{5, 7, 1, "ϱ > 1: unstable, everyone waits"},
		{0, 1, 1, "no server: everyone waits"},
	}
	for _, tt := range tests {
		got := ErlangC(tt.c, tt.a)
		if math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("ErlangC(%d, %v) = %v, want %v (%s)", tt.c, tt.a, got, tt.want, tt.src)
		}
	}
}

func TestErlangCMonotoneAndFinite(t *testing.T) {
	for _, a := range []float64{0.3, 10, 850, 12345.6, 850000} {
		prev := 1.0
		for c := int(math.Ceil(a)); c <= int(math.Ceil(a))*2+10; c += max(1, int(a)/200) {
			got := ErlangC(c, a)
			if math.IsNaN(got) || got < 0 || got > 1 {
				t.Fatalf("ErlangC(%d, %v) = %v, want a probability", c, a, got)
			}
			if got > prev*(1+1e-12) {
				t.Fatalf("ErlangC not non-increasing in c: C(%d, %v) = %v > %v", c, a, got, prev)
			}
			prev = got
		}
	}
	// Large c near ϱ → 1: finite, in (0, 1], and no NaN.
	for _, rho := range []float64{0.5, 0.85, 0.99, 0.999, 0.999999, 1 - 1e-12} {
		c := 1_000_000
		got := ErlangC(c, rho*float64(c))
		if math.IsNaN(got) || got < 0 || got > 1 {
			t.Errorf("ErlangC(1e6, ϱ=%v) = %v", rho, got)
		}
	}
	// Many-server limit (Halfin–Whitt): with c = a + β√a, C → 1/(1+β Φ(β)/φ(β)).
	beta := 1.0
	a := 1e6
	c := int(a + beta*math.Sqrt(a))
	phi := math.Exp(-beta*beta/2) / math.Sqrt(2*math.Pi)
	Phi := 0.5 * math.Erfc(-beta/math.Sqrt2)
	hw := 1 / (1 + beta*Phi/phi)
	if got := ErlangC(c, a); math.Abs(got-hw) > 0.01 {
		t.Errorf("ErlangC(%d, %v) = %v, Halfin–Whitt limit %v", c, a, got, hw)
	}
}

func TestKimuraP99Wait(t *testing.T) {
	// M/M/1 (Cs² = 1): C = ϱ and the wait tail is P(W > t) = ϱ e^{-(μ-λ)t},
	// so the exact P99 wait is ln(ϱ/0.01)/(μ-λ); Kimura's form with Cs² = 1
	// gives (1+1)/2 = 1 times that — exactly equal.
	mu, lambda := 10.0, 8.0
	want := math.Log(0.8/0.01) / (mu - lambda)
	if got := KimuraP99Wait(1, mu, lambda, 1); math.Abs(got-want) > 1e-12 {
		t.Errorf("M/M/1 P99 wait = %v, want %v", got, want)
	}
	// Deterministic service halves it.
	if got := KimuraP99Wait(1, mu, lambda, 0); math.Abs(got-want/2) > 1e-12 {
		t.Errorf("M/D/1 P99 wait = %v, want %v", got, want/2)
	}
	// C <= 0.01 → 0; zero load → 0; ϱ >= 1 → +Inf.
	if got := KimuraP99Wait(1000, 1, 500, 1); got != 0 {
		t.Errorf("many servers: wait %v, want 0", got)
	}
	if got := KimuraP99Wait(4, 1, 0, 1); got != 0 {
		t.Errorf("zero load: wait %v, want 0", got)
	}
	if got := KimuraP99Wait(4, 1, 4, 1); !math.IsInf(got, 1) {
		t.Errorf("ϱ = 1: wait %v, want +Inf", got)
	}
}

func TestMinGPUs(t *testing.T) {
	// Many-server regime: the utilization cap decides (FleetOpt §7.4).
	r, err := MinGPUs(SizeInput{Lambda: 1000, Slots: 256, MeanS: 10, Cs2: 1.5, WaitMax: 0.4, RhoMax: 0.85})
	if err != nil {
		t.Fatal(err)
	}
	if want := int(math.Ceil(1000 / (0.85 * 25.6))); r.GPUs != want || r.ByRhoMax != want {
		t.Errorf("GPUs = %d (cap bound %d), want %d", r.GPUs, r.ByRhoMax, want)
	}
	// Few servers, tight wait target: the wait decides; check minimality.
	in := SizeInput{Lambda: 3, Slots: 1, MeanS: 1, Cs2: 1, WaitMax: 0.05, RhoMax: 0.99}
	r, err = MinGPUs(in)
	if err != nil {
		t.Fatal(err)
	}
	mu := 1.0
	if w := KimuraP99Wait(r.GPUs, mu, 3, 1); w > 0.05 {
		t.Errorf("n = %d gives wait %v > 0.05", r.GPUs, w)
	}
	if w := KimuraP99Wait(r.GPUs-1, mu, 3, 1); w <= 0.05 {
		t.Errorf("n-1 = %d already meets the target (wait %v)", r.GPUs-1, w)
	}
	if r.GPUs <= r.ByRhoMax {
		t.Errorf("wait-bound answer %d should exceed the cap bound %d", r.GPUs, r.ByRhoMax)
	}
	// Bad input names the field.
	for _, bad := range []SizeInput{
		{Lambda: -1, Slots: 1, MeanS: 1, WaitMax: 1, RhoMax: 0.85},
		{Lambda: 1, Slots: 1, MeanS: 1, WaitMax: 1, RhoMax: 1},
		{Lambda: 1, Slots: 1, MeanS: 1, WaitMax: -0.1, RhoMax: 0.85},
		{Lambda: 1, Slots: 0, MeanS: 1, WaitMax: 1, RhoMax: 0.85},
	} {
		if _, err := MinGPUs(bad); err == nil {
			t.Errorf("MinGPUs(%+v): no error", bad)
		}
	}
}

func BenchmarkErlangC1e6(b *testing.B) {
	for b.Loop() {
		ErlangC(1_000_000, 999_000)
	}
}

// TestMinGPUsRefusesHugeCounts: a count beyond MaxServers servers is an
// error, never an int overflow. Before the bound, λ = 1e300 returned 1 GPU at
// utilization ≈ 1e299 with no error (int(math.Ceil(x)) wrapped around).
func TestMinGPUsRefusesHugeCounts(t *testing.T) {
	for _, in := range []SizeInput{
		{Lambda: 1e300, Slots: 256, MeanS: 1, Cs2: 1, WaitMax: 0.5, RhoMax: 0.85},
		{Lambda: 1e300, Slots: 256, MeanS: 1, Cs2: 1, WaitMax: math.Inf(1), RhoMax: 0.85},
		{Lambda: math.MaxFloat64, Slots: 1, MeanS: 1e10, Cs2: 0, WaitMax: 1, RhoMax: 0.5},
		// 2^40 servers at the cap exactly would need one more GPU than allowed.
		{Lambda: 1.01 * float64(MaxServers) * 0.85, Slots: 1, MeanS: 1, Cs2: 1, WaitMax: math.Inf(1), RhoMax: 0.85},
	} {
		for _, countOnly := range []bool{false, true} {
			r, err := minGPUs(in, countOnly)
			if err == nil {
				t.Errorf("minGPUs(%+v, %v) = %+v, want an error", in, countOnly, r)
				continue
			}
			if msg := err.Error(); !strings.Contains(msg, "arrival rate") || !strings.Contains(msg, fmt.Sprint(in.Lambda)) {
				t.Errorf("error %q does not name the arrival rate %v", msg, in.Lambda)
			}
		}
	}
	// Just inside the bound the count is exact: λ/(ρ·μ_gpu) = 2^40/2 GPUs of
	// 2 slots (powers of two: no rounding), i.e. 2^40 servers.
	in := SizeInput{Lambda: 0.5 * float64(MaxServers), Slots: 2, MeanS: 1, Cs2: 1, WaitMax: math.Inf(1), RhoMax: 0.5}
	r, err := minGPUs(in, true)
	if err != nil || r.GPUs != MaxServers/2 {
		t.Errorf("at the bound: %+v, %v; want %d GPUs", r, err, MaxServers/2)
	}
}
