package sim

import (
	"math"
	"testing"

	"github.com/fleetsim/fleetsim/workload"
)

// TestOverloadDetector: one a10g instance at max context 2048 (20 slots,
// pools/catalog/gpu.go) serves L_total uniform in [50, 2000] (L_out ~ 20%): about
// 200 decode iterations of ~7 ms each per request, so roughly 14 req/s at
// full batch. At 40 req/s the pool must be flagged with a backlog growing by
// roughly the excess (tens of req/s); at 5 and 10 req/s it must not.
func TestOverloadDetector(t *testing.T) {
	cases := []struct {
		rate     float64
		overload bool
	}{
		{40, true},
		{10, false},
		{5, false},
	}
	for _, tc := range cases {
		n := int(150 * tc.rate)
		cfg := fleetCfg(n, 0.2, PoolConfig{Name: "p", GPU: "a10g", Count: 1, MaxContext: 2048})
		cfg.Workload.Rate = tc.rate
		s, err := Run(cfg, newPoisson(n, tc.rate, 50, 2000, 11), nil, Options{})
		if err != nil {
			t.Fatal(err)
		}
		p := s.Pools[0]
		t.Logf("rate %v: arrival %.2f/s throughput %.2f/s util %.3f growth %.2f/s backlog %d overloaded %v",
			tc.rate, p.ArrivalRPS, p.ThroughputRPS, p.SlotUtilization, p.BacklogGrowth, p.Backlog, p.Overloaded)
		if p.Overloaded != tc.overload || s.Fleet.Overloaded != tc.overload {
			t.Errorf("rate %v: overloaded %v (fleet %v), want %v", tc.rate, p.Overloaded, s.Fleet.Overloaded, tc.overload)
		}
		if tc.overload {
			// The backlog grows at the excess of arrivals over service.
			if want := p.ArrivalRPS - p.ThroughputRPS; math.Abs(p.BacklogGrowth-want) > 0.2*want {
				t.Errorf("rate %v: backlog growth %v, want about %v", tc.rate, p.BacklogGrowth, want)
			}
		}
		checkConservation(t, s)
	}
}

// TestUtilizationLightLoad: paper timing (t_iter = W + H*n_active), L_in =
// 100, L_out = 10, so a request alone takes 10 iterations of W + H =
// 8.65 ms (A100, pools/catalog/gpu.go): S = 86.5 ms. At 2 req/s over 2 instances
// requests rarely overlap, so the slot utilization is close to
// lambda*S/(c*slots) with slots = 256 (A100 at 4096); overlaps lengthen
// iterations by H per extra sequence, well under 1% here.
func TestUtilizationLightLoad(t *testing.T) {
	const n = 20000
	src := &mapSource{src: newPoisson(n, 2, 125, 125, 5), f: func(r *workload.Request) {
		r.InputTokens, r.OutputTokens, r.MaxOutputTokens = 100, 10, 10
	}}
	cfg := fleetCfg(n, 0.1, PoolConfig{Name: "p", GPU: "a100", Count: 2, MaxContext: 4096})
	cfg.Timing = "paper"
	s, err := Run(cfg, src, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := s.Pools[0]
	const S = 10 * (0.008 + 0.00065)
	want := p.ArrivalRPS * S / (2 * 256)
	if math.Abs(p.SlotUtilization-want) > 0.02*want {
		t.Errorf("utilization %v, want %v within 2%%", p.SlotUtilization, want)
	}
	if p.Overloaded {
		t.Error("light load flagged overloaded")
	}
}

// mapSource rewrites each request of src with f.
type mapSource struct {
	src workload.Source
	f   func(*workload.Request)
}

func (m *mapSource) Next(r *workload.Request) bool {
	if !m.src.Next(r) {
		return false
	}
	m.f(r)
	return true
}

func (m *mapSource) Err() error { return m.src.Err() }
