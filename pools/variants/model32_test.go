package variants

import (
	"math"
	"testing"
)

// model32 re-evaluates the queue model with the upstream's precision: rates,
// times and the bisection in float32, the state probabilities in float64
// (as the upstream keeps them). It exists to measure how far our float64
// model moves the float32 reference numbers.
type model32 struct {
	p       Profile
	n, k    int
	in, out int
	mu      []float32
}

func newModel32(p Profile, n, in, out int) *model32 {
	m := &model32{p: p, n: n, k: n + QueueToBatch*n, in: in, out: out, mu: make([]float32, n)}
	for i := 1; i <= n; i++ {
		m.mu[i-1] = float32(i) / m.serv(float32(i))
	}
	return m
}

func (m *model32) serv(b float32) float32 {
	a, be, g, d := float32(m.p.Alpha), float32(m.p.Beta), float32(m.p.Gamma), float32(m.p.Delta)
	return g + d*float32(m.in)*b + float32(m.out-1)*(a+be*b)
}

// at returns TTFT and ITL (ms) at lambda req/ms.
func (m *model32) at(lambda float32) (ttft, itl float32) {
	p := make([]float64, m.k+1)
	p[0] = 1
	for i := 1; i <= m.k; i++ {
		p[i] = p[i-1] * float64(lambda) / float64(m.mu[min(i, m.n)-1])
	}
	var sum float64
	for _, x := range p {
		sum += x
	}
	var inSys, inServ float64
	for i := range p {
		p[i] /= sum
		inSys += float64(i) * p[i]
		inServ += float64(min(i, m.n)) * p[i]
	}
	x := lambda * (1 - float32(p[m.k]))
	resp := float32(inSys) / x
	st := float32(inServ) / x
	wait := max(resp-st, 0)
	a, be, g, d := float32(m.p.Alpha), float32(m.p.Beta), float32(m.p.Gamma), float32(m.p.Delta)
	tok := float32(m.out - 1)
	n := (st - (g + a*tok)) / (d*float32(m.in) + be*tok)
	n = min(max(n, 0), float32(m.n))
	return wait + g + d*float32(m.in)*n, a + be*n
}

func (m *model32) search(target float32, ttft bool) float32 {
	lo, hi := m.mu[0]*float32(RangeEpsilon), m.mu[m.n-1]*(1-float32(RangeEpsilon))
	f := func(x float32) float32 {
		t, i := m.at(x)
		if ttft {
			return t
		}
		return i
	}
	var x float32
	for range SearchIterations {
		x = (lo + hi) / 2
		y := f(x)
		if math.Abs(float64((y-target)/target)) <= SearchTolerance {
			break
		}
		if y > target {
			hi = x
		} else {
			lo = x
		}
	}
	return x
}

// TestModelFloat32 reproduces the H100 reference with float32 arithmetic
// and reports how far the float64 model is from it (docs/variants.md).
func TestModelFloat32(t *testing.T) {
	m32 := newModel32(h100, 512, 1155, 211)
	m, _ := NewModel(h100, 512, 1155, 211)
	s, _ := m.Size(Targets{TTFT: 500, ITL: 24})
	rT, rI := m32.search(500, true), m32.search(24, false)
	ttft, itl := m32.at(rI)
	for _, c := range []struct {
		name          string
		f32, f64, ref float64
	}{
		{"max rate", float64(m32.mu[511] * (1 - float32(RangeEpsilon)) * 1000), m.MaxRate, 78.518},
		{"rate for TTFT", float64(rT) * 1000, s.RateTTFT, 77.346},
		{"rate for ITL", float64(rI) * 1000, s.RateITL, 72.031},
		{"ITL at rate", float64(itl), s.At.ITL, 24.000},
		{"TTFT at rate", float64(ttft), s.At.TTFT, 161.669},
	} {
		t.Logf("%-14s float32 %.6f  float64 %.6f  reference %.3f  float64−float32 rel %.1e", c.name, c.f32, c.f64, c.ref, relErr(c.f64, c.f32))
		if relErr(c.f32, c.ref) > 1e-3 {
			t.Errorf("%s: float32 emulation %.6f, reference %.3f", c.name, c.f32, c.ref)
		}
		if relErr(c.f64, c.f32) > 1e-6 {
			t.Errorf("%s: float64 %.6f moves float32 %.6f by more than 1e-6", c.name, c.f64, c.f32)
		}
	}
}
