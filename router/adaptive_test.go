package router

import (
	"math"
	"strings"
	"testing"

	"github.com/fleetsim/fleetsim/workload"
)

// TestAdaptiveLaw: the control law of docs/day.md, step by step by hand.
// Bounds [2048, 8192], step (8192-2048)/16 = 384, start 4096.
func TestAdaptiveLaw(t *testing.T) {
	a := NewAdaptive(AdaptiveConfig{MinBShort: 2048, MaxBShort: 8192}, 4096)
	calm := PoolSignals{Arrivals: 1000, Completed: 1000}
	preempting := PoolSignals{Arrivals: 1000, Completed: 1000, Preemptions: 20} // 0.02 / 0.01 = stress 2
	queued := PoolSignals{Arrivals: 1000, Completed: 900, QueuePerGPU: 6}       // 6 / 4 = stress 1.5
	rejecting := PoolSignals{Arrivals: 1000, Completed: 990, Rejections: 2}     // 0.002 / 0.001 = 2
	mild := PoolSignals{Arrivals: 1000, Completed: 1000, QueuePerGPU: 3}        // 0.75: neither calm nor past
	for i, step := range []struct {
		short, long PoolSignals
		want        int
		why         string
	}{
		{preempting, calm, 3712, "short preempts (stress 2): tighten 4096 → 3712"},
		{rejecting, calm, 3328, "short rejects: tighten"},
		{preempting, rejecting, 2944, "both at stress 2, short >= long: tighten"},
		{queued, rejecting, 2944, "long worse (2 > 1.5), short not calm: hold"},
		{calm, queued, 3328, "long queues, short calm: relax at once"},
		{calm, calm, 3328, "calm 1 of 3: hold"},
		{calm, calm, 3328, "calm 2 of 3: hold"},
		{calm, calm, 3712, "calm 3 of 3: relax"},
		{calm, mild, 3712, "long mild (0.75): not calm, counter reset"},
		{calm, calm, 3712, "calm 1 of 3 again"},
	} {
		if got := a.Update(step.short, step.long); got != step.want {
			t.Fatalf("step %d (%s): B_short %d, want %d", i, step.why, got, step.want)
		}
	}
	// Bounds: tightening stops at the minimum, relaxing at the maximum.
	for range 40 {
		a.Update(preempting, calm)
	}
	if a.BShort() != 2048 {
		t.Errorf("after 40 tightenings: %d, want 2048", a.BShort())
	}
	for range 200 {
		a.Update(calm, calm)
	}
	if a.BShort() != 8192 {
		t.Errorf("after 200 calm intervals: %d, want 8192", a.BShort())
	}
	// Stress by hand: max(3/100/0.01, 0/1000, 2/4) = 3.
	if s := (AdaptiveConfig{}).WithDefaults().Stress(PoolSignals{Arrivals: 1000, Completed: 100, Preemptions: 3, QueuePerGPU: 2}); math.Abs(s-3) > 1e-12 {
		t.Errorf("stress %v, want 3", s)
	}
}

func TestAdaptiveValidate(t *testing.T) {
	for _, tc := range []struct {
		c     AdaptiveConfig
		field string
	}{
		{AdaptiveConfig{MinBShort: 0, MaxBShort: 10}, "adaptive.min_b_short"},
		{AdaptiveConfig{MinBShort: 9000, MaxBShort: 4096}, "adaptive.max_b_short"},
		{AdaptiveConfig{MinBShort: 1, MaxBShort: 10, Step: -3}, "adaptive.step"},
		{AdaptiveConfig{MinBShort: 1, MaxBShort: 10, PreemptRate: math.NaN()}, "adaptive.preempt_rate"},
		{AdaptiveConfig{MinBShort: 1, MaxBShort: 10, RejectRate: -1}, "adaptive.reject_rate"},
		{AdaptiveConfig{MinBShort: 1, MaxBShort: 10, QueuePerGPU: math.Inf(1)}, "adaptive.queue_per_gpu"},
		{AdaptiveConfig{MinBShort: 1, MaxBShort: 10, Calm: 1}, "adaptive.calm"},
		{AdaptiveConfig{MinBShort: 1, MaxBShort: 10, Hold: -1}, "adaptive.hold"},
	} {
		if err := tc.c.Validate(); err == nil || !strings.Contains(err.Error(), tc.field+" = ") {
			t.Errorf("%+v: error %v, want one naming %s", tc.c, err, tc.field)
		}
	}
	if err := (AdaptiveConfig{MinBShort: 2048, MaxBShort: 8192}).Validate(); err != nil {
		t.Errorf("valid: %v", err)
	}
}

// TestSetBShort: moving B_short moves the short pool's threshold (and the
// C&R band's upper edge ⌊γ·B⌋): a request of L_in + L_out = 3,000 tokens
// (no bytes: the estimate is the true count) goes to the short pool at
// B_short 4,096 and to the long one at 2,048.
func TestSetBShort(t *testing.T) {
	pools := []Pool{{Name: "s", MaxContext: 4096, GPUs: 1, Slots: 8}, {Name: "l", MaxContext: 65536, GPUs: 1, Slots: 2}}
	r, err := New(Config{Kind: KindCR, PC: 1, BShort: 4096}, pools, 1)
	if err != nil {
		t.Fatal(err)
	}
	tb := r.(*TokenBudget)
	req := &workload.Request{InputTokens: 2500, OutputTokens: 500, MaxOutputTokens: 500, Category: workload.Code}
	loads := make([]Load, 2)
	if d := r.Route(req, loads); d.Pool != 0 {
		t.Fatalf("B_short 4096: pool %d, want 0", d.Pool)
	}
	tb.SetBShort(2048)
	if d := r.Route(req, loads); d.Pool != 1 {
		t.Errorf("B_short 2048: pool %d, want 1", d.Pool)
	}
	if tb.bShort != 2048 || tb.thr[0] != 2048 || tb.bandHi != 3072 {
		t.Errorf("after SetBShort(2048): b_short %d, threshold %d, band edge %d; want 2048, 2048, ⌊1.5·2048⌋ = 3072", tb.bShort, tb.thr[0], tb.bandHi)
	}
	tb.SetBShort(1 << 20) // clamped to the smallest pool's max context
	if tb.bShort != 4096 {
		t.Errorf("SetBShort(2^20): b_short %d, want 4096", tb.bShort)
	}
}
