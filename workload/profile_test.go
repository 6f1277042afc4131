package workload

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// TestConstProfileIsPoisson: a constant profile at the spec's rate yields
// exactly today's stream (the same draws, bit for bit), Poisson or bursty.
func TestConstProfileIsPoisson(t *testing.T) {
	for _, arrival := range []string{"", ArrivalBursty} {
		plain := Spec{CDF: "azure", Rate: 1000, Requests: 5000, Arrival: arrival}
		prof := plain
		prof.RateProfile = "const:1000"
		for _, rate := range []float64{1000, 0} { // rate given, or taken from the profile
			prof.Rate = rate
			a, err := NewSource(plain, 7)
			if err != nil {
				t.Fatal(err)
			}
			b, err := NewSource(prof, 7)
			if err != nil {
				t.Fatal(err)
			}
			var ra, rb Request
			for i := 0; a.Next(&ra); i++ {
				if !b.Next(&rb) || ra != rb {
					t.Fatalf("arrival %q rate %v: request %d: %+v, want %+v", arrival, rate, i, rb, ra)
				}
			}
			if b.Next(&rb) {
				t.Fatalf("profiled source yields more requests")
			}
		}
		if got := prof.WithDefaults(); got.RateProfile != "" || got.Rate != 1000 {
			t.Errorf("WithDefaults of a const profile at the rate: %+v, want the plain spec", got)
		}
	}
	// At the Arrivals level: the identity, not a computed equal.
	p, _ := NewPoisson(5, NewRand(1, StreamArrivals))
	if got := NewProfiled(p, 5, NewCurve(&RateProfile{Kind: ProfileConst, Times: []float64{0}, Rates: []float64{5}}, 0)); got != Arrivals(p) {
		t.Errorf("NewProfiled of a constant curve is not the base process")
	}
}

// TestSinChiSquare: over 24 one-hour windows of a daily sinusoid (peak/trough
// 3), the counts per window fit the expected ∫λ(t)dt of each window (chi-square,
// 24 degrees of freedom: nothing is fitted, at the 1% level), on 20 seeds.
// The mean is scaled down to 0.1 req/s (360 per hour on average, 180 to 540)
// to keep the test fast.
func TestSinChiSquare(t *testing.T) {
	const windows, hour = 24, 3600.0
	spec := Spec{CDF: "azure", Requests: 100_000, RateProfile: "sin:mean=0.1,ratio=3,period=24h,peak=14h"}
	p, err := ParseRateProfile(spec.RateProfile)
	if err != nil {
		t.Fatal(err)
	}
	c := NewCurve(p, 0)
	crit := distuv.ChiSquared{K: windows}.Quantile(0.99)
	var worst float64
	var all []string
	for seed := uint64(1); seed <= 20; seed++ {
		src, err := NewSource(spec, seed)
		if err != nil {
			t.Fatal(err)
		}
		var counts [windows]float64
		var r Request
		for src.Next(&r) && r.Arrival < windows*hour {
			counts[int(r.Arrival/hour)]++
		}
		var chi2 float64
		for w := range windows {
			e := c.Cum(float64(w+1)*hour) - c.Cum(float64(w)*hour)
			chi2 += (counts[w] - e) * (counts[w] - e) / e
		}
		worst = max(worst, chi2)
		all = append(all, strconv.FormatFloat(chi2, 'f', 1, 64))
		if chi2 > crit {
			t.Errorf("seed %d: chi-square %.2f > %.2f (1%%, 24 df); counts %v", seed, chi2, crit, counts)
		}
	}
	t.Logf("chi-square per seed %v; worst %.2f, critical value %.2f", all, worst, crit)
}

// TestCurveHand checks λ, Λ and Λ⁻¹ against hand computations.
func TestCurveHand(t *testing.T) {
	step, _ := ParseRateProfile("step:0=2,10=4,30=1,period=40")
	lin, _ := ParseRateProfile("linear:0=0,10=10,20=10")
	sin, _ := ParseRateProfile("sin:mean=100,ratio=3,period=100,peak=25")
	cs, cl, cn := NewCurve(step, 0), NewCurve(lin, 0), NewCurve(sin, 0)
	for _, tc := range []struct {
		name     string
		c        *Curve
		t, rate  float64
		cum      float64 // hand: area under λ on [0, t]
		wantMean float64
	}{
		// step: 2·10 + 4·20 + 1·10 = 110 per period of 40 s.
		{"step 5", cs, 5, 2, 10, 110.0 / 40},
		{"step 25", cs, 25, 4, 20 + 60, 0},
		{"step 45 (next period)", cs, 45, 2, 110 + 10, 0},
		// linear: ramp 0 → 10 over 10 s (area 50), then 10 held.
		{"linear 4", cl, 4, 4, 8, 0},
		{"linear 30", cl, 30, 10, 50 + 200, 0},
		// sin: a = 0.5; λ(25) = 150 (peak), λ(75) = 50 (trough); a full
		// period holds 100·100; Λ(25) = 100·(25 + 0.5·100/(2π)·(0 + 1)).
		{"sin peak", cn, 25, 150, 100 * (25 + 0.5*100/(2*math.Pi)), 0},
		{"sin trough", cn, 75, 50, 0, 0},
		{"sin period", cn, 100, 100, 10000, 0}, // λ(100) = λ(0) = 100·(1 + 0.5·cos(-π/2))
	} {
		if got := tc.c.Rate(tc.t); math.Abs(got-tc.rate) > 1e-9*max(1, tc.rate) {
			t.Errorf("%s: λ = %v, want %v", tc.name, got, tc.rate)
		}
		if tc.cum > 0 {
			if got := tc.c.Cum(tc.t); math.Abs(got-tc.cum) > 1e-9*tc.cum {
				t.Errorf("%s: Λ = %v, want %v", tc.name, got, tc.cum)
			}
			if got := tc.c.Inv(tc.cum); math.Abs(got-tc.t) > 1e-7 {
				t.Errorf("%s: Λ⁻¹(%v) = %v, want %v", tc.name, tc.cum, got, tc.t)
			}
		}
	}
	if m := step.MeanRate(); m != 110.0/40 {
		t.Errorf("step mean %v, want %v", m, 110.0/40)
	}
	if m := lin.MeanRate(); m != 7.5 { // (50 + 100) / 20
		t.Errorf("linear mean %v, want 7.5", m)
	}
	// Λ⁻¹(Λ(t)) = t on a grid, across zero-rate segments and periods.
	z, _ := ParseRateProfile("step:0=3,5=0,8=2,period=12")
	cz := NewCurve(z, 0)
	for _, c := range []*Curve{cs, cl, cn, cz} {
		for x := 0.0; x < 300; x += 0.37 {
			if c.Rate(x) == 0 {
				continue
			}
			if got := c.Inv(c.Cum(x)); math.Abs(got-x) > 1e-7*max(1, x) {
				t.Fatalf("Λ⁻¹(Λ(%v)) = %v", x, got)
			}
		}
	}
	// Nothing arrives while the rate is 0: Λ(5) = Λ(8) = 15, Λ⁻¹ jumps.
	if got := cz.Inv(15 + 1e-9); got < 8 {
		t.Errorf("zero-rate segment: Λ⁻¹(15+) = %v, want >= 8", got)
	}
}

// TestTraceShape: a trace's arrival counts per bucket, rescaled to a mean,
// become a periodic step profile.
func TestTraceShape(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "t.csv")
	// 3 rows in [0, 10) s, 1 in [10, 20) s: 4 rows over 20 s (0.2 req/s).
	csv := "TIMESTAMP,ContextTokens,GeneratedTokens\n" +
		"2023-11-16 18:00:00.0,10,5\n2023-11-16 18:00:01.0,10,5\n2023-11-16 18:00:09.0,10,5\n2023-11-16 18:00:15.0,10,5\n"
	if err := os.WriteFile(path, []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := ParseRateProfile("trace-shape:" + path + ",bucket=10s,mean=2")
	if err != nil {
		t.Fatal(err)
	}
	c, mean, err := LoadRateProfile(p, 0)
	if err != nil {
		t.Fatal(err)
	}
	// Own rates 0.3 and 0.1 req/s, mean 0.2; scaled ×10: 3 and 1.
	if mean != 2 || c.Rate(5) != 3 || c.Rate(15) != 1 || c.Rate(25) != 3 {
		t.Errorf("trace shape: mean %v, λ(5) %v, λ(15) %v, λ(25) %v; want 2, 3, 1, 3", mean, c.Rate(5), c.Rate(15), c.Rate(25))
	}
	// Lengths from the trace, times from the profile.
	src, err := NewSource(Spec{Trace: path, Requests: 10, RateProfile: "trace-shape:" + path + ",bucket=10s,mean=2"}, 1)
	if err != nil {
		t.Fatal(err)
	}
	var r Request
	prev := 0.0
	for n := 0; src.Next(&r); n++ {
		if r.InputTokens != 10 || r.Arrival <= prev {
			t.Fatalf("request %d: %+v", n, r)
		}
		prev = r.Arrival
	}
}

// TestProfileBadInput: every bad profile is a *FieldError naming its field.
func TestProfileBadInput(t *testing.T) {
	for _, tc := range []struct{ spec, field string }{
		{"sin:mean=-1,ratio=3", "rate_profile.mean"},
		{"sin:mean=NaN,ratio=3", "rate_profile.mean"},
		{"sin:mean=5,ratio=0.5", "rate_profile.ratio"},
		{"sin:mean=5,period=0", "rate_profile.period"},
		{"sin:mean=5,peak=25h", "rate_profile.peak"},
		{"sin:mean=5,colour=3", "rate_profile"},
		{"step:0=1,2h=3,1h=2", "rate_profile.time"},
		{"step:5=1", "rate_profile.time"},
		{"step:0=1,1h=-2", "rate_profile.rate"},
		{"linear:0=1,1h=inf", "rate_profile.rate"},
		{"step:0=1,2h=0", "rate_profile.rate"},
		{"step:0=1,1h=2,period=1h", "rate_profile.time"},
		{"step:0=1,period=-1", "rate_profile.period"},
		{"const:0", "rate_profile.rate"},
		{"const:-3", "rate_profile.rate"},
		{"wave:1", "rate_profile"},
		{"sin", "rate_profile"},
		{"trace-shape:x.csv,bucket=0", "rate_profile.bucket"},
		{"trace-shape:x.csv,format=parquet", "rate_profile.format"},
	} {
		_, err := ParseRateProfile(tc.spec)
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != tc.field {
			t.Errorf("%q: error %v, want a FieldError on %s", tc.spec, err, tc.field)
		}
	}
	for _, tc := range []struct {
		s     Spec
		field string
	}{
		{Spec{CDF: "azure", Requests: 1, Rate: 400, RateProfile: "sin:mean=500"}, "rate"},
		{Spec{CDF: "azure", Requests: 1, RateProfile: "sin:ratio=3"}, "rate_profile.mean"},
		{Spec{CDF: "azure", Requests: 1, Rate: -1, RateProfile: "sin:mean=5"}, "rate"},
		{Spec{Trace: "t.csv", Requests: 1, Arrival: ArrivalTrace, RateProfile: "const:5"}, "arrival"},
	} {
		err := tc.s.Validate()
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != tc.field {
			t.Errorf("%+v: error %v, want a FieldError on %s", tc.s, err, tc.field)
		}
	}
	if err := (Spec{CDF: "azure", Requests: 1, Rate: 500, RateProfile: "sin:ratio=3"}).Validate(); err != nil {
		t.Errorf("sin taking the spec's rate as its mean: %v", err)
	}
	if _, err := ParseRateProfile("step:0=1,1h=3,period=2h"); err != nil {
		t.Errorf("valid step profile: %v", err)
	}
}

// TestBurstyProfileMean: MMPP bursts composed with a sinusoid keep the
// day's expected count, ∫λ = mean·period (within 3%: bursts add variance).
func TestBurstyProfileMean(t *testing.T) {
	spec := Spec{CDF: "azure", Requests: 1_000_000, Arrival: ArrivalBursty, RateProfile: "sin:mean=0.5,ratio=3,period=24h"}
	src, err := NewSource(spec, 3)
	if err != nil {
		t.Fatal(err)
	}
	var r Request
	n := 0
	for src.Next(&r) && r.Arrival < 86400 {
		n++
	}
	if want := 0.5 * 86400; math.Abs(float64(n)-want) > 0.03*want {
		t.Errorf("bursty sinusoid: %d arrivals in a day, want %v ± 3%%", n, want)
	}
}

// FuzzParseRateProfile: the parser never panics; what it accepts (except a
// trace shape, whose file is read later) resolves to a curve whose Λ⁻¹
// inverts Λ and whose arrivals are non-decreasing.
func FuzzParseRateProfile(f *testing.F) {
	for _, s := range []string{"const:5", "sin:mean=500,ratio=3,period=24h,peak=14h", "step:0=2,10=0,30=1,period=40",
		"linear:0=0,1h=10,2h=3", "trace-shape:x.csv,bucket=1m", "sin:", "step:0=1,0=2", "linear:0=1e300,1=1e-300"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParseRateProfile(s)
		if err != nil {
			var fe *FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("%q: error %v is not a FieldError", s, err)
			}
			return
		}
		if p.Kind == ProfileTraceShape {
			return
		}
		c, _, err := LoadRateProfile(p, 1)
		if err != nil {
			return
		}
		base, _ := NewPoisson(1, NewRand(1, StreamArrivals))
		a := NewProfiled(base, 1, c)
		prev := 0.0
		for range 50 {
			x := a.Next()
			if math.IsNaN(x) || x < prev {
				t.Fatalf("%q: arrival %v after %v", s, x, prev)
			}
			prev = x
		}
	})
}

// TestProfiledMonotone: arrival times never go back, across many periods
// and at a high rate (tiny gaps), for every kind of curve.
func TestProfiledMonotone(t *testing.T) {
	for _, s := range []string{"sin:mean=5000,ratio=4,period=60", "linear:0=100,7=9000,20=50,period=30", "step:0=7000,3=0,5=100,period=9"} {
		src, err := NewSource(Spec{CDF: "azure", Requests: 100_000, RateProfile: s}, 5)
		if err != nil {
			t.Fatal(err)
		}
		var r Request
		prev := 0.0
		for src.Next(&r) {
			if r.Arrival < prev {
				t.Fatalf("%s: request %d arrives at %v, before %v", s, r.ID, r.Arrival, prev)
			}
			prev = r.Arrival
		}
	}
}
