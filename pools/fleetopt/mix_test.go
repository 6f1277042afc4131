package fleetopt

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"testing"

	"github.com/fleetsim/fleetsim/pools/catalog"
	"github.com/fleetsim/fleetsim/workload"
)

// bruteMix is the reference for ExactMix: it walks every integer length of
// every part with its own bucket walk, split and C&R rule (the router's:
// T_c = B − L_out, L_in' = min(L_in, T_c); router/budget.go), and returns
// E[S], Cs², and the 99th percentiles of the served length and of the
// prefill iterations by sorting the weighted atoms.
func bruteMix(c *workload.CDF, parts []SlicePart, pt PoolTiming) (mean, cs2 float64, p99Len, p99It int) {
	type atom struct {
		w      float64
		v      int
		isIter bool
	}
	var m0, m1, m2 float64
	var lens, its []atom
	for _, p := range parts {
		prevT, prevF := 0, 0.0
		for _, q := range c.Points {
			w := (q.F - prevF) / float64(q.Tokens-prevT) * p.Scale
			for L := prevT + 1; L <= q.Tokens; L++ {
				if L <= p.Lo || L > p.Hi || w == 0 {
					continue
				}
				in := max(int(math.Floor(0.8*float64(L)+1e-9)), 1)
				out := L - in
				if out < 1 { // both parts >= 1 (workload.SplitFixed)
					out, in = 1, max(1, L-1)
				}
				if p.CompressTo > 0 {
					in = min(in, p.CompressTo-out)
				}
				chunks := (in + 511) / 512
				served := L // the calibrator's length term (L = 1 is split 1 + 1)
				if p.CompressTo > 0 {
					served = in + out
				}
				t := pt.W + pt.H*float64(pt.Slots)
				if pt.Preset == catalog.TimingKV {
					t = pt.W + pt.H*float64(served)/float64(pt.CalibCtx)*float64(pt.Slots)
				}
				s := float64(chunks+out) * t
				m0 += w
				m1 += w * s
				m2 += w * s * s
				lens = append(lens, atom{w, served, false})
				its = append(its, atom{w, chunks, true})
			}
			prevT, prevF = q.Tokens, q.F
		}
	}
	mean = m1 / m0
	cs2 = (m2/m0 - mean*mean) / (mean * mean)
	q99 := func(a []atom) int {
		slices.SortFunc(a, func(x, y atom) int { return x.v - y.v })
		acc := 0.0
		for i, x := range a {
			acc += x.w
			if acc >= 0.99*m0*(1-1e-12) && (i == len(a)-1 || a[i+1].v != x.v) {
				return x.v
			}
		}
		return a[len(a)-1].v
	}
	return mean, cs2, q99(lens), q99(its)
}

func TestExactMixMatchesBruteForce(t *testing.T) {
	g, _ := catalog.LookupGPU("a100")
	cases := []struct {
		workload string
		b        int
		gamma    float64
		pc       float64
	}{
		{"azure", 4096, 1.5, 1}, {"azure", 4096, 2.0, 1}, {"azure", 4096, 1.5, 0.6},
		{"lmsys", 1536, 2.0, 1}, {"agent-heavy", 8192, 1.5, 0.75}, {"azure", 3000, 1.37, 0.5}, // mid-bucket bounds
	}
	for _, cs := range cases {
		c := mustCDF(t, cs.workload)
		cal := mustCal(t, c)
		gb := int(math.Floor(cs.gamma * float64(cs.b)))
		for _, preset := range []string{catalog.TimingKV, catalog.TimingPaper} {
			pt, _ := PoolTimingOf(g, cs.b, preset)
			parts := []SlicePart{{0, cs.b, 1, 0}, {cs.b, gb, cs.pc, cs.b}}
			got, err := cal.ExactMix(parts, pt)
			if err != nil {
				t.Fatal(err)
			}
			mean, cs2, l99, i99 := bruteMix(c, parts, pt)
			if rel := math.Abs(got.MeanS-mean) / mean; rel > 1e-9 {
				t.Errorf("%+v %s: E[S] %v, brute force %v", cs, preset, got.MeanS, mean)
			}
			if math.Abs(got.Cs2-cs2) > 1e-7*max(1, cs2) {
				t.Errorf("%+v %s: Cs² %v, brute force %v", cs, preset, got.Cs2, cs2)
			}
			if got.P99Len != l99 || got.P99Iters != i99 {
				t.Errorf("%+v %s: P99 served length %d, iterations %d; brute force %d, %d", cs, preset, got.P99Len, got.P99Iters, l99, i99)
			}
			wantMass := c.Prob(0, cs.b) + cs.pc*c.Prob(cs.b, gb)
			if math.Abs(got.Mass-wantMass) > 1e-12 {
				t.Errorf("%+v: mass %v, want %v", cs, got.Mass, wantMass)
			}
			// Long-pool mixture: uncompressed band (1 − p_c) + above γB.
			lpt, _ := PoolTimingOf(g, 65536, preset)
			lparts := []SlicePart{{cs.b, gb, 1 - cs.pc, 0}, {gb, 65536, 1, 0}}
			if cs.pc == 1 {
				continue
			}
			lg, err := cal.ExactMix(lparts, lpt)
			if err != nil {
				t.Fatal(err)
			}
			mean, cs2, l99, i99 = bruteMix(c, lparts, lpt)
			if rel := math.Abs(lg.MeanS-mean) / mean; rel > 1e-9 || math.Abs(lg.Cs2-cs2) > 1e-7*max(1, cs2) {
				t.Errorf("%+v %s long: E[S] %v Cs² %v, brute force %v %v", cs, preset, lg.MeanS, lg.Cs2, mean, cs2)
			}
			if lg.P99Len != l99 || lg.P99Iters != i99 {
				t.Errorf("%+v %s long: P99 %d/%d, brute force %d/%d", cs, preset, lg.P99Len, lg.P99Iters, l99, i99)
			}
		}
	}
}

func TestCompressedRequestIsServedAtB(t *testing.T) {
	// A compressed request keeps L_out and is served with exactly B tokens:
	// L = 6,000 → L_in = 4,800, L_out = 1,200; T_c = 4,096 − 1,200 = 2,896.
	cal := mustCal(t, mustCDF(t, "azure"))
	in, out, c := cal.served(6000, SlicePart{Lo: 4096, Hi: 6144, Scale: 1, CompressTo: 4096})
	if in != 2896 || out != 1200 || c != 6 {
		t.Errorf("served(6000) = %d, %d, %d chunks; want 2896, 1200, 6", in, out, c)
	}
}

// mixPlans returns the paper and mix plans of the same configuration.
func mixPlans(t *testing.T, wl string, cfg Config, methods ...string) (paper, mix Plan) {
	t.Helper()
	cfg.ShortCalibration = ShortCalibPaper
	paper, err := newPlanner(t, wl, cfg).Run(methods)
	if err != nil {
		t.Fatal(err)
	}
	cfg.ShortCalibration = ShortCalibMix
	mix, err = newPlanner(t, wl, cfg).Run(methods)
	if err != nil {
		t.Fatal(err)
	}
	return paper, mix
}

// sameButModel compares two method plans field by field, ignoring the
// ShortCalibration label.
func sameButModel(a, b MethodPlan) bool {
	a.ShortCalibration, b.ShortCalibration = "", ""
	return reflect.DeepEqual(a, b)
}

func TestMixEqualsPaperWithoutCompression(t *testing.T) {
	for _, w := range paperPR {
		for _, calib := range []string{CalibExact, CalibMonteCarlo} {
			// γ = 1: no band, nothing to compress: the whole plan is the
			// paper's, bit for bit.
			base := Config{BShort: w.bShort, PC: w.pc, Calibration: calib, Gamma: 1, FixB: true, Gammas: []float64{1}}
			p, m := mixPlans(t, w.workload, base, MethodPR, MethodRetrofit, MethodFleetOpt)
			for i := range p.Methods {
				if !sameButModel(p.Methods[i], m.Methods[i]) {
					t.Errorf("%s %s γ = 1: mix differs from paper:\n%+v\n%+v", w.workload, p.Methods[i].Method, p.Methods[i], m.Methods[i])
				}
			}
			// p_c = 0: the short pool is the paper's exactly; the long pool
			// receives the whole band (B, ∞), so the fleet is PR's exactly.
			base = Config{BShort: w.bShort, PC: 0, Gamma: 1.5, Calibration: calib}
			p, m = mixPlans(t, w.workload, base, MethodPR, MethodRetrofit)
			ps, ms := p.Methods[1].Pools[0], m.Methods[1].Pools[0]
			if !reflect.DeepEqual(ps, ms) {
				t.Errorf("%s %s p_c = 0: short pool differs:\n%+v\n%+v", w.workload, calib, ps, ms)
			}
			pr, rf := m.Methods[0], m.Methods[1]
			if !reflect.DeepEqual(pr.Pools, rf.Pools) {
				t.Errorf("%s %s p_c = 0: mix retrofit %+v is not the PR fleet %+v", w.workload, calib, rf.Pools, pr.Pools)
			}
			if p.ShortCalibration != ShortCalibPaper || m.ShortCalibration != ShortCalibMix || m.Methods[1].ShortCalibration != ShortCalibMix {
				t.Errorf("labels %q %q %q", p.ShortCalibration, m.ShortCalibration, m.Methods[1].ShortCalibration)
			}
		}
	}
}

func TestMixShortPoolNeedsMoreGPUs(t *testing.T) {
	// Azure, λ = 1,000, B = 4,096, A100, p_c = 1. Paper counts: FleetOpt
	// Table 3 as reproduced in docs/planner.md §6 (retrofit 48 + 45, FleetOpt
	// γ* 2.0 49 + 1). Mix counts: this model, checked by simulation in
	// docs/planner.md "Checked by simulation" (the paper's short pools are
	// overloaded there, the mix ones are not).
	p, m := mixPlans(t, "azure", Config{BShort: 4096, PC: 1, Gamma: 1.5, FixB: true}, MethodRetrofit, MethodFleetOpt)
	want := []struct {
		method                 string
		gamma                  float64
		paperS, paperL         int
		mixS, mixL             int
		mixCompressedShareLow  float64
		mixCompressedShareHigh float64
	}{
		{MethodRetrofit, 1.5, 48, 45, 78, 45, 0.07, 0.09},
		{MethodFleetOpt, 2.0, 49, 1, 92, 1, 0.09, 0.11},
	}
	for i, w := range want {
		pm, mm := p.Methods[i], m.Methods[i]
		if pm.Gamma != w.gamma || mm.Gamma != w.gamma {
			t.Errorf("%s: γ %v (paper) %v (mix), want %v", w.method, pm.Gamma, mm.Gamma, w.gamma)
		}
		if pm.Pools[0].GPUs != w.paperS || pm.Pools[1].GPUs != w.paperL {
			t.Errorf("%s paper: %d + %d, want %d + %d", w.method, pm.Pools[0].GPUs, pm.Pools[1].GPUs, w.paperS, w.paperL)
		}
		if mm.Pools[0].GPUs != w.mixS || mm.Pools[1].GPUs != w.mixL {
			t.Errorf("%s mix: %d + %d, want %d + %d", w.method, mm.Pools[0].GPUs, mm.Pools[1].GPUs, w.mixS, w.mixL)
		}
		if !(mm.Pools[0].GPUs > pm.Pools[0].GPUs) || !(mm.Pools[0].MeanServiceS > 1.5*pm.Pools[0].MeanServiceS) {
			t.Errorf("%s: mix short pool %d GPUs, E[S] %v s not above paper's %d, %v s", w.method, mm.Pools[0].GPUs, mm.Pools[0].MeanServiceS, pm.Pools[0].GPUs, pm.Pools[0].MeanServiceS)
		}
		if mm.AlphaPrime != pm.AlphaPrime || mm.Pools[0].ArrivalRate != pm.Pools[0].ArrivalRate {
			t.Errorf("%s: traffic split changed: α′ %v vs %v", w.method, mm.AlphaPrime, pm.AlphaPrime)
		}
		mix := mm.Pools[0].Mix
		if len(mix) != 2 || mix[1].CompressTo != 4096 || mix[1].Share < w.mixCompressedShareLow || mix[1].Share > w.mixCompressedShareHigh {
			t.Errorf("%s: short-pool mix %+v", w.method, mix)
		}
		if pm.Pools[0].Mix != nil {
			t.Errorf("%s paper: mix reported %+v", w.method, pm.Pools[0].Mix)
		}
	}
	// The same holds on the other workloads (mix short pool strictly larger).
	for _, w := range paperPR[1:] {
		p, m := mixPlans(t, w.workload, Config{BShort: w.bShort, PC: w.pc, Gamma: 1.5}, MethodRetrofit)
		if !(m.Methods[0].Pools[0].GPUs > p.Methods[0].Pools[0].GPUs) {
			t.Errorf("%s retrofit: mix short %d GPUs, paper %d", w.workload, m.Methods[0].Pools[0].GPUs, p.Methods[0].Pools[0].GPUs)
		}
	}
}

func TestMixMonteCarloAgreesWithExact(t *testing.T) {
	// Monte Carlo's mean service time must be within 3 standard errors
	// (sqrt(Var[S]/n), exact Var) of the exact one at the planner's default
	// seed, for the short pool's mixture and the long pool's (p_c < 1). Over
	// seeds 1..100 the z-scores must look like a standard normal's: mean
	// within 3/sqrt(100) of 0 and at most 3 of 100 beyond 3 s.e. (expected
	// 0.27; one 3,000-sample draw in ~400 is, e.g. Azure γ = 2 seed 2 at
	// z = 3.06, so a test over a few fixed seeds would test luck).
	g, _ := catalog.LookupGPU("a100")
	cases := []struct {
		workload string
		b        int
		gamma    float64
		pc       float64
	}{
		{"azure", 4096, 1.5, 1}, {"azure", 4096, 2.0, 1}, {"lmsys", 1536, 1.5, 1}, {"agent-heavy", 8192, 1.5, 0.75},
	}
	for _, cs := range cases {
		cal := mustCal(t, mustCDF(t, cs.workload))
		gb := int(math.Floor(cs.gamma * float64(cs.b)))
		for _, pool := range []struct {
			ctx   int
			parts []SlicePart
		}{
			{cs.b, []SlicePart{{0, cs.b, 1, 0}, {cs.b, gb, cs.pc, cs.b}}},
			{65536, []SlicePart{{cs.b, gb, 1 - cs.pc, 0}, {gb, 65536, 1, 0}}},
		} {
			if pool.ctx == 65536 && cs.pc == 1 {
				continue
			}
			pt, _ := PoolTimingOf(g, pool.ctx, catalog.TimingKV)
			ex, err := cal.CalibrateMix(CalibExact, pool.parts, pt, 0)
			if err != nil {
				t.Fatal(err)
			}
			se := math.Sqrt(ex.VarS / MCSamples)
			z := func(method string, seed uint64) float64 {
				mc, err := cal.CalibrateMix(method, pool.parts, pt, seed)
				if err != nil {
					t.Fatal(err)
				}
				if mc.Method != method {
					t.Errorf("method %q, want %q", mc.Method, method)
				}
				return (mc.MeanS - ex.MeanS) / se
			}
			if z42 := z(CalibMonteCarloIID, DefaultSeed); math.Abs(z42) > 3 {
				t.Errorf("%+v ctx %d seed 42: MC E[S] off by %.2f s.e. (exact %v)", cs, pool.ctx, z42, ex.MeanS)
			}
			const n = 100
			sum, beyond, worstStrat := 0.0, 0, 0.0
			for seed := uint64(1); seed <= n; seed++ {
				v := z(CalibMonteCarloIID, seed)
				sum += v
				if math.Abs(v) > 3 {
					beyond++
				}
				worstStrat = max(worstStrat, math.Abs(z(CalibMonteCarlo, seed)))
			}
			if m := sum / n; math.Abs(m) > 3/math.Sqrt(n) || beyond > 3 {
				t.Errorf("%+v ctx %d: i.i.d. over %d seeds mean z %.3f, %d beyond 3 s.e.", cs, pool.ctx, n, m, beyond)
			}
			// Stratified sampling: the same expectation, a far smaller
			// spread; over the same seeds every estimate is within 0.05
			// i.i.d. standard errors (worst seen: 0.010, agent-heavy long).
			if worstStrat > 0.05 {
				t.Errorf("%+v ctx %d: stratified MC E[S] off by up to %.2f i.i.d. s.e. over %d seeds", cs, pool.ctx, worstStrat, n)
			}
			for _, method := range []string{CalibMonteCarlo, CalibMonteCarloIID} {
				again, _ := cal.CalibrateMix(method, pool.parts, pt, 42)
				first, _ := cal.CalibrateMix(method, pool.parts, pt, 42)
				if again != first {
					t.Errorf("%s: same seed, different stats", method)
				}
			}
		}
	}
}

func TestMixAcceptanceNumbersUnchanged(t *testing.T) {
	// Issue #3's acceptance (PR, γ = 1) under both models: exact Azure
	// 44 + 131, LMSYS 7 + 76, agent-heavy 232 + 2,039.
	for _, sc := range []string{ShortCalibPaper, ShortCalibMix} {
		for _, w := range paperPR {
			m, err := newPlanner(t, w.workload, Config{BShort: w.bShort, PC: w.pc, ShortCalibration: sc}).PR()
			if err != nil {
				t.Fatal(err)
			}
			if m.Pools[0].GPUs != w.exactS || m.Pools[1].GPUs != w.exactL {
				t.Errorf("%s %s PR: %d + %d, want %d + %d (issue #3)", sc, w.workload, m.Pools[0].GPUs, m.Pools[1].GPUs, w.exactS, w.exactL)
			}
		}
	}
}

func TestMixErrors(t *testing.T) {
	cal := mustCal(t, mustCDF(t, "azure"))
	pt := PoolTiming{W: 0.008, H: 0.00065, CalibCtx: 8192, Slots: 256, Preset: catalog.TimingKV}
	for _, parts := range [][]SlicePart{
		{{Lo: 16384, Hi: 65536, Scale: 1}},                  // empty (azure ends at 16,384)
		{{Lo: 10, Hi: 5, Scale: 1}},                         // hi <= lo
		{{Lo: 0, Hi: 4096, Scale: 1.5}},                     // scale > 1
		{{Lo: 2000, Hi: 6000, Scale: 1, CompressTo: 4096}},  // starts below its budget
		{{Lo: 1000, Hi: 16000, Scale: 1, CompressTo: 1000}}, // L_out >= B above 5,000
	} {
		if _, err := cal.ExactMix(parts, pt); err == nil {
			t.Errorf("%+v: no error", parts)
		}
		if _, err := cal.MonteCarloMix(parts, pt, 100, 1); err == nil {
			t.Errorf("%+v: Monte Carlo: no error", parts)
		}
	}
	if _, err := cal.CalibrateMix("bogus", []SlicePart{{Lo: 0, Hi: 100, Scale: 1}}, pt, 1); err == nil {
		t.Error("unknown method: no error")
	}
	a100, _ := catalog.LookupGPU("a100")
	if _, err := NewPlanner(cal, Config{Rate: 1, ShortGPU: a100, LongGPU: a100, ShortCalibration: "both"}); err == nil {
		t.Error("short-calibration both: no error")
	}
}

// BenchmarkFleetOptSweepMix is BenchmarkFleetOptSweep with
// short-calibration mix, without estimate noise (sigma0) and with the CLI's
// default σ = 0.05 (sigma0.05: each cell's edge zone around γB is split
// into runs of ~σ·f·γB/16 lengths, each a slice of the mixture).
func BenchmarkFleetOptSweepMix(b *testing.B) {
	for _, sigma := range []float64{0, 0.05} {
		for _, w := range paperPR {
			b.Run(fmt.Sprintf("sigma%g/%s", sigma, w.workload), func(b *testing.B) {
				a100, _ := catalog.LookupGPU("a100")
				benchSweep(b, w.workload, Config{Rate: 1000, ShortGPU: a100, LongGPU: a100, BShort: w.bShort, PC: w.pc,
					ShortCalibration: ShortCalibMix, EstimateNoise: sigma})
			})
		}
	}
}

func TestMixWithTTFTTarget(t *testing.T) {
	// With a TTFT target the mixture's P99 prefill enters the wait budget:
	// every pool of the mix plan meets the target, and the sweep's
	// count-only path (no P99 fields) picks a cell whose full report agrees.
	for _, slo := range []float64{0, 1.0} {
		pl := newPlanner(t, "azure", Config{BShort: 4096, PC: 1, SLO: slo, ShortCalibration: ShortCalibMix})
		m, err := pl.FleetOpt()
		if err != nil {
			t.Fatal(err)
		}
		usd, gpus, err := pl.cellCost(m.BShort, m.Gamma)
		if err != nil || gpus != m.TotalGPUs || math.Abs(usd-m.AnnualUSD) > 1e-6 {
			t.Errorf("slo %v: sweep cell %d GPUs $%v, report %d GPUs $%v (%v)", slo, gpus, usd, m.TotalGPUs, m.AnnualUSD, err)
		}
		for _, p := range m.Pools {
			if p.Stats().P99Iters < 1 || p.Stats().P99Len < 1 {
				t.Errorf("slo %v %s: P99 fields missing: %+v", slo, p.Name, p.Stats())
			}
			if slo > 0 && p.P99TTFTS > slo {
				t.Errorf("slo %v %s: predicted P99 TTFT %v", slo, p.Name, p.P99TTFTS)
			}
		}
	}
}

// bruteLongRate is the reference for the estimate-noise model: λ times the
// probability that a request goes long, summed over every integer length
// with its own split and the normal law of the router's estimate
// (L_in·(1 + σz) + L_out <= ⌊γB⌋ → compressed with probability p_c).
func bruteLongRate(c *workload.CDF, b, gb int, pc, sigma, lambda float64) float64 {
	long := 0.0
	prevT, prevF := 0, 0.0
	for _, q := range c.Points {
		w := (q.F - prevF) / float64(q.Tokens-prevT)
		for L := max(prevT, b) + 1; L <= q.Tokens; L++ {
			in := int(math.Floor(0.8*float64(L) + 1e-9))
			z := float64(gb-L) / (sigma * float64(in))
			compress := pc * 0.5 * math.Erfc(-z/math.Sqrt2)
			long += w * (1 - compress)
		}
		prevT, prevF = q.Tokens, q.F
	}
	return lambda * long
}

func TestMixEstimateNoise(t *testing.T) {
	// Azure, B = 4,096, σ = 0.05 (the simulator's workload.BytesJitter).
	// docs/planner.md §5: the simulator sends 26.1 req/s (γ 1.5) and
	// 1.45 req/s (γ 2) to the long pool; the model's rates must match the
	// per-length sum bruteLongRate to 0.01% (the planner averages the
	// compression probability over short runs by Simpson's rule).
	c := mustCDF(t, "azure")
	for _, tt := range []struct {
		gamma    float64
		wantLong int // GPUs; without noise 45 and 1
	}{{1.5, 48}, {2.0, 4}} {
		pl := newPlanner(t, "azure", Config{BShort: 4096, PC: 1, ShortCalibration: ShortCalibMix, EstimateNoise: 0.05})
		m, err := pl.Split(MethodRetrofit, 4096, tt.gamma, 1)
		if err != nil {
			t.Fatal(err)
		}
		gb := int(math.Floor(tt.gamma * 4096))
		want := bruteLongRate(c, 4096, gb, 1, 0.05, 1000)
		got := m.Pools[1].ArrivalRate
		if math.Abs(got-want) > 1e-4*want {
			t.Errorf("γ %v: long pool λ %v, per-length sum %v", tt.gamma, got, want)
		}
		if math.Abs(m.Pools[0].ArrivalRate+got-1000) > 1e-9 || math.Abs(m.AlphaPrime-m.Pools[0].ArrivalRate/1000) > 1e-12 {
			t.Errorf("γ %v: rates %v + %v, α′ %v", tt.gamma, m.Pools[0].ArrivalRate, got, m.AlphaPrime)
		}
		if m.Pools[1].GPUs != tt.wantLong || m.EstimateNoise != 0.05 {
			t.Errorf("γ %v: long pool %d GPUs, want %d (σ %v)", tt.gamma, m.Pools[1].GPUs, tt.wantLong, m.EstimateNoise)
		}
		// Monte Carlo over the same mixture agrees with exact at seed 42.
		mc := newPlanner(t, "azure", Config{BShort: 4096, PC: 1, ShortCalibration: ShortCalibMix, EstimateNoise: 0.05, Calibration: CalibMonteCarlo})
		mm, err := mc.Split(MethodRetrofit, 4096, tt.gamma, 1)
		if err != nil {
			t.Fatal(err)
		}
		for i := range m.Pools {
			ex, ms := m.Pools[i].Stats(), mm.Pools[i].Stats()
			if z := (ms.MeanS - ex.MeanS) / math.Sqrt(ex.VarS/MCSamples); math.Abs(z) > 3 {
				t.Errorf("γ %v %s: Monte Carlo E[S] %v vs exact %v (z = %.2f)", tt.gamma, m.Pools[i].Name, ms.MeanS, ex.MeanS, z)
			}
		}
	}
	// The identities survive the noise: γ = 1 is the paper's plan, p_c = 0
	// the PR fleet.
	for _, w := range paperPR {
		p, m := mixPlans(t, w.workload, Config{BShort: w.bShort, PC: w.pc, Gamma: 1, FixB: true, Gammas: []float64{1}, EstimateNoise: 0.05}, MethodPR, MethodRetrofit, MethodFleetOpt)
		for i := range p.Methods {
			a, b := p.Methods[i], m.Methods[i]
			b.EstimateNoise = 0
			if !sameButModel(a, b) {
				t.Errorf("%s %s γ = 1, σ = 0.05: mix differs from paper", w.workload, a.Method)
			}
		}
		_, m = mixPlans(t, w.workload, Config{BShort: w.bShort, PC: 0, Gamma: 1.5, EstimateNoise: 0.05}, MethodPR, MethodRetrofit)
		if !reflect.DeepEqual(m.Methods[0].Pools, m.Methods[1].Pools) {
			t.Errorf("%s p_c = 0, σ = 0.05: retrofit is not the PR fleet", w.workload)
		}
	}
	if _, m := mixPlans(t, "azure", Config{BShort: 4096, PC: 1, EstimateNoise: 0.05}, MethodRetrofit); m.EstimateNoise != 0.05 {
		t.Errorf("plan estimate_noise %v", m.EstimateNoise)
	}
	if p, _ := mixPlans(t, "azure", Config{BShort: 4096, PC: 1, EstimateNoise: 0.05}, MethodRetrofit); p.EstimateNoise != 0 || p.Methods[0].Pools[0].GPUs != 48 {
		t.Errorf("paper model: estimate_noise %v (want 0: unused), short %d GPUs (want 48)", p.EstimateNoise, p.Methods[0].Pools[0].GPUs)
	}
	a100, _ := catalog.LookupGPU("a100")
	cal := mustCal(t, c)
	for _, bad := range []float64{-0.01, 0.6, math.NaN()} {
		if _, err := NewPlanner(cal, Config{Rate: 1, ShortGPU: a100, LongGPU: a100, EstimateNoise: bad}); err == nil {
			t.Errorf("estimate noise %v: no error", bad)
		}
	}
}

// FuzzMixSplit: any cell (B, γ, p_c, σ, input fraction) of the mix model
// gives a fleet or an error, never a panic, and a fleet's pools split λ and
// have finite positive service rates.
func FuzzMixSplit(f *testing.F) {
	f.Add(uint8(0), 4096, 1.5, 1.0, 0.05, 0.8)
	f.Add(uint8(1), 1536, 2.0, 0.5, 0.0, 0.8)
	f.Add(uint8(2), 8192, 1.0, 0.75, 0.5, 0.3)
	f.Add(uint8(0), 2, 9.0, 1.0, 0.2, 0.1)
	type calID struct {
		w    int
		frac float64
	}
	cals := map[calID]*Calibrator{}
	a100, _ := catalog.LookupGPU("a100")
	f.Fuzz(func(t *testing.T, w uint8, b int, gamma, pc, sigma, frac float64) {
		name := workload.BuiltinCDFs()[int(w)%3]
		if !(frac >= 0.05 && frac <= 0.95) {
			return
		}
		frac = math.Round(frac*20) / 20 // a few calibrators (12.6 MB each), reused
		key := calID{int(w) % 3, frac}
		cal := cals[key]
		if cal == nil {
			var err error
			if cal, err = NewCalibrator(mustCDF(t, name), frac, 512); err != nil {
				t.Fatal(err)
			}
			cals[key] = cal
		}
		pl, err := NewPlanner(cal, Config{Rate: 1000, ShortGPU: a100, LongGPU: a100, PC: min(max(pc, 0), 1),
			ShortCalibration: ShortCalibMix, EstimateNoise: sigma})
		if err != nil {
			return
		}
		m, err := pl.Split(MethodRetrofit, b, gamma, pl.Config().PC)
		if err != nil {
			return
		}
		sum := 0.0
		for _, p := range m.Pools {
			sum += p.ArrivalRate
			if p.GPUs < 1 || !(p.MuGPU > 0) || math.IsInf(p.MuGPU, 0) || math.IsNaN(p.Cs2) {
				t.Fatalf("%s B %d γ %v p_c %v σ %v f %v: pool %+v", name, b, gamma, pc, sigma, frac, p)
			}
		}
		if math.Abs(sum-1000) > 1e-6 {
			t.Fatalf("%s B %d γ %v: rates sum to %v", name, b, gamma, sum)
		}
		// The sweep's count-only path (mixSums, reused buffers) sizes the
		// cell as the full report does.
		usd, n, err := pl.cellCost(b, gamma)
		if err != nil || n != m.TotalGPUs || math.Abs(usd-m.AnnualUSD) > 1e-6*m.AnnualUSD {
			t.Fatalf("%s B %d γ %v p_c %v σ %v f %v: count-only %d GPUs $%v (%v), report %d $%v", name, b, gamma, pc, sigma, frac, n, usd, err, m.TotalGPUs, m.AnnualUSD)
		}
	})
}
