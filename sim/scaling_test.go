package sim

import (
	"fmt"
	"math"
	"testing"

	"github.com/fleetsim/fleetsim/pools/autoscale"
	"github.com/fleetsim/fleetsim/router"
	"github.com/fleetsim/fleetsim/workload"
)

func ip(n int) *int         { return &n }
func fp(x float64) *float64 { return &x }
func sched(ts []float64, ns []int) autoscale.Schedule {
	return autoscale.Schedule{Times: ts, Counts: ns}
}

// scaledConfig is one a100 pool of count instances under a schedule
// policy (interval 1 s) with the given scaling block.
func scaledConfig(dispatch string, count int, s autoscale.Schedule, sc PoolScaling) Config {
	return Config{
		Pools:     []PoolConfig{{Name: "p", GPU: "a100", Count: count, MaxContext: 4096, Dispatch: dispatch, ScalingBlock: &sc}},
		Timing:    "kv",
		Workload:  workload.Spec{Requests: 1},
		SLO:       SLO{TTFTS: 0.5, TPOTS: 0.1},
		Autoscale: &autoscale.Config{Policy: autoscale.PolicySchedule, IntervalS: 1, Schedules: map[string]autoscale.Schedule{"p": s}},
	}
}

// checkCounts: every request that arrived left exactly once (served or
// rejected).
func checkCounts(t *testing.T, n int, recs []Record) {
	t.Helper()
	seen := make(map[int64]bool, n)
	for _, r := range recs {
		if seen[r.ID] {
			t.Fatalf("request %d emitted twice", r.ID)
		}
		seen[r.ID] = true
	}
	if len(seen) != n {
		t.Fatalf("%d requests arrived, %d left", n, len(seen))
	}
}

// TestScaledUpAdmitsNothingBeforeDelay: an overloaded pool of one instance
// is scaled to 3 at the tick at 2 s with a 5 s start-up delay: instances 1
// and 2 admit nothing before 2 + 5 = 7 s, and (the pool being overloaded)
// start at once then: central dispatch hands the new instance the queue's
// head at 7 s exactly.
func TestScaledUpAdmitsNothingBeforeDelay(t *testing.T) {
	for _, d := range []string{DispatchCentral, DispatchJSQ, DispatchRR} {
		cfg := scaledConfig(d, 1, sched([]float64{0, 2}, []int{1, 3}), PoolScaling{MinInstances: ip(1), MaxInstances: ip(3), StartupS: fp(5)})
		sink := &memSink{}
		const n = 1500
		sum, err := Run(cfg, newPoisson(n, 100, 500, 1500, 1), sink, Options{})
		if err != nil {
			t.Fatal(err)
		}
		checkCounts(t, n, sink.recs)
		first := map[int32]float64{0: math.Inf(1), 1: math.Inf(1), 2: math.Inf(1)}
		for _, r := range sink.recs {
			if r.Instance > 2 || r.Instance < 0 {
				t.Fatalf("%s: request %d on instance %d (want 0..2)", d, r.ID, r.Instance)
			}
			first[r.Instance] = min(first[r.Instance], r.AdmitS)
		}
		for _, i := range []int32{1, 2} {
			if !(first[i] >= 7) || first[i] > 7.1 {
				t.Errorf("%s: instance %d first admits at %v s; want in [7, 7.1] (scaled up at 2 s, delay 5 s)", d, i, first[i])
			}
		}
		if d == DispatchCentral && first[1] != 7 {
			t.Errorf("central: instance 1 first admits at %v s, want 7 exactly", first[1])
		}
		if s := sum.Scaling; s == nil || s.ScaleUps != 2 || s.Pools[0].PeakInstances != 3 {
			t.Errorf("%s: scaling summary %+v: want 2 scale-ups, peak 3", d, s)
		}
		t.Logf("%s: first admissions %v", d, first)
	}
}

// TestDrainingAdmitsNothingFinishesAll: an overloaded pool of three
// instances is scaled to one at the tick at 3 s: the drained instances
// (ids 2 and 1, newest first) take no request that arrives after 3 s,
// finish every request they held, and are billed from 0 to their last
// request's finish (instance-seconds = the end of the run + both finishes,
// a hand computation on the records).
func TestDrainingAdmitsNothingFinishesAll(t *testing.T) {
	for _, d := range []string{DispatchCentral, DispatchJSQ, DispatchRR} {
		cfg := scaledConfig(d, 3, sched([]float64{0, 3}, []int{3, 1}), PoolScaling{MinInstances: ip(1), MaxInstances: ip(3), StartupS: fp(5)})
		sink := &memSink{}
		const n = 2000
		sum, err := Run(cfg, newPoisson(n, 250, 500, 1500, 2), sink, Options{})
		if err != nil {
			t.Fatal(err)
		}
		checkCounts(t, n, sink.recs)
		last := map[int32]float64{}
		for _, r := range sink.recs {
			if r.Rejected {
				t.Fatalf("%s: request %d rejected: %s", d, r.ID, r.RejectedDetail)
			}
			if r.Instance != 0 && r.ArrivalS > 3 {
				t.Errorf("%s: request %d arrived at %v s, after the drain at 3 s, ran on draining instance %d", d, r.ID, r.ArrivalS, r.Instance)
			}
			last[r.Instance] = max(last[r.Instance], r.FinishS)
		}
		if !(last[1] > 3 && last[2] > 3) {
			t.Errorf("%s: drained instances' last finishes %v, %v s: want after the drain at 3 s (they held work)", d, last[1], last[2])
		}
		b := sum.Scaling.Pools[0]
		want := sum.SimTimeS + last[1] + last[2]
		if math.Abs(b.InstanceSeconds-want) > 1e-9*want {
			t.Errorf("%s: instance-seconds %v, want %v = end %v + %v + %v", d, b.InstanceSeconds, want, sum.SimTimeS, last[1], last[2])
		}
		if b.ScaleDowns != 2 || b.EndInstances != 1 {
			t.Errorf("%s: %d scale-downs, %d instances at the end; want 2, 1", d, b.ScaleDowns, b.EndInstances)
		}
	}
}

// TestGPUSecondsThreeEvents: a three-event script in a real run: two
// instances (reserved at $1/h), scaled to 4 at 1000 s, back to 2 at 2000 s
// (on demand at $3/h, start-up 100 s); no request arrives in [1000, 2000) s
// (a step profile), so the two new instances are idle when drained and are
// released at 2000 s. By hand: GPU-seconds = 2·T + 2·(2000 − 1000) with T
// the end of the run (one GPU per a100 instance); cost = 2·T/3600·$1 +
// 2000/3600·$3.
func TestGPUSecondsThreeEvents(t *testing.T) {
	cfg := scaledConfig(DispatchCentral, 2, sched([]float64{0, 1000, 2000}, []int{2, 4, 2}),
		PoolScaling{MinInstances: ip(2), MaxInstances: ip(4), StartupS: fp(100), ReservedRate: fp(1), OnDemandRate: fp(3)})
	cfg.Autoscale.IntervalS = 100
	cfg.Workload = workload.Spec{CDF: "azure", Requests: 100, RateProfile: "step:0=0.05,1000=0,2000=0.05"}
	cfg.WarmupFraction = 0
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	src, err := workload.NewSource(cfg.Workload, 1)
	if err != nil {
		t.Fatal(err)
	}
	sink := &memSink{}
	sum, err := Run(cfg, src, sink, Options{})
	if err != nil {
		t.Fatal(err)
	}
	checkCounts(t, 100, sink.recs)
	for _, r := range sink.recs {
		if r.ArrivalS >= 1000 && r.ArrivalS < 2000 {
			t.Fatalf("request %d arrives at %v s, inside the gap", r.ID, r.ArrivalS)
		}
		if r.FinishS > 1100 && r.ArrivalS < 1000 {
			t.Fatalf("request %d (arrived %v s) still running at 1100 s: the new instances may hold work", r.ID, r.ArrivalS)
		}
	}
	T := sum.SimTimeS
	b := sum.Scaling.Pools[0]
	if want := 2*T + 2000; math.Abs(b.GPUSeconds-want) > 1e-9*want {
		t.Errorf("GPU-seconds %v, want 2·%v + 2000 = %v", b.GPUSeconds, T, want)
	}
	if want := 2*T/3600 + 2000.0/3600*3; math.Abs(b.CostUSD-want) > 1e-9*want {
		t.Errorf("cost $%v, want $%v", b.CostUSD, want)
	}
	if b.ScaleUps != 2 || b.ScaleDowns != 2 {
		t.Errorf("scale events %d up, %d down; want 2, 2", b.ScaleUps, b.ScaleDowns)
	}
	t.Logf("T = %.3f s: %.1f GPU-s, $%.4f", T, b.GPUSeconds, b.CostUSD)
}

// TestAdaptiveBShortTightens: a one-instance short pool overloaded (queue
// per GPU far above 4) makes the adaptive threshold tighten one step per
// control interval (router.Adaptive's law: σ_s > 1 and σ_s ≥ σ_l), and the
// router follows: the requests it sends to the long pool grow.
func TestAdaptiveBShortTightens(t *testing.T) {
	cfg := Config{
		Pools:    []PoolConfig{{Name: "short", GPU: "a100", Count: 1, MaxContext: 4096}, {Name: "long", GPU: "a100", Count: 8, MaxContext: 65536}},
		Timing:   "kv",
		Workload: workload.Spec{CDF: "azure", Rate: 200, Requests: 2000},
		SLO:      SLO{TTFTS: 0.5, TPOTS: 0.1},
		Router: RouterConfig{Config: router.Config{Kind: RouterTokenBudget},
			Adaptive: &router.AdaptiveConfig{MinBShort: 1024, MaxBShort: 4096, Step: 512}},
		Autoscale: &autoscale.Config{Policy: autoscale.PolicyStatic, IntervalS: 1},
	}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	var bs []int
	sink := &memSink{}
	const n = 2000
	if _, err := Run(cfg, newPoisson(n, 200, 500, 3500, 3), sink, Options{OnDecision: func(d Decision) { bs = append(bs, d.BShort) }}); err != nil {
		t.Fatal(err)
	}
	checkCounts(t, n, sink.recs)
	for i := 1; i < len(bs); i++ {
		if d := bs[i-1] - bs[i]; d != 0 && d != 512 {
			t.Fatalf("B_short per tick %v: want steps of 512 tokens down", bs)
		}
	}
	if len(bs) < 4 || bs[len(bs)-1] != 1024 {
		t.Fatalf("B_short per tick %v: want it down to the minimum 1024", bs)
	}
	long := [2]int{}
	for _, r := range sink.recs {
		if r.Pool == "long" {
			long[min(int(r.ArrivalS), 1)]++
		}
	}
	if long[1] == 0 {
		t.Errorf("no request went to the long pool after the first tick")
	}
	t.Logf("B_short per tick %v", bs)
}

// TestSeriesDoesNotChangeAutoscaledRun: an autoscaled run (threshold on
// the queue, instances starting, serving and draining, an adaptive
// B_short) gives the same records and summary (its bill included) with a
// time series at any interval as without one (the recorder reads bills
// without moving the accounting).
func TestSeriesDoesNotChangeAutoscaledRun(t *testing.T) {
	for _, mode := range []string{DispatchCentral, DispatchJSQ, DispatchRR} {
		cfg := Defaults()
		cfg.Timing = "kv"
		cfg.Workload = workload.Spec{CDF: "azure", RateProfile: "step:0=100,10=400,20=50", Requests: 6_000}
		cfg.Pools = []PoolConfig{
			{Name: "short", GPU: "a100", Count: 3, MaxContext: 4096, Dispatch: mode, ScalingBlock: &PoolScaling{MinInstances: ip(1), MaxInstances: ip(0), StartupS: fp(2)}},
			{Name: "long", GPU: "a100", Count: 6, MaxContext: 65536, Dispatch: mode, ScalingBlock: &PoolScaling{MinInstances: ip(1), MaxInstances: ip(0), StartupS: fp(2)}},
		}
		down := 3.0
		cfg.Autoscale = &autoscale.Config{Policy: autoscale.PolicyThreshold, IntervalS: 1, Metric: autoscale.MetricQueue, Target: 2, DownWindowS: &down}
		cfg.Router = RouterConfig{Config: router.Config{Kind: RouterTokenBudget}, Adaptive: &router.AdaptiveConfig{MinBShort: 1024, MaxBShort: 4096}}
		compareSeriesRuns(t, "autoscaled "+mode, cfg, 0.3, 7)
		_, base, _ := runSeries(t, cfg, 0)
		if base.Scaling.ScaleUps == 0 || base.Scaling.ScaleDowns == 0 {
			t.Fatalf("%s: %d scale-ups, %d scale-downs; want both", mode, base.Scaling.ScaleUps, base.Scaling.ScaleDowns)
		}
		for _, dt := range []float64{0.3, 7} {
			_, got, _ := runSeries(t, cfg, dt)
			if a, b := fmt.Sprintf("%+v", *base.Scaling), fmt.Sprintf("%+v", *got.Scaling); a != b {
				t.Errorf("%s, interval %v s: scaling summary differs:\n%s\n%s", mode, dt, a, b)
			}
		}
	}
}
