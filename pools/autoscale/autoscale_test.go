package autoscale

import (
	"math"
	"strings"
	"testing"

	"github.com/fleetsim/fleetsim/pools/variants"
)

func obs(t float64, current, queue int) Observation {
	return Observation{TimeS: t, Current: current, Serving: current, Queue: queue}
}

// TestThresholdHand: the HPA rule by hand (kubernetes.io, "Horizontal Pod
// Autoscaling": desired = ⌈current × value/target⌉, no change within the
// tolerance).
func TestThresholdHand(t *testing.T) {
	for _, tc := range []struct {
		name   string
		metric string
		target float64
		o      Observation
		want   int
	}{
		{"queue 6/inst, target 4: ⌈10·1.5⌉", MetricQueue, 4, obs(0, 10, 60), 15},
		{"queue 4.2/inst: within 0.1", MetricQueue, 4, obs(0, 10, 42), 10},
		{"queue 4.5/inst: beyond 0.1: ⌈10·1.125⌉", MetricQueue, 4, obs(0, 10, 45), 12},
		{"queue 0: ⌈0⌉", MetricQueue, 4, obs(0, 10, 0), 0},
		{"kv 0.9, target 0.6: ⌈8·1.5⌉", MetricKV, 0.6, Observation{Current: 8, Serving: 8, KVUtil: 0.9}, 12},
		{"running 96/inst over 8, target 64: ⌈8·1.5⌉", MetricRunning, 64, Observation{Current: 8, Serving: 8, Running: 768}, 12},
		{"rate 30/s on 4, target 5/s: ⌈4·1.5⌉", MetricRate, 5, Observation{Current: 4, Serving: 4, RateRPS: 30}, 6},
		{"slots 96 of 4×32 = 0.75, target 0.5: ⌈4·1.5⌉", MetricSlots, 0.5, Observation{Current: 4, Serving: 4, Running: 96, Slots: 32}, 6},
		// Ratio computed over serving instances only: 2 serving of 5.
		{"starting instances report nothing: ⌈2·3⌉", MetricQueue, 4, Observation{Current: 5, Serving: 2, Queue: 24}, 6},
		{"none serving: keep", MetricQueue, 4, Observation{Current: 3, Queue: 50}, 3},
		{"scaled to zero, work waits: 1", MetricQueue, 4, Observation{Queue: 1}, 1},
		{"scaled to zero, idle: 0", MetricQueue, 4, Observation{}, 0},
		{"exact 4.0 ratio rounds down: ⌈10·0.4⌉", MetricQueue, 10, obs(0, 10, 40), 4},
	} {
		p := NewThreshold(tc.metric, tc.target, DefaultTolerance, 0, 0, 1)
		if got := p.Decide([]Observation{tc.o})[0]; got != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, got, tc.want)
		}
	}
}

// TestThresholdWindows: the HPA's stabilization (KEP-853: up to the lowest
// recommendation of the scale-up window, down to the highest of the
// scale-down window).
func TestThresholdWindows(t *testing.T) {
	// Scale-down window 300 s: a peak at t = 0 (recommends 15) holds the
	// pool at 15 until t = 300, when t = 0 leaves the window (t > now − 300).
	p := NewThreshold(MetricQueue, 4, DefaultTolerance, 0, 300, 1)
	cur := 10
	var got []int
	for _, step := range []struct {
		t float64
		q int
	}{{0, 60}, {30, 30}, {270, 30}, {300, 30}} {
		cur = p.Decide([]Observation{obs(step.t, cur, step.q*cur/10)})[0]
		got = append(got, cur)
	}
	// t=0: ⌈10·1.5⌉ = 15. t=30: 15 serving, queue 45 → 3/inst → ⌈15·0.75⌉ =
	// 12, held at max(15, 12) = 15. t=270: same, 15. t=300: window (0, 300]
	// holds 12s only → 12.
	if want := []int{15, 15, 15, 12}; !equal(got, want) {
		t.Errorf("scale-down window: %v, want %v", got, want)
	}
	// Scale-up window 60 s: t=0 recommends 10 (within tolerance), t=30
	// recommends 20 → min(10, 20) = 10, no change; t=60 recommends 20, the
	// window (0, 60] holds 20, 20 → 20.
	p = NewThreshold(MetricQueue, 4, DefaultTolerance, 60, 0, 1)
	got = got[:0]
	for _, o := range []Observation{obs(0, 10, 41), obs(30, 10, 80), obs(60, 10, 80)} {
		got = append(got, p.Decide([]Observation{o})[0])
	}
	if want := []int{10, 10, 20}; !equal(got, want) {
		t.Errorf("scale-up window: %v, want %v", got, want)
	}
}

func equal(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestScheduleAndStatic(t *testing.T) {
	s := Scheduled{Pools: []Schedule{
		{Times: []float64{0, 3600, 7200}, Counts: []int{4, 9, 6}, PeriodS: 10800},
		{Times: []float64{0}, Counts: []int{2}},
	}}
	for _, tc := range []struct {
		t    float64
		want [2]int
	}{{0, [2]int{4, 2}}, {3599.9, [2]int{4, 2}}, {3600, [2]int{9, 2}}, {9000, [2]int{6, 2}}, {10800 + 3700, [2]int{9, 2}}} {
		got := s.Decide([]Observation{{TimeS: tc.t}, {TimeS: tc.t}})
		if got[0] != tc.want[0] || got[1] != tc.want[1] {
			t.Errorf("schedule at %v s: %v, want %v", tc.t, got, tc.want)
		}
	}
	if got := (Static{}).Decide([]Observation{{Current: 7, Queue: 900}, {Current: 3}}); got[0] != 7 || got[1] != 3 {
		t.Errorf("static: %v, want [7 3]", got)
	}
}

// wvaFile is a variants file with one workload per pool (short, long),
// each with the one variant its pool runs. The profile is the reference
// H100 profile of examples/variants.yaml.
const wvaFile = `
mode: unlimited
inventory: {H100: 6}
variants:
  - {name: s-h100, model: m-short, accelerator: H100, unit_cost: 3.90,
     profile: {alpha_ms: 7.47, beta_ms: 0.044, gamma_ms: 15.415, delta_ms: 0.000337, max_batch: 512, at_tokens: 211}}
  - {name: l-h100, model: m-long, accelerator: H100, unit_cost: 3.90,
     profile: {alpha_ms: 7.47, beta_ms: 0.044, gamma_ms: 15.415, delta_ms: 0.000337, max_batch: 512, at_tokens: 211}}
workloads:
  - {name: long, model: m-long, rate_rpm: 60, in_tokens: 100, out_tokens: 100, slo: {ttft_ms: 500, itl_ms: 24}}
  - {name: short, model: m-short, rate_rpm: 60, in_tokens: 100, out_tokens: 100, slo: {ttft_ms: 500, itl_ms: 24}}
`

// TestWVACrossCheck: on a recorded interval, each pool's count is the
// replicas variants.Optimize (the function `fleetsim optimize` calls)
// allocates to that pool's workload at the measured load, unlimited and
// limited by the inventory.
func TestWVACrossCheck(t *testing.T) {
	cfg, err := variants.ParseConfig([]byte(wvaFile))
	if err != nil {
		t.Fatal(err)
	}
	// The recorded interval: short saw 100 req/s of 1155/211 tokens, long 20
	// req/s of 3000/120.
	o := []Observation{
		{TimeS: 60, Current: 1, Serving: 1, RateRPS: 100, MeanIn: 1155.4, MeanOut: 210.6, Arrivals: 6000},
		{TimeS: 60, Current: 1, Serving: 1, RateRPS: 20, MeanIn: 3000, MeanOut: 120, Arrivals: 1200},
	}
	for _, tc := range []struct {
		mode string
		inv  int
	}{{variants.ModeUnlimited, 6}, {variants.ModeLimited, 6}, {variants.ModeLimited, 2}} {
		mode := tc.mode
		cfg.Inventory = map[string]int{"H100": tc.inv}
		a, err := New(Config{Policy: PolicyWVA, Variants: "v.yaml", Mode: mode}, []string{"short", "long"}, cfg)
		if err != nil {
			t.Fatal(err)
		}
		got := a.Decide(o)
		// The same load, by hand, through the optimizer.
		ref, _ := variants.ParseConfig([]byte(wvaFile))
		ref.Inventory = map[string]int{"H100": tc.inv}
		ref.Workloads[1].RateRPM, ref.Workloads[1].InTokens, ref.Workloads[1].OutTokens = 6000, 1155, 211
		ref.Workloads[0].RateRPM, ref.Workloads[0].InTokens, ref.Workloads[0].OutTokens = 1200, 3000, 120
		res, err := variants.Optimize(ref, variants.Options{Mode: mode})
		if err != nil {
			t.Fatal(err)
		}
		want := []int{res.Allocations[1].Replicas, res.Allocations[0].Replicas}
		if !equal(got, want) || want[0] < min(2, tc.inv-1) {
			t.Errorf("%s: wva %v, optimizer %v (short needs several replicas at 100 req/s)", mode, got, want)
		}
		if err := a.(*Stabilized).Failed(); err != nil {
			t.Errorf("%s: optimizer error %v", mode, err)
		}
		t.Logf("%s, %d H100: short %d, long %d replicas", mode, tc.inv, got[0], got[1])
	}
	// An interval without arrivals: rate 0, the optimizer's minimum (0).
	a, _ := New(Config{Policy: PolicyWVA, Variants: "v.yaml"}, []string{"short", "long"}, cfg)
	if got := a.Decide([]Observation{{TimeS: 15, Current: 3}, {TimeS: 15, Current: 2}}); got[0] != 0 || got[1] != 0 {
		t.Errorf("idle interval: %v, want [0 0]", got)
	}
}

// TestConfigBadInput: every bad autoscaler names its field.
func TestConfigBadInput(t *testing.T) {
	neg, nan := -1.0, math.NaN()
	pools := []string{"short", "long"}
	for _, tc := range []struct {
		c     Config
		field string
	}{
		{Config{Policy: "magic"}, "autoscale.policy"},
		{Config{Policy: PolicyStatic, IntervalS: -5}, "autoscale.interval_s"},
		{Config{Policy: PolicyStatic, IntervalS: nan}, "autoscale.interval_s"},
		{Config{Policy: PolicyThreshold, Metric: "cpu", Target: 1}, "autoscale.metric"},
		{Config{Policy: PolicyThreshold, Metric: MetricQueue, Target: 0}, "autoscale.target"},
		{Config{Policy: PolicyThreshold, Metric: MetricKV, Target: 1.5}, "autoscale.target"},
		{Config{Policy: PolicyThreshold, Metric: MetricQueue, Target: 4, Tolerance: &neg}, "autoscale.tolerance"},
		{Config{Policy: PolicyThreshold, Metric: MetricQueue, Target: 4, DownWindowS: &neg}, "autoscale.down_window_s"},
		{Config{Policy: PolicyThreshold, Metric: MetricQueue, Target: 4, UpWindowS: &nan}, "autoscale.up_window_s"},
		{Config{Policy: PolicyStatic, Metric: MetricQueue}, "autoscale.metric"},
		{Config{Policy: PolicyWVA}, "autoscale.variants"},
		{Config{Policy: PolicyWVA, Variants: "v.yaml", Mode: "greedy"}, "autoscale.mode"},
		{Config{Policy: PolicySchedule}, "autoscale.schedules"},
		{Config{Policy: PolicySchedule, Schedules: map[string]Schedule{"short": {Times: []float64{0, 10, 5}, Counts: []int{1, 2, 3}},
			"long": {Times: []float64{0}, Counts: []int{1}}}}, "autoscale.schedules.short.times_s"},
		{Config{Policy: PolicySchedule, Schedules: map[string]Schedule{"short": {Times: []float64{0}, Counts: []int{-1}},
			"long": {Times: []float64{0}, Counts: []int{1}}}}, "autoscale.schedules.short.instances"},
	} {
		err := tc.c.Validate(pools)
		if err == nil || !strings.HasPrefix(err.Error(), tc.field+" = ") {
			t.Errorf("%+v: error %v, want one naming %s", tc.c, err, tc.field)
		}
	}
}

func TestParseConfig(t *testing.T) {
	c, err := ParseConfig("threshold:metric=queue,target=4,tolerance=0.05,up=0,down=5m,interval=30s")
	if err != nil {
		t.Fatal(err)
	}
	if c.Policy != PolicyThreshold || c.Metric != MetricQueue || c.Target != 4 || *c.Tolerance != 0.05 ||
		*c.UpWindowS != 0 || *c.DownWindowS != 300 || c.IntervalS != 30 || c.Validate(nil) != nil {
		t.Errorf("parsed %+v", c)
	}
	if c, err := ParseConfig("wva:v.yaml,mode=limited"); err != nil || c.Variants != "v.yaml" || c.Mode != "limited" {
		t.Errorf("wva: %+v, %v", c, err)
	}
	for _, s := range []string{"threshold:metric", "threshold:colour=red", "threshold:target=x", "threshold:down=soon"} {
		if _, err := ParseConfig(s); err == nil || !strings.HasPrefix(err.Error(), "autoscale.") {
			t.Errorf("%q: error %v, want one naming an autoscale field", s, err)
		}
	}
}

// FuzzParseConfig: the flag parser never panics, and what validates builds.
func FuzzParseConfig(f *testing.F) {
	for _, s := range []string{"static", "threshold:metric=queue,target=4,down=5m", "wva:v.yaml,mode=limited", "threshold:tolerance=NaN", "x:y=z"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseConfig(s)
		if err != nil || c.Validate([]string{"a"}) != nil || c.Policy == PolicyWVA {
			return
		}
		a, err := New(c, []string{"a"}, nil)
		if err != nil {
			t.Fatalf("%q validates but does not build: %v", s, err)
		}
		a.Decide([]Observation{{TimeS: 1, Current: 2, Serving: 2, Queue: 9, KVUtil: 0.5, RateRPS: 3}})
	})
}

// seq is a policy that answers a fixed sequence (one pool).
type seq struct {
	n []int
	k int
}

func (s *seq) Decide([]Observation) []int { s.k++; return []int{s.n[s.k-1]} }

// TestStabilizedHand: with a 300 s down window, answers 5, 2, 2, 7, 1 at
// 0, 15, 400, 410, 500 s become 5 (5), 5 (max of 5, 2), 2 (the 5 is 400 s
// old), 7 (up at once), 7 (the 7 of 410 s is within 300 s).
func TestStabilizedHand(t *testing.T) {
	s := &Stabilized{Inner: &seq{n: []int{5, 2, 2, 7, 1}}, DownWindowS: 300}
	for i, c := range []struct {
		t    float64
		want int
	}{{0, 5}, {15, 5}, {400, 2}, {410, 7}, {500, 7}} {
		if got := s.Decide([]Observation{{TimeS: c.t}})[0]; got != c.want {
			t.Errorf("step %d at %v s: %d, want %d", i, c.t, got, c.want)
		}
	}
}

// An unknown key in the --autoscale text names the key, not the policy
// (the policy "threshold" is fine; found in the review of issue 17).
func TestParseConfigUnknownKeyBlamesKey(t *testing.T) {
	_, err := ParseConfig("threshold:metric=queue,target=4,bogus=3")
	if err == nil {
		t.Fatal("accepted an unknown key")
	}
	if msg := err.Error(); strings.Contains(msg, "autoscale.policy") || !strings.HasPrefix(msg, `autoscale.bogus = "3": unknown key`) {
		t.Fatalf("error %q: want the unknown key named, not autoscale.policy", msg)
	}
}
