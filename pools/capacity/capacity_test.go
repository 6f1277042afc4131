package capacity

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fleetsim/fleetsim/workload"
)

func mustDefault(t testing.TB) Profile {
	t.Helper()
	p, err := LookupProfile(DefaultProfile)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func f64(x float64) *float64 { return &x }

// Issue 10's acceptance cases; hand computations in the comments (the same
// cases as slosizer's tests/test_utils.py, recomputed here).
func TestWork(t *testing.T) {
	def := mustDefault(t)
	if def.Tau != 1000 || def.Weights != (Weights{1, 0, 4, 4}) || def.Increment != 1 || def.Minimum != 1 {
		t.Fatalf("default profile = %+v, want tau 1000, weights (1, 0, 4, 4), increment 1, minimum 1", def)
	}
	cached := def
	cached.Weights.Cached = 0.1
	long := def
	long.Long = &LongContext{Threshold: 4096, Input: f64(2), Output: f64(8)}
	for _, c := range []struct {
		name string
		p    Profile
		r    Request
		want float64
	}{
		// 1·1000 + 4·100 = 1,400.
		{"default I=1000 O=100", def, Request{Input: 1000, Output: 100}, 1400},
		// (1000 − 200)·1 + 200·0.1 + 100·4 + 50·4 = 800 + 20 + 400 + 200 = 1,420.
		{"cached C=200 w_cache=0.1", cached, Request{Input: 1000, Cached: 200, Output: 100, Thinking: 50}, 1420},
		// w_cache = 0: the cached 200 tokens cost nothing (not w_in).
		{"cached C=200 w_cache=0", def, Request{Input: 1000, Cached: 200, Output: 100, Thinking: 50}, 1400},
		// I = 4,096 is not above the threshold: 4096 + 4·10 = 4,136.
		{"long rule at I=4096", long, Request{Input: 4096, Output: 10}, 4136},
		// I = 4,097 > 4,096: 2·4097 + 8·10 = 8,274; thinking keeps w = 4: + 4·5.
		{"long rule at I=4097", long, Request{Input: 4097, Output: 10, Thinking: 5}, 8294},
	} {
		if got := c.p.Work(c.r); got != c.want {
			t.Errorf("%s: B = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestRequestValidate(t *testing.T) {
	for _, r := range []Request{
		{Input: -1, Latency: math.NaN()},
		{Input: 10, Cached: 11, Latency: math.NaN()},
		{Input: 10, Output: -5, Latency: math.NaN()},
		{Input: 10, Thinking: -1, Latency: math.NaN()},
		{Arrival: math.NaN(), Input: 1, Latency: math.NaN()},
		{Input: 1, Latency: -1},
	} {
		var fe *workload.FieldError
		if err := r.Validate(0); !errors.As(err, &fe) {
			t.Errorf("%+v: err = %v, want a FieldError", r, err)
		}
	}
	if err := (Request{Input: 10, Cached: 10, Latency: math.NaN()}).Validate(0); err != nil {
		t.Errorf("C = I: %v", err)
	}
}

// randomRequests returns n requests with exponential gaps of mean gap()
// seconds, input in [1, maxIn] and output in [1, maxOut] tokens.
func randomRequests(rng *rand.Rand, n int, gap func() float64, maxIn, maxOut int) []Request {
	reqs := make([]Request, n)
	at := 0.0
	for i := range reqs {
		at += rng.ExpFloat64() * gap()
		reqs[i] = Request{Arrival: at, Input: 1 + rng.IntN(maxIn), Output: 1 + rng.IntN(maxOut), Latency: math.NaN()}
	}
	return reqs
}

func constant(x float64) func() float64 { return func() float64 { return x } }

// arrivals returns n requests at t = 0..n-1 s of work 1,400 each.
func arrivals(n int) []Request {
	r := make([]Request, n)
	for i := range r {
		r[i] = Request{Arrival: float64(i) + 100, Input: 1000, Output: 100, Latency: math.NaN()}
	}
	return r
}

func TestBuckets(t *testing.T) {
	p := mustDefault(t)
	s, err := NewSeries(arrivals(10), p)
	if err != nil {
		t.Fatal(err)
	}
	// t = 0..9 (relative to the first): ⌊9/1⌋+1 = 10 buckets at Δ = 1 and
	// ⌊9/5⌋+1 = 2 at Δ = 5 (slosizer's tests/test_simulation.py).
	for _, c := range []struct {
		delta float64
		n     int
		x0    float64
	}{{1, 10, 1.4}, {5, 2, 5 * 1400 / 5000.0}} {
		w, err := Bucket(s, p.Tau, c.delta)
		if err != nil {
			t.Fatal(err)
		}
		if w.Buckets() != c.n || math.Abs(w.X[0]-c.x0) > 1e-12 {
			t.Errorf("Δ = %g: %d buckets, X_0 = %v; want %d, %v", c.delta, w.Buckets(), w.X[0], c.n, c.x0)
		}
	}
	// Empty buckets count: arrivals at 0 and 10 give 11 buckets at Δ = 1,
	// nine of them empty.
	s2, _ := NewSeries([]Request{{Arrival: 0, Input: 1000, Latency: math.NaN()}, {Arrival: 10, Input: 1000, Latency: math.NaN()}}, p)
	w, _ := Bucket(s2, p.Tau, 1)
	if w.Buckets() != 11 || w.X[5] != 0 || w.X[10] != 1 {
		t.Errorf("gap: %d buckets %v", w.Buckets(), w.X)
	}
	if _, err := Bucket(s, p.Tau, 0); err == nil {
		t.Error("Δ = 0 accepted")
	}
	if _, err := Bucket(s, p.Tau, -1); err == nil {
		t.Error("Δ < 0 accepted")
	}
}

func TestRoundUp(t *testing.T) {
	for _, c := range []struct {
		x        float64
		min, inc int
		want     float64
	}{
		{11, 1, 5, 15}, // issue 10 / slosizer test_utils
		{2, 7, 5, 10},  // the minimum 7 rounds up to 10
		{10, 1, 5, 10}, // an exact multiple stays
		{0, 5, 5, 5},
		{10 * 1.1, 1, 1, 11}, // 11.000000000000002 is 11, not 12
		{11.01, 1, 1, 12},
	} {
		if got := RoundUp(c.x, c.min, c.inc); got != c.want {
			t.Errorf("RoundUp(%v, %d, %d) = %v, want %v", c.x, c.min, c.inc, got, c.want)
		}
	}
}

func TestWindowStats(t *testing.T) {
	p := mustDefault(t)
	rng := rand.New(rand.NewPCG(1, 2))
	reqs := randomRequests(rng, 500, constant(0.2), 4000, 500)
	s, _ := NewSeries(reqs, p)
	w, _ := Bucket(s, p.Tau, 1)
	// G = 0: every unit is overflow, so E[(X − 0)+] is the mean of X.
	st := w.Stats(0)
	if math.Abs(st.Overflow-st.MeanX) > 1e-12*st.MeanX || st.Spare != 0 || st.SpareFraction != 0 {
		t.Errorf("G = 0: overflow %v, mean %v, spare %v", st.Overflow, st.MeanX, st.Spare)
	}
	// E[X − G] = E[(X − G)+] − E[(G − X)+] for any G.
	for _, g := range []float64{1, st.MeanX, st.P99X, 2 * st.MaxX} {
		st := w.Stats(g)
		if d := st.Overflow - st.Spare - (st.MeanX - g); math.Abs(d) > 1e-9 {
			t.Errorf("G = %v: overflow − spare − (mean − G) = %v", g, d)
		}
	}
	// Strict: at G = max X nothing exceeds.
	if st := w.Stats(st.MaxX); st.Overload != 0 {
		t.Errorf("P(X > max X) = %v", st.Overload)
	}
}

func TestQuantiles(t *testing.T) {
	x := make([]float64, 100)
	for i := range x {
		x[i] = 1
		if i >= 95 {
			x[i] = 2
		}
	}
	// Ninety-five 1.0s and five 2.0s: the latency convention (inverse
	// empirical CDF) gives p95 = 1.0 (issue 10; slosizer's
	// test_latency_summary_uses_slo_empirical_quantiles) ...
	if got := Percentile(x, 0.95); got != 1 {
		t.Errorf("latency p95 = %v, want 1.0", got)
	}
	// ... the window convention (linear, h = 99·0.95 = 94.05) gives
	// 1 + 0.05·(2 − 1) = 1.05.
	if got := quantileLinear(x, 0.95); math.Abs(got-1.05) > 1e-12 {
		t.Errorf("window p95 = %v, want 1.05", got)
	}
	// And p96 by the inverse CDF is the 96th value: 2.0.
	if got := Percentile(x, 0.96); got != 2 {
		t.Errorf("latency p96 = %v, want 2.0", got)
	}
	// The fluid latency summary uses it: baseline 95×1 s and 5×2 s, no queue.
	s := Series{T: make([]float64, 100), B: make([]float64, 100)}
	for i := range s.T {
		s.T[i] = float64(i)
	}
	if st := FluidLatency(s, x, 1, 1000, nil); st.P95S != 1 || st.P99S != 2 {
		t.Errorf("fluid p95/p99 = %v/%v, want 1/2", st.P95S, st.P99S)
	}
}

func TestQueueDelays(t *testing.T) {
	// Hand computation, rate 1,000 tokens/s: request 0 at t = 0 (2,000
	// tokens) waits 0; request 1 at t = 1 finds 2,000 − 1,000 = 1,000 left:
	// W = 1 s; request 2 at t = 1 (same instant) finds 1,000 + 500: 1.5 s;
	// request 3 at t = 10 finds nothing.
	s := Series{T: []float64{0, 1, 1, 10}, B: []float64{2000, 500, 100, 1}}
	w := make([]float64, 4)
	QueueDelays(s, 1000, w)
	want := []float64{0, 1, 1.5, 0}
	for i := range w {
		if math.Abs(w[i]-want[i]) > 1e-12 {
			t.Errorf("W = %v, want %v", w, want)
			break
		}
	}
}

func TestThroughputPlan(t *testing.T) {
	p := mustDefault(t)
	p.Increment, p.Minimum = 5, 1
	s, _ := NewSeries(arrivals(10), p)
	// X_n = 1,400/1,000 = 1.4 at Δ = 1 and 5·1,400/5,000 = 1.4 at Δ = 5:
	// p99 is 1.4 → 5 units (increment 5); 5 × 1.2 = 6 → 10.
	plan, err := PlanThroughput(s, p, ThroughputTarget{Percentile: 0.99, Windows: []float64{1, 5}, Headroom: 0.2,
		MaxOverloadProb: NoOverloadTarget, MaxUnits: 100})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(plan.Required-1.4) > 1e-12 || plan.WorstWindowS != 1 || plan.Covered != 5 || plan.WithHeadroom != 10 || plan.Units != 10 {
		t.Errorf("plan = %+v", plan)
	}
	// An overload target no G <= 1 can meet is infeasible.
	_, err = PlanThroughput(s, Profile{Tau: 100, Weights: p.Weights, Increment: 1, Minimum: 1, Unit: "unit"},
		ThroughputTarget{Percentile: 0.5, Windows: []float64{1}, MaxOverloadProb: 0, MaxUnits: 13})
	var ie *InfeasibleError
	if !errors.As(err, &ie) {
		t.Errorf("infeasible overload target: err = %v", err)
	}
}

// Plans never shrink when headroom or percentile grows, and the overload
// target is met with the smallest such G.
func TestThroughputMonotone(t *testing.T) {
	p := mustDefault(t)
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 20; trial++ {
		reqs := randomRequests(rng, 300+rng.IntN(300), func() float64 { return 0.05 + rng.Float64() }, 8000, 800)
		p.Increment, p.Minimum = 1+rng.IntN(5), 1+rng.IntN(3)
		s, _ := NewSeries(reqs, p)
		prev := 0
		for _, h := range []float64{0, 0.1, 0.2, 0.5, 1} {
			pl, err := PlanThroughput(s, p, ThroughputTarget{Percentile: 0.95, Windows: DefaultWindows, Headroom: h, MaxOverloadProb: NoOverloadTarget, MaxUnits: 1e6})
			if err != nil {
				t.Fatal(err)
			}
			if pl.Units < prev {
				t.Fatalf("headroom %v: %d units < %d", h, pl.Units, prev)
			}
			prev = pl.Units
		}
		prev = 0
		for _, q := range []float64{0.5, 0.9, 0.95, 0.99, 0.999} {
			pl, err := PlanThroughput(s, p, ThroughputTarget{Percentile: q, Windows: DefaultWindows, Headroom: 0.1, MaxOverloadProb: NoOverloadTarget, MaxUnits: 1e6})
			if err != nil {
				t.Fatal(err)
			}
			if pl.Units < prev {
				t.Fatalf("percentile %v: %d units < %d", q, pl.Units, prev)
			}
			prev = pl.Units
		}
		eps := 0.01
		pl, err := PlanThroughput(s, p, ThroughputTarget{Percentile: 0.5, Windows: DefaultWindows, MaxOverloadProb: eps, MaxUnits: 1e6})
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range pl.Windows {
			if w.Overload > eps {
				t.Fatalf("overload %v > %v at G = %d", w.Overload, eps, pl.Units)
			}
		}
		if g := pl.Units - p.Increment; g >= pl.WithHeadroom && g >= p.Minimum {
			worst := 0.0
			for _, d := range DefaultWindows {
				w, _ := Bucket(s, p.Tau, d)
				worst = math.Max(worst, w.Stats(float64(g)).Overload)
			}
			if worst <= eps {
				t.Fatalf("G = %d already meets the overload target; plan says %d", g, pl.Units)
			}
		}
	}
}

func TestLatencyPlan(t *testing.T) {
	p := mustDefault(t)
	rng := rand.New(rand.NewPCG(5, 6))
	reqs := randomRequests(rng, 2000, constant(0.1), 3000, 400)
	s, _ := NewSeries(reqs, p)
	base := make([]float64, len(reqs))
	for i, r := range reqs {
		base[i] = DefaultBaseline.Predict(r)
	}
	prev := 0
	for _, thr := range []float64{2, 1.5, 1} { // tighter thresholds need more
		pl, err := PlanLatency(s, base, p, LatencyTarget{ThresholdS: thr, Percentile: 0.99, MaxUnits: 10000})
		if err != nil {
			t.Fatal(err)
		}
		if pl.AtMin.P99S > thr {
			t.Errorf("thr %v: p99 at the plan = %v", thr, pl.AtMin.P99S)
		}
		if pl.MinUnits > p.Minimum {
			below := FluidLatency(s, base, float64(pl.MinUnits-p.Increment), p.Tau, nil)
			if below.P99S <= thr {
				t.Errorf("thr %v: G = %d − 1 already meets it (p99 %v)", thr, pl.MinUnits, below.P99S)
			}
		}
		if pl.MinUnits < prev {
			t.Errorf("thr %v: %d units < %d", thr, pl.MinUnits, prev)
		}
		prev = pl.MinUnits
	}
	// A bound that the smallest G meets but the headroom overshoots.
	pl, _ := PlanLatency(s, base, p, LatencyTarget{ThresholdS: 1, Percentile: 0.99, MaxUnits: 10000})
	if _, err := PlanLatency(s, base, p, LatencyTarget{ThresholdS: 1, Percentile: 0.99, Headroom: 1, MaxUnits: pl.MinUnits}); err == nil {
		t.Errorf("headroom beyond max units accepted")
	}
	// The baseline alone breaks a 0.2 s target: infeasible at any G.
	_, err := PlanLatency(s, base, p, LatencyTarget{ThresholdS: 0.2, Percentile: 0.99, MaxUnits: 10000})
	var ie *InfeasibleError
	if !errors.As(err, &ie) {
		t.Errorf("0.2 s: err = %v, want infeasible", err)
	}
}
