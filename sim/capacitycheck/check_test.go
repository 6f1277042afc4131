package capacitycheck

import (
	"math"
	"slices"
	"testing"

	"github.com/fleetsim/fleetsim/pools/capacity"
)

func defaultProfile(t *testing.T) capacity.Profile {
	p, err := capacity.LookupProfile(capacity.DefaultProfile)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestCalibrateHand: 2,048 requests of I = 16, O = 1 on one A100 at max
// context 1,024 (1,024 slots: min(128·8192/1024, 65536/64)), paper timing
// t_iter = W + H·n (W = 0.008 s, H = 0.00065 s, docs/model.md). Each
// request is done by the iteration that prefills it, so 1,024 finish per
// iteration of 0.008 + 0.00065·1024 = 0.6736 s: makespan 1.3472 s. Work per
// request under the default profile is 16 + 4·1 = 20, so
// μ = 2048·20/1.3472 = 30,403.8 adjusted tokens/s (hand computation).
// Alone, a request takes one iteration of 0.008 + 0.00065 = 0.00865 s.
func TestCalibrateHand(t *testing.T) {
	reqs := make([]capacity.Request, 2048)
	for i := range reqs {
		reqs[i] = capacity.Request{Arrival: float64(i), Input: 16, Output: 1, Latency: math.NaN()}
	}
	cal, err := Calibrate(reqs, defaultProfile(t), Options{GPU: "a100", Timing: "paper", MaxCtx: 1024, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if cal.Slots != 1024 || math.Abs(cal.InstanceTokS-2048*20/1.3472) > 1e-6*cal.InstanceTokS {
		t.Errorf("slots %d, μ = %v; want 1024, %v", cal.Slots, cal.InstanceTokS, 2048*20/1.3472)
	}
	if got := cal.Baseline.Baseline.Predict(reqs[0]); math.Abs(got-0.00865) > 1e-9 {
		t.Errorf("fitted unloaded latency %v, want 0.00865 s", got)
	}
	// Spaced one per second, each request runs alone on the fleet: the
	// fluid model (no queue at this load) and the simulator agree.
	cmp, err := Compare(reqs[:100], defaultProfile(t), cal, []int{1, 2}, 1, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if cmp.RefInstances != 1 {
		t.Errorf("reference fleet %d, want 1", cmp.RefInstances)
	}
	for _, pt := range cmp.Points {
		if math.Abs(pt.SimP99S-0.00865) > 1e-9 || math.Abs(pt.FluidP99S-0.00865) > 1e-9 || math.Abs(pt.Under99) > 1e-6 {
			t.Errorf("%+v", pt)
		}
	}
}

func TestAround(t *testing.T) {
	cal := Calibration{UnitsPerInstance: 10}
	for _, c := range []struct {
		g    float64
		want []int
	}{{24, []int{2, 3, 4, 5}}, {5, []int{1, 2, 3}}, {30, []int{2, 3, 4, 5}}, {31, []int{3, 4, 5, 6}}} {
		if got := Around(c.g, cal); !slices.Equal(got, c.want) {
			t.Errorf("Around(%v) = %v, want %v", c.g, got, c.want)
		}
	}
}

func TestMaxCtx(t *testing.T) {
	reqs := []capacity.Request{{Input: 1000, Output: 24, Thinking: 1}, {Input: 10, Cached: 5}}
	// 1000 + 25 = 1025 tokens: the next power of two is 2048.
	if got, err := maxCtx(reqs, Options{}); got != 2048 || err != nil {
		t.Errorf("maxCtx = %d, %v; want 2048", got, err)
	}
	if _, err := maxCtx(reqs, Options{MaxCtx: 1024}); err == nil {
		t.Error("max context 1024 < 1025 accepted")
	}
}
