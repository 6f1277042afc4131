package osd

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestTQuantile checks guidellm's approximation (approx_t_ppf, A&S 26.2.23
// plus two Cornish–Fisher terms) at p = 0.975. Reference values: the issue's
// table of guidellm's approximation, which we re-derived by hand for df 1
// (z = 1.96039, g1 = 2.37357, g2 = 2.14511: 6.47907). The exact quantiles
// (12.706, 2.228, 2.042, 1.962) differ, as guidellm's own test
// test_approx_t_ppf_accuracy tolerates.
func TestTQuantile(t *testing.T) {
	for _, c := range []struct{ df, want float64 }{
		{1, 6.4791}, {10, 2.2192}, {30, 2.0419}, {1000, 1.9628},
	} {
		if got := TQuantile(0.975, c.df); math.Abs(got-c.want) > 1e-4 {
			t.Errorf("TQuantile(0.975, %v) = %.6f, want %.4f", c.df, got, c.want)
		}
	}
	// Symmetry of the normal part: the lower tail is the negated z
	// (guidellm's p < 0.5 branch), so at df → ∞ the quantiles mirror.
	if lo, hi := TQuantile(0.025, 1e12), TQuantile(0.975, 1e12); math.Abs(lo+hi) > 1e-9 {
		t.Errorf("TQuantile(0.025) = %v, TQuantile(0.975) = %v: not symmetric", lo, hi)
	}
	for _, df := range []float64{0, -1} {
		if got := TQuantile(0.975, df); !math.IsNaN(got) {
			t.Errorf("TQuantile(0.975, %v) = %v, want NaN (guidellm: NaN when df <= 0)", df, got)
		}
	}
}

// TestSlopePerfectLine: y = 2x + 1 on x = 0..9 (guidellm's
// test_slope_calculation_perfect_line) has slope 2 and, the residuals being
// exactly zero in float64 (all sums are small integers), MOE 0.
func TestSlopePerfectLine(t *testing.T) {
	s := NewSlope(0.1, 0.95, 1e-12)
	for i := range 10 {
		s.Add(float64(i), 2*float64(i)+1)
	}
	if !s.Check(10) {
		t.Fatal("Check = false on a perfect rising line")
	}
	slope, moe, ok := s.Last()
	if !ok || slope != 2 || moe != 0 {
		t.Errorf("slope %v, MOE %v, estimated %v; want 2, 0, true", slope, moe, ok)
	}
	// Removing points keeps the running sums exact here.
	s.Remove(0, 1)
	s.Remove(1, 3)
	s.Check(8)
	if slope, _, _ := s.Last(); slope != 2 || s.N() != 8 {
		t.Errorf("after removing two points: slope %v, n %d; want 2, 8", slope, s.N())
	}
}

// TestSlopeFlatAndFalling: a flat or falling line never counts (guidellm's
// zero- and negative-slope tests); fewer than 3 effective points give no
// estimate.
func TestSlopeFlatAndFalling(t *testing.T) {
	flat, down := NewSlope(0.1, 0.95, 1e-12), NewSlope(0.1, 0.95, 1e-12)
	for i := range 10 {
		flat.Add(float64(i), 5)
		down.Add(float64(i), -1.5*float64(i)+10)
	}
	if flat.Check(10) || down.Check(10) {
		t.Error("a flat or falling line was reported as a rising one")
	}
	few := NewSlope(2, 0.95, 1e-12)
	few.Add(0, 0)
	few.Add(1, 1)
	if few.Check(2.9) {
		t.Error("Check(2.9) = true, want false (needs effective n >= 3)")
	}
	if _, _, ok := few.Last(); ok {
		t.Error("an estimate was made with effective n < 3")
	}
}

// TestConcurrencyOnly41: 41 concurrency points y = x at x = 0..40 and no
// TTFT. At t = 40 the ratio rule keeps int(41 × 0.75) = 30 points, the
// effective n is min(40, 30) = 30, the slope is 1.0 with MOE 0, and with no
// TTFT window (0 > 2 × 0 violations is false; 0 < 5 points) the concurrency
// verdict alone decides: alert. Hand computation from guidellm's
// _update_duration and _check_alert.
func TestConcurrencyOnly41(t *testing.T) {
	d := New(DefaultConfig(), 0)
	for i := range 41 {
		d.StartWith(float64(i), i)
	}
	st := d.State()
	if !st.Alert || st.ConcurrencyN != 30 || math.Abs(st.ConcurrencySlope-1) > 1e-12 {
		t.Errorf("alert %v, n %d, slope %v; want true, 30, 1", st.Alert, st.ConcurrencyN, st.ConcurrencySlope)
	}
	if math.Abs(st.ConcurrencyMOE) > 1e-9 {
		t.Errorf("MOE %v, want 0 (perfect line)", st.ConcurrencyMOE)
	}
	// It first fired at the first event past minimum_duration (t = 30):
	// window int(31 × 0.75) = 23 points, effective n min(30, 23) = 23.
	if fired, at := d.Fired(); !fired || at != 30 {
		t.Errorf("Fired() = %v, %v; want true, 30", fired, at)
	}
}

// guidellmCfg is the configuration of guidellm's realistic-scenario tests
// (test_over_saturation_comprehensive.py): minimum_duration 5 and
// minimum_window_size 10, other fields default.
func guidellmCfg(moe float64) Config {
	c := DefaultConfig()
	c.MinimumDuration, c.MinimumWindowSize, c.MOEThreshold = 5, 10, moe
	return c
}

// TestGradualDegradation mirrors guidellm's
// test_gradual_performance_degradation: 50 seconds of concurrency
// int(10 + 0.5 i) and TTFT 1 + 0.1 i, evaluated at t = 60 with MOE 1.5: it
// fires.
func TestGradualDegradation(t *testing.T) {
	d := New(guidellmCfg(1.5), 0)
	for i := range 50 {
		x := float64(i)
		d.StartWith(x, int(10+0.5*x))
		d.FirstToken(x, 1+0.1*x)
	}
	if !d.Observe(60) {
		t.Errorf("no alert on gradual degradation: %+v", d.State())
	}
}

// TestLoadSpike mirrors guidellm's test_sudden_load_spike: 20 s at 5 in
// flight with TTFT 1 s, then 20 s at 50 with TTFT 5 s; at t = 50 with MOE 1.0
// it fires.
func TestLoadSpike(t *testing.T) {
	d := New(guidellmCfg(1.0), 0)
	for i := range 40 {
		c, ttft := 5, 1.0
		if i >= 20 {
			c, ttft = 50, 5.0
		}
		d.StartWith(float64(i), c)
		d.FirstToken(float64(i), ttft)
	}
	if !d.Observe(50) {
		t.Errorf("no alert on a load spike: %+v", d.State())
	}
}

// TestStableNoisyLoad mirrors guidellm's test_variable_but_stable_performance
// (concurrency 15 ± 5, TTFT 2 ± 0.5 s, 100 s, evaluated at t = 120): no alert,
// at the end or at any event. Our noise is a PCG stream (guidellm draws from
// Python's random with seed 123), so we check 20 seeds.
func TestStableNoisyLoad(t *testing.T) {
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 123))
		d := New(guidellmCfg(2.0), 0)
		for i := range 100 {
			d.StartWith(float64(i), 15+rng.IntN(11)-5)
			d.FirstToken(float64(i), 2+rng.Float64()-0.5)
		}
		d.Observe(120)
		if fired, at := d.Fired(); fired {
			t.Errorf("seed %d: fired at %v on a stable load: %+v", seed, at, d.State())
		}
	}
}

// TestTTFTViolationRule: a rising concurrency with TTFTs mostly under
// minimum_ttft never fires (guidellm: ttft n > 2 × violations blocks the
// alert); the same load with slow first tokens does.
func TestTTFTViolationRule(t *testing.T) {
	for _, c := range []struct {
		ttft float64
		want bool
	}{{1.0, false}, {3.0, true}} {
		d := New(DefaultConfig(), 0)
		for i := range 100 {
			x := float64(i)
			d.Start(x)
			d.FirstToken(x+0.5, c.ttft+0.01*x)
		}
		if fired, _ := d.Fired(); fired != c.want {
			t.Errorf("TTFT %v s: fired %v, want %v (%+v)", c.ttft, fired, c.want, d.State())
		}
	}
}

// TestWindowPruning: the time rule drops points older than
// maximum_window_seconds; the ratio rule keeps int(total × ratio); Start and
// End keep the in-flight count.
func TestWindowPruning(t *testing.T) {
	cfg := DefaultConfig()
	cfg.MaximumWindowSeconds = 10
	d := New(cfg, 100) // origin 100: t = 100 is duration 0
	for i := range 100 {
		d.Start(100 + float64(i)*0.5)
	}
	// Events at durations 0, 0.5, ..., 49.5: the oldest kept point is at
	// 39.5 (49.5 − 39.5 = 10 is not > 10): 21 points.
	if st := d.State(); st.ConcurrencyN != 21 || st.DurationS != 49.5 {
		t.Errorf("window %d points at duration %v, want 21 at 49.5", st.ConcurrencyN, st.DurationS)
	}
	for range 100 {
		d.End(160)
	}
	if d.InFlight() != 0 {
		t.Errorf("in flight %d after 100 starts and ends", d.InFlight())
	}
	if d.State().ConcurrencyN != 0 {
		t.Errorf("window not emptied by a 10.5 s gap")
	}
	r := New(DefaultConfig(), 0)
	for i := range 10 {
		r.FirstToken(float64(i), 1)
	}
	if n := r.State().TTFTN; n != 7 { // int(10 × 0.75)
		t.Errorf("TTFT window %d, want 7", n)
	}
}

// TestMinimumDuration: nothing fires before minimum_duration, however steep
// the rise.
func TestMinimumDuration(t *testing.T) {
	d := New(DefaultConfig(), 0)
	for i := range 290 {
		x := float64(i) * 0.1
		d.StartWith(x, 10*i)
		d.FirstToken(x, 3+x)
	}
	if fired, _ := d.Fired(); fired {
		t.Error("fired before minimum_duration")
	}
	d.StartWith(30, 3000)
	if fired, at := d.Fired(); !fired || at != 30 {
		t.Errorf("Fired() = %v, %v; want true at 30", fired, at)
	}
}

func TestConfigValidate(t *testing.T) {
	if err := DefaultConfig().Validate(); err != nil {
		t.Fatal(err)
	}
	bad := []func(*Config){
		func(c *Config) { c.MinimumDuration = -1 },
		func(c *Config) { c.MinimumTTFT = math.NaN() },
		func(c *Config) { c.MaximumWindowSeconds = math.Inf(1) },
		func(c *Config) { c.MaximumWindowRatio = 1.5 },
		func(c *Config) { c.MinimumWindowSize = -1 },
		func(c *Config) { c.Confidence = 1 },
		func(c *Config) { c.MOEThreshold = -2 },
	}
	for i, f := range bad {
		c := DefaultConfig()
		f(&c)
		if c.Validate() == nil {
			t.Errorf("case %d: %+v accepted", i, c)
		}
	}
	for _, s := range []string{"", "monitor", "enforce", "off"} {
		m, err := ParseMode(s)
		if err != nil || (s != "" && m.String() != s) {
			t.Errorf("ParseMode(%q) = %v, %v", s, m, err)
		}
	}
	if _, err := ParseMode("on"); err == nil {
		t.Error(`ParseMode("on") accepted`)
	}
}

func BenchmarkDetector(b *testing.B) {
	d := New(DefaultConfig(), 0)
	defer threadCPU(b)()
	for i := 0; b.Loop(); i++ {
		x := float64(i) * 1e-3
		d.Start(x)
		d.FirstToken(x, 0.1)
		d.End(x)
	}
}

// TestWorkedExample is docs/osd.md's worked example, by hand: x = 31..40,
// y = 5 7 6 8 9 9 11 10 12 13; Sxx = 82.5, Sxy = 68, Syy = 60, slope
// 68/82.5 = 0.824242, RSS = 60 − 68²/82.5 = 3.951515, SE = √(RSS/8/Sxx) =
// 0.0773766, t(0.975, 8) = 2.290614 (guidellm's approximation), MOE =
// 2.290614 × 0.0773766 / 0.824242 = 0.215034 < 2: a significant rise.
func TestWorkedExample(t *testing.T) {
	s := NewSlope(2, 0.95, 1e-12)
	for i, y := range []float64{5, 7, 6, 8, 9, 9, 11, 10, 12, 13} {
		s.Add(float64(31+i), y)
	}
	up := s.Check(10)
	slope, moe, _ := s.Last()
	if !up || math.Abs(slope-0.8242424) > 1e-6 || math.Abs(moe-0.2150338) > 1e-6 {
		t.Errorf("slope %v, MOE %v, up %v; want 0.824242, 0.215034, true", slope, moe, up)
	}
	if got := TQuantile(0.975, 8); math.Abs(got-2.2906138) > 1e-6 {
		t.Errorf("t(0.975, 8) = %v, want 2.290614", got)
	}
}
