package sim

import (
	"math"
	"strings"
	"testing"

	"github.com/fleetsim/fleetsim/pools/catalog"
)

// TestLifecycleHand: a three-event script against a hand computation.
//
// Pool: 2 instances serving from 0; 1 reserved at $1/h, on demand $3/h,
// start-up 100 s, 2 GPUs per instance.
//  1. t = 1000: scale to 4 → ids 2, 3 start, serving from 1100;
//  2. t = 2000: scale to 2 → ids 3, 2 drain (newest first);
//  3. the drains finish at 2300 (id 3) and 2600 (id 2); the bill is taken
//     at 3600.
//
// Billed instances: 2 on [0, 1000), 4 on [1000, 2300), 3 on [2300, 2600),
// 2 on [2600, 3600): 2000 + 5200 + 900 + 2000 = 10100 instance-seconds,
// 20200 GPU-seconds. Reserved: 1 × 3600 s × $1/h = $1. On demand (above
// 1): 1000 + 3900 + 600 + 1000 = 6500 s × $3/h = $5.41666...
func TestLifecycleHand(t *testing.T) {
	l := NewLifecycle(Scaling{Max: 10, Reserved: 1, ReservedRate: 1, OnDemandRate: 3, StartupS: 100, GPUsPerInst: 2}, 2, 0)
	c := l.ScaleTo(1000, 4)
	if len(c.Start) != 2 || c.Start[0] != 2 || c.ServeAt[0] != 1100 || len(c.Drain) != 0 {
		t.Fatalf("scale-up: %+v", c)
	}
	// Not serving before t + delay.
	if l.Admits(2) || l.State(2) != Starting {
		t.Errorf("instance 2 admits work while starting")
	}
	if err := l.Ready(1099.999, 2); err == nil || l.Admits(2) {
		t.Errorf("instance 2 ready before 1100 s: err %v", err)
	}
	for _, id := range c.Start {
		if err := l.Ready(1100, id); err != nil {
			t.Fatal(err)
		}
	}
	if !l.Admits(3) || l.Count(Serving) != 4 {
		t.Errorf("after start-up: serving %d, want 4", l.Count(Serving))
	}
	c = l.ScaleTo(2000, 2)
	if len(c.Drain) != 2 || c.Drain[0] != 3 || c.Drain[1] != 2 {
		t.Fatalf("scale-down: %+v, want drains 3, 2", c)
	}
	if l.Admits(3) || l.Active() != 2 || l.Count(Draining) != 2 {
		t.Errorf("draining instance admits, or counts wrong: active %d draining %d", l.Active(), l.Count(Draining))
	}
	if err := l.Drained(2300, 3); err != nil {
		t.Fatal(err)
	}
	if err := l.Drained(2600, 2); err != nil {
		t.Fatal(err)
	}
	b := l.Bill(3600)
	want := Bill{InstanceSeconds: 10100, GPUSeconds: 20200, ReservedUSD: 1, OnDemandUSD: 6500 * 3 / 3600.0, ScaleUps: 2, ScaleDowns: 2}
	want.CostUSD = want.ReservedUSD + want.OnDemandUSD
	if math.Abs(b.CostUSD-want.CostUSD) > 1e-12 || b.InstanceSeconds != want.InstanceSeconds || b.GPUSeconds != want.GPUSeconds ||
		b.ScaleUps != 2 || b.ScaleDowns != 2 {
		t.Errorf("bill %+v, want %+v", b, want)
	}
}

// TestLifecycleCancelAndClamp: a scale-down cancels starting instances
// first (billed from decision to cancellation) and desired counts are
// clamped to [Min, Max].
func TestLifecycleCancelAndClamp(t *testing.T) {
	l := NewLifecycle(Scaling{Min: 1, Max: 3, OnDemandRate: 3600, StartupS: 50}, 1, 0)
	if c := l.ScaleTo(10, 9); len(c.Start) != 2 { // clamped to Max 3
		t.Fatalf("scale to 9 with max 3: %+v", c)
	}
	c := l.ScaleTo(20, 0) // clamped to Min 1: both starting ones cancelled
	if len(c.Cancel) != 2 || len(c.Drain) != 0 || l.Active() != 1 || l.State(1) != Released {
		t.Fatalf("scale to 0 with min 1: %+v, active %d", c, l.Active())
	}
	// $3600/h = $1/s: 1 × 30 s + 2 × 10 s = $50.
	if b := l.Bill(30); b.CostUSD != 50 {
		t.Errorf("cost %v, want 50", b.CostUSD)
	}
	if err := l.Ready(60, 1); err == nil {
		t.Errorf("a cancelled instance became ready")
	}
	if err := l.Drained(60, 0); err == nil {
		t.Errorf("a serving instance was drained without a drain")
	}
}

func TestScalingValidate(t *testing.T) {
	for _, tc := range []struct {
		s     Scaling
		field string
	}{
		{Scaling{Min: 5, Max: 2}, "min_instances"},
		{Scaling{Min: -1}, "min_instances"},
		{Scaling{Max: -1}, "max_instances"},
		{Scaling{Max: 2, Reserved: 3}, "reserved_instances"},
		{Scaling{ReservedRate: math.NaN()}, "reserved_rate"},
		{Scaling{OnDemandRate: -1}, "on_demand_rate"},
		{Scaling{StartupS: -1}, "startup_s"},
		{Scaling{StartupS: math.Inf(1)}, "startup_s"},
	} {
		if err := tc.s.Validate(); err == nil || !strings.HasPrefix(err.Error(), tc.field+" = ") {
			t.Errorf("%+v: error %v, want one naming %s", tc.s, err, tc.field)
		}
	}
	if err := (Scaling{Min: 1, Max: 4, Reserved: 2, StartupS: 130.6}).Validate(); err != nil {
		t.Errorf("valid scaling: %v", err)
	}
}

// TestDefaultScaling: a fixed pool billed at the catalog's price, with the
// catalog's start-up delay (A100 serving Llama-3-70B: 60 s + 141.2 GB at
// 2 GB/s).
func TestDefaultScaling(t *testing.T) {
	g, err := catalog.LookupGPU("a100")
	if err != nil {
		t.Fatal(err)
	}
	s := DefaultScaling("a100", g, 43, catalog.Startup{})
	if s.Min != 43 || s.Max != 43 || s.Reserved != 43 || s.ReservedRate != 2.21 || math.Abs(s.StartupS-130.6) > 1e-9 || s.GPUsPerInst != 1 {
		t.Errorf("default scaling %+v", s)
	}
	// 43 A100s for an hour: 43 × $2.21.
	if b := NewLifecycle(s, 43, 0).Bill(3600); math.Abs(b.CostUSD-43*2.21) > 1e-9 || b.GPUSeconds != 43*3600 {
		t.Errorf("bill %+v, want $%v and %v GPU-s", b, 43*2.21, 43*3600)
	}
}
