package fleetopt

import (
	"math"
	"testing"

	"github.com/fleetsim/fleetsim/pools/catalog"
	"github.com/fleetsim/fleetsim/workload"
)

func mustCDF(t testing.TB, name string) *workload.CDF {
	t.Helper()
	c, err := workload.LoadCDF(name)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func mustCal(t testing.TB, c *workload.CDF) *Calibrator {
	t.Helper()
	cal, err := NewCalibrator(c, workload.DefaultInputFraction, 512)
	if err != nil {
		t.Fatal(err)
	}
	return cal
}

// bruteMoments sums directly over every integer length of the slice, with
// its own bucket walk and split: the reference for the prefix-sum code.
func bruteMoments(c *workload.CDF, lo, hi int, pt PoolTiming, frac float64, chunk int) (mean, cs2, meanPre float64) {
	var m0, m1, m2, mp float64
	prevT, prevF := 0, 0.0
	for _, p := range c.Points {
		w := (p.F - prevF) / float64(p.Tokens-prevT)
		for L := prevT + 1; L <= p.Tokens; L++ {
			if L <= lo || L > hi || w == 0 {
				continue
			}
			in := int(math.Floor(frac*float64(L) + 1e-9))
			in = max(in, 1)
			out := L - in
			if out < 1 {
				out, in = 1, max(1, L-1)
			}
			chunks := float64((in + chunk - 1) / chunk)
			t := pt.W + pt.H*float64(pt.Slots)
			if pt.Preset == catalog.TimingKV {
				t = pt.W + pt.H*float64(L)/float64(pt.CalibCtx)*float64(pt.Slots)
			}
			s := (chunks + float64(out)) * t
			m0 += w
			m1 += w * s
			m2 += w * s * s
			mp += w * chunks * t
		}
		prevT, prevF = p.Tokens, p.F
	}
	mean = m1 / m0
	return mean, (m2/m0 - mean*mean) / (mean * mean), mp / m0
}

func TestExactMatchesBruteForce(t *testing.T) {
	g, _ := catalog.LookupGPU("a100")
	for _, name := range workload.BuiltinCDFs() {
		c := mustCDF(t, name)
		cal := mustCal(t, c)
		for _, s := range []struct{ lo, hi, ctx int }{
			{0, 4096, 4096}, {0, 1536, 1536}, {4096, 65536, 65536}, {6144, 65536, 65536}, // breakpoint cuts
			{4505, 65536, 65536}, {0, 1000, 1536}, {1000, 3000, 4096}, {12289, 40000, 65536}, // mid-bucket cuts
		} {
			for _, preset := range []string{catalog.TimingKV, catalog.TimingPaper} {
				pt, _ := PoolTimingOf(g, s.ctx, preset)
				got, err := cal.Exact(s.lo, s.hi, pt)
				if c.Prob(s.lo, s.hi) == 0 {
					if err == nil {
						t.Errorf("%s (%d,%d]: empty slice accepted", name, s.lo, s.hi)
					}
					continue
				}
				if err != nil {
					t.Fatalf("%s (%d,%d]: %v", name, s.lo, s.hi, err)
				}
				mean, cs2, pre := bruteMoments(c, s.lo, s.hi, pt, 0.8, 512)
				if rel := math.Abs(got.MeanS-mean) / mean; rel > 1e-9 {
					t.Errorf("%s (%d,%d] %s: E[S] %v, brute force %v", name, s.lo, s.hi, preset, got.MeanS, mean)
				}
				if math.Abs(got.Cs2-cs2) > 1e-7*max(1, cs2) {
					t.Errorf("%s (%d,%d] %s: Cs² %v, brute force %v", name, s.lo, s.hi, preset, got.Cs2, cs2)
				}
				if rel := math.Abs(got.MeanPrefill-pre) / pre; rel > 1e-9 {
					t.Errorf("%s (%d,%d] %s: mean prefill %v, brute force %v", name, s.lo, s.hi, preset, got.MeanPrefill, pre)
				}
				if want := float64(pt.Slots) / mean; math.Abs(got.MuGPU-want) > 1e-9*want {
					t.Errorf("μ_gpu %v, want n_slots/E[S] = %v", got.MuGPU, want)
				}
				// The P99 length is the slice's 99th percentile.
				if q := c.Prob(s.lo, got.P99Len) / c.Prob(s.lo, s.hi); q < 0.99-1e-12 {
					t.Errorf("P99 length %d holds only %v of the slice", got.P99Len, q)
				}
				if q := c.Prob(s.lo, got.P99Len-1) / c.Prob(s.lo, s.hi); q >= 0.99 {
					t.Errorf("P99 length %d is not the smallest: %d already holds %v", got.P99Len, got.P99Len-1, q)
				}
			}
		}
	}
}

func TestExactStridedPrefix(t *testing.T) {
	// A CDF longer than maxCheckpoints tokens uses strided prefix sums plus a
	// direct remainder; it must agree with the brute force too.
	c, err := workload.NewCDF("long", []workload.Point{{Tokens: 1000, F: 0.3}, {Tokens: 70001, F: 0.8}, {Tokens: 200003, F: 1}})
	if err != nil {
		t.Fatal(err)
	}
	cal := mustCal(t, c)
	if cal.stride < 2 {
		t.Fatalf("stride %d: the test must exercise the strided path", cal.stride)
	}
	pt := PoolTiming{W: 0.008, H: 0.00065, CalibCtx: 8192, Slots: 4, Preset: catalog.TimingKV}
	for _, s := range [][2]int{{0, 200003}, {999, 123457}, {70001, 199999}} {
		got, err := cal.Exact(s[0], s[1], pt)
		if err != nil {
			t.Fatal(err)
		}
		mean, cs2, _ := bruteMoments(c, s[0], s[1], pt, 0.8, 512)
		if rel := math.Abs(got.MeanS-mean) / mean; rel > 1e-9 {
			t.Errorf("(%d,%d]: E[S] %v, brute force %v", s[0], s[1], got.MeanS, mean)
		}
		if math.Abs(got.Cs2-cs2) > 1e-7 {
			t.Errorf("(%d,%d]: Cs² %v, brute force %v", s[0], s[1], got.Cs2, cs2)
		}
	}
}

func TestMonteCarloConvergesAndRepeats(t *testing.T) {
	g, _ := catalog.LookupGPU("a100")
	cal := mustCal(t, mustCDF(t, "azure"))
	pt, _ := PoolTimingOf(g, 4096, catalog.TimingKV)
	ex, _ := cal.Exact(0, 4096, pt)
	big, err := cal.MonteCarlo(0, 4096, pt, 400_000, 7)
	if err != nil {
		t.Fatal(err)
	}
	// Standard error of the mean with Cs² ≈ 1.5 at n = 4e5 is ~0.2%.
	if rel := math.Abs(big.MeanS-ex.MeanS) / ex.MeanS; rel > 0.01 {
		t.Errorf("MC E[S] %v vs exact %v (rel %v)", big.MeanS, ex.MeanS, rel)
	}
	if math.Abs(big.Cs2-ex.Cs2) > 0.05*ex.Cs2 {
		t.Errorf("MC Cs² %v vs exact %v", big.Cs2, ex.Cs2)
	}
	bigIID, err := cal.MonteCarloIID(0, 4096, pt, 400_000, 7)
	if err != nil {
		t.Fatal(err)
	}
	if rel := math.Abs(bigIID.MeanS-ex.MeanS) / ex.MeanS; rel > 0.01 {
		t.Errorf("i.i.d. MC E[S] %v vs exact %v (rel %v)", bigIID.MeanS, ex.MeanS, rel)
	}
	for _, m := range []struct {
		name string
		f    func(lo, hi int, pt PoolTiming, n int, seed uint64) (ServiceStats, error)
	}{{CalibMonteCarlo, cal.MonteCarlo}, {CalibMonteCarloIID, cal.MonteCarloIID}} {
		a, _ := m.f(0, 4096, pt, MCSamples, 42)
		b, _ := m.f(0, 4096, pt, MCSamples, 42)
		c, _ := m.f(0, 4096, pt, MCSamples, 43)
		if a != b {
			t.Errorf("%s: same seed, different stats: %+v vs %+v", m.name, a, b)
		}
		if a.MeanS == c.MeanS {
			t.Errorf("%s: different seeds gave the same E[S] %v", m.name, a.MeanS)
		}
		if a.Method != m.name || ex.Method != CalibExact {
			t.Errorf("methods %q, %q", a.Method, ex.Method)
		}
	}
}

// TestStratifiedMonteCarloNearExact: stratified sampling in u (3,000
// samples) estimates E[S] and Cs² of a slice within a few tenths of a
// percent of the exact moments at every seed 1..50, where i.i.d. sampling's
// relative standard error on E[S] is sqrt(Cs²/3000) (2.3% for Azure (0,
// 4096], 7.2% for LMSYS (1536, 65536]). Bounds: worst seen over 300 seeds
// ×1.2 (worst E[S] error 0.011%, 0.087%, 0.013%, 0.85%, 0.004%, 0.032% in
// the order below; Cs² 0.04%, 4.8%, 0.03%, 5.5%, 0.01%, 0.38%: the second
// moment of a heavy tail converges more slowly).
func TestStratifiedMonteCarloNearExact(t *testing.T) {
	g, _ := catalog.LookupGPU("a100")
	cases := []struct {
		workload      string
		lo, hi, ctx   int
		tolES, tolCs2 float64 // relative
	}{
		{"azure", 0, 4096, 4096, 0.00013, 0.0005},
		{"azure", 4096, 65536, 65536, 0.00104, 0.058},
		{"lmsys", 0, 1536, 1536, 0.00016, 0.0004},
		{"lmsys", 1536, 65536, 65536, 0.0103, 0.066},
		{"agent-heavy", 0, 8192, 8192, 0.00005, 0.00014},
		{"agent-heavy", 8192, 65536, 65536, 0.00039, 0.0046},
	}
	for _, cs := range cases {
		cal := mustCal(t, mustCDF(t, cs.workload))
		pt, _ := PoolTimingOf(g, cs.ctx, catalog.TimingKV)
		ex, err := cal.Exact(cs.lo, cs.hi, pt)
		if err != nil {
			t.Fatal(err)
		}
		worstES, worstCs2 := 0.0, 0.0
		for seed := uint64(1); seed <= 50; seed++ {
			st, err := cal.MonteCarlo(cs.lo, cs.hi, pt, MCSamples, seed)
			if err != nil {
				t.Fatal(err)
			}
			worstES = max(worstES, math.Abs(st.MeanS/ex.MeanS-1))
			worstCs2 = max(worstCs2, math.Abs(st.Cs2/ex.Cs2-1))
		}
		if worstES > cs.tolES || worstCs2 > cs.tolCs2 {
			t.Errorf("%s (%d, %d]: stratified MC off exact by up to %.4f%% (E[S]) and %.2f%% (Cs²); allowed %.2f%%, %.0f%%",
				cs.workload, cs.lo, cs.hi, 100*worstES, 100*worstCs2, 100*cs.tolES, 100*cs.tolCs2)
		}
	}
}

func TestCalibrateErrors(t *testing.T) {
	cal := mustCal(t, mustCDF(t, "azure"))
	pt := PoolTiming{W: 0.008, H: 0.00065, CalibCtx: 8192, Slots: 16, Preset: catalog.TimingKV}
	if _, err := cal.Exact(16384, 65536, pt); err == nil { // azure has F(16384) = 1
		t.Error("empty slice (16384, 65536] of azure: no error")
	}
	if _, err := cal.Exact(10, 10, pt); err == nil {
		t.Error("slice (10, 10]: no error")
	}
	if _, err := cal.Calibrate("bogus", 0, 100, pt, 1); err == nil {
		t.Error("unknown method: no error")
	}
	if _, err := NewCalibrator(mustCDF(t, "azure"), 1.2, 512); err == nil {
		t.Error("input fraction 1.2: no error")
	}
}
