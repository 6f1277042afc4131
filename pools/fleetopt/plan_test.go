package fleetopt

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/fleetsim/fleetsim/internal/cputime"
	"github.com/fleetsim/fleetsim/pools/catalog"
	"github.com/fleetsim/fleetsim/pools/queueing"
)

// paperPR is the FleetOpt paper's pool-routing fleet (Table 3 / Table 5,
// λ = 1,000 req/s, A100, ρ_max = 0.85), and exactPR the counts that exact
// moments of the model give, computed independently by the author of
// issue #3.
var paperPR = []struct {
	workload          string
	bShort            int
	pc                float64
	paperS, paperL    int
	exactS, exactL    int
	paperHomo         int
	paperCostPRThousd float64
}{
	{"azure", 4096, 1, 43, 131, 44, 131, 284, 3369},
	{"lmsys", 1536, 1, 7, 74, 7, 76, 139, 1568},
	{"agent-heavy", 8192, 0.75, 229, 2037, 232, 2039, 2397, 43869},
}

func newPlanner(t testing.TB, workload string, cfg Config) *Planner {
	t.Helper()
	a100, _ := catalog.LookupGPU("a100")
	if cfg.ShortGPU.Name == "" {
		cfg.ShortGPU = a100
	}
	if cfg.LongGPU.Name == "" {
		cfg.LongGPU = a100
	}
	if cfg.Rate == 0 {
		cfg.Rate = 1000
	}
	pl, err := NewPlanner(mustCal(t, mustCDF(t, workload)), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return pl
}

func TestPRExactReproducesIssueNumbers(t *testing.T) {
	for _, w := range paperPR {
		pl := newPlanner(t, w.workload, Config{BShort: w.bShort, PC: w.pc})
		m, err := pl.PR()
		if err != nil {
			t.Fatal(err)
		}
		if len(m.Pools) != 2 || m.Pools[0].GPUs != w.exactS || m.Pools[1].GPUs != w.exactL {
			t.Errorf("%s PR exact: %d+%d, want %d+%d (issue #3)", w.workload, m.Pools[0].GPUs, m.Pools[1].GPUs, w.exactS, w.exactL)
		}
		if m.TotalGPUs != w.exactS+w.exactL {
			t.Errorf("%s total %d", w.workload, m.TotalGPUs)
		}
		wantCost := float64(m.TotalGPUs) * 2.21 * 8760
		if math.Abs(m.AnnualUSD-wantCost) > 1e-6 {
			t.Errorf("%s annual cost %v, want %v", w.workload, m.AnnualUSD, wantCost)
		}
		// Within 3% of the paper's pools (the paper used Monte Carlo).
		for i, paper := range []int{w.paperS, w.paperL} {
			if rel := math.Abs(float64(m.Pools[i].GPUs-paper)) / float64(paper); rel > 0.03 {
				t.Errorf("%s %s: %d GPUs, paper %d (%.1f%%)", w.workload, m.Pools[i].Name, m.Pools[i].GPUs, paper, 100*rel)
			}
		}
		for _, p := range m.Pools {
			if p.Utilization > 0.85 || p.Utilization < 0.7 {
				t.Errorf("%s %s utilization %v outside the cap regime", w.workload, p.Name, p.Utilization)
			}
			if p.GPUs != p.GPUsByRhoMax {
				t.Errorf("%s %s: %d GPUs but the cap needs %d (no SLO given: the cap decides)", w.workload, p.Name, p.GPUs, p.GPUsByRhoMax)
			}
		}
	}
}

func TestPRMonteCarloIID(t *testing.T) {
	// Plain i.i.d. Monte Carlo, the papers' method: with 3,000 samples the
	// estimate of a = λ/μ_gpu has a relative standard error of
	// sqrt(Cs²/3000): 2.3% for Azure short but 7.2% for LMSYS long
	// (Cs² = 15.5). Each pool must lie within 3 standard errors of the exact
	// answer; seed 42's counts are pinned as a regression check (the same
	// counts the "montecarlo" method gave before it became stratified).
	golden := map[string][2]int{"azure": {42, 130}, "lmsys": {7, 77}, "agent-heavy": {224, 1977}}
	for _, w := range paperPR {
		ex, err := newPlanner(t, w.workload, Config{BShort: w.bShort, PC: w.pc}).PR()
		if err != nil {
			t.Fatal(err)
		}
		mc, err := newPlanner(t, w.workload, Config{BShort: w.bShort, PC: w.pc, Calibration: CalibMonteCarloIID, Seed: 42}).PR()
		if err != nil {
			t.Fatal(err)
		}
		if mc.Calibration != CalibMonteCarloIID || mc.Pools[0].Stats().Method != CalibMonteCarloIID {
			t.Errorf("calibration %q, pool method %q", mc.Calibration, mc.Pools[0].Stats().Method)
		}
		for i := range mc.Pools {
			e, m := ex.Pools[i], mc.Pools[i]
			se := math.Sqrt(e.Cs2 / MCSamples)
			aE, aM := e.ArrivalRate/e.MuGPU, m.ArrivalRate/m.MuGPU
			if rel := math.Abs(aM-aE) / aE; rel > 3*se {
				t.Errorf("%s %s: MC load %v vs exact %v: %.1f%% > 3 s.e. (%.1f%%)", w.workload, e.Name, aM, aE, 100*rel, 300*se)
			}
			if m.GPUs != golden[w.workload][i] {
				t.Errorf("%s %s: seed 42 gives %d GPUs, pinned %d", w.workload, e.Name, m.GPUs, golden[w.workload][i])
			}
		}
	}
}

// TestPRMonteCarloWithinPaper is issue #3's acceptance for Monte Carlo: with
// the stratified "montecarlo" method (3,000 samples) every pool-routing
// pool of the three workloads is within 3% of the FleetOpt paper's
// (paperPR: 43 + 131, 7 + 74, 229 + 2,037) at the default seed 42 and at
// seeds 1..20 and 1,001..1,010 (so the result is not one lucky seed), and
// each pool's E[S] is within tol of the exact moments. tol is the worst
// relative error seen over seeds 1..300 times ~1.2: 0.85% for LMSYS long
// (Cs² = 15.5: its top stratum spans the heavy tail), ≤ 0.09% elsewhere.
// Plain i.i.d. sampling puts LMSYS long at 77 (+4.1%) for seed 42 and
// outside 3% for 66% of seeds (docs/planner.md §7).
func TestPRMonteCarloWithinPaper(t *testing.T) {
	tol := map[string][2]float64{"azure": {0.001, 0.001}, "lmsys": {0.001, 0.01}, "agent-heavy": {0.001, 0.001}}
	seeds := []uint64{DefaultSeed}
	for s := uint64(1); s <= 20; s++ {
		seeds = append(seeds, s)
	}
	for s := uint64(1001); s <= 1010; s++ {
		seeds = append(seeds, s)
	}
	for _, w := range paperPR {
		ex, err := newPlanner(t, w.workload, Config{BShort: w.bShort, PC: w.pc}).PR()
		if err != nil {
			t.Fatal(err)
		}
		for _, seed := range seeds {
			mc, err := newPlanner(t, w.workload, Config{BShort: w.bShort, PC: w.pc, Calibration: CalibMonteCarlo, Seed: seed}).PR()
			if err != nil {
				t.Fatal(err)
			}
			if mc.Calibration != CalibMonteCarlo || mc.Pools[0].Stats().Method != CalibMonteCarlo {
				t.Errorf("calibration %q, pool method %q", mc.Calibration, mc.Pools[0].Stats().Method)
			}
			for i, paper := range []int{w.paperS, w.paperL} {
				m, e := mc.Pools[i], ex.Pools[i]
				if rel := math.Abs(float64(m.GPUs-paper)) / float64(paper); rel > 0.03 {
					t.Errorf("%s %s seed %d: %d GPUs, paper %d (%.1f%% > 3%%)", w.workload, m.Name, seed, m.GPUs, paper, 100*rel)
				}
				if rel := math.Abs(m.MeanServiceS/e.MeanServiceS - 1); rel > tol[w.workload][i] {
					t.Errorf("%s %s seed %d: E[S] %v vs exact %v (%.3f%% > %.2f%%)", w.workload, m.Name, seed, m.MeanServiceS, e.MeanServiceS, 100*rel, 100*tol[w.workload][i])
				}
			}
			if seed == DefaultSeed {
				// Seed 42 gives the exact counts (issue #3: 44 + 131, 7 + 76, 232 + 2,039).
				if mc.Pools[0].GPUs != w.exactS || mc.Pools[1].GPUs != w.exactL {
					t.Errorf("%s seed 42: %d + %d, want %d + %d", w.workload, mc.Pools[0].GPUs, mc.Pools[1].GPUs, w.exactS, w.exactL)
				}
			}
		}
	}
}

func TestMethodsOrderingAndFormulas(t *testing.T) {
	for _, w := range paperPR {
		pl := newPlanner(t, w.workload, Config{BShort: w.bShort, PC: w.pc})
		plan, err := pl.Run(nil)
		if err != nil {
			t.Fatal(err)
		}
		by := map[string]MethodPlan{}
		for _, m := range plan.Methods {
			by[m.Method] = m
		}
		h, pr, rf, fo := by[MethodHomo], by[MethodPR], by[MethodRetrofit], by[MethodFleetOpt]
		// FleetOpt's sweep contains the PR cell (B_short, γ=1) and the retrofit
		// cell (B_short, 1.5) when B_short is a breakpoint: never worse
		// (FleetOpt Theorem 2).
		if fo.AnnualUSD > rf.AnnualUSD+1e-6 || fo.AnnualUSD > pr.AnnualUSD+1e-6 {
			t.Errorf("%s: fleetopt $%v above retrofit $%v or PR $%v", w.workload, fo.AnnualUSD, rf.AnnualUSD, pr.AnnualUSD)
		}
		if pr.AnnualUSD >= h.AnnualUSD {
			t.Errorf("%s: PR $%v not below homogeneous $%v", w.workload, pr.AnnualUSD, h.AnnualUSD)
		}
		if s := 1 - pr.AnnualUSD/h.AnnualUSD; math.Abs(s-pr.Savings) > 1e-12 {
			t.Errorf("%s: savings %v, want %v", w.workload, pr.Savings, s)
		}
		// α′ and the closed form α(1 − 1/ρ) with ρ = μ_s/μ_homo (token-budget eq. 7).
		if math.Abs(pr.AlphaPrime-pr.Alpha) > 1e-15 || pr.Beta != 0 {
			t.Errorf("%s: PR α′ %v ≠ α %v or β %v ≠ 0", w.workload, pr.AlphaPrime, pr.Alpha, pr.Beta)
		}
		rho := pr.Pools[0].MuGPU / h.Pools[0].MuGPU
		if cf := pr.Alpha * (1 - 1/rho); math.Abs(cf-pr.ClosedForm) > 1e-12 {
			t.Errorf("%s: closed form %v, want %v", w.workload, pr.ClosedForm, cf)
		}
		// FleetOpt §2.2's form uses the cliff ratio: 16× at 4,096, 42× at
		// 1,536 (682/16 = 42.6), 8× at 8,192 (FleetOpt Table 2).
		if cf := pr.Alpha * (1 - 1/pr.CliffRatio); math.Abs(cf-pr.ClosedCliff) > 1e-12 || math.Floor(pr.CliffRatio) != map[int]float64{4096: 16, 1536: 42, 8192: 8}[w.bShort] {
			t.Errorf("%s: cliff ratio %v, closed form %v (want %v)", w.workload, pr.CliffRatio, pr.ClosedCliff, cf)
		}
		// Eq. 8 without rounding or cap is below the sized fleet.
		if pr.Corrected >= float64(pr.TotalGPUs) {
			t.Errorf("%s: eq. 8 %v GPUs not below the capped fleet %d", w.workload, pr.Corrected, pr.TotalGPUs)
		}
		if want := rf.Alpha + rf.Beta*w.pc; math.Abs(rf.AlphaPrime-want) > 1e-15 {
			t.Errorf("%s: retrofit α′ %v, want %v", w.workload, rf.AlphaPrime, want)
		}
	}
}

func TestAzureFleetOptFixedB(t *testing.T) {
	// FleetOpt Table 3, Azure at B = 4,096: γ* = 2.0, 48 + 2 = 50 GPUs,
	// $968K/yr. Exact moments give γ* = 2.0 and 49 + 1 = 50 GPUs (the same
	// total and cost; see docs/planner.md).
	m, err := newPlanner(t, "azure", Config{BShort: 4096, PC: 1, FixB: true}).FleetOpt()
	if err != nil {
		t.Fatal(err)
	}
	if m.Gamma != 2.0 || m.TotalGPUs != 50 || math.Round(m.AnnualUSD/1000) != 968 {
		t.Errorf("azure fleetopt at B=4096: γ %v, %d GPUs, $%.0fK; paper γ 2.0, 50, $968K", m.Gamma, m.TotalGPUs, m.AnnualUSD/1000)
	}
	if m.SweepCells != 11 {
		t.Errorf("cells %d, want 11", m.SweepCells)
	}
}

func TestArchetype(t *testing.T) {
	tests := []struct {
		alpha, beta float64
		want        string
	}{
		{0.898, 0.078, "I"},  // FleetOpt Table 2: Azure "I/II"
		{0.909, 0.046, "I"},  // LMSYS "I/II"
		{0.740, 0.112, "II"}, // agent-heavy "II"
		{0.30, 0.01, "III"},  // mass above B
		{0.95, 0.005, "II"},  // high α but the band holds little of the rest
	}
	for _, tt := range tests {
		if got := Archetype(tt.alpha, tt.beta); got != tt.want {
			t.Errorf("Archetype(%v, %v) = %s, want %s", tt.alpha, tt.beta, got, tt.want)
		}
	}
}

func TestPlannerErrors(t *testing.T) {
	a100, _ := catalog.LookupGPU("a100")
	cal := mustCal(t, mustCDF(t, "agent-heavy"))
	base := Config{Rate: 1000, ShortGPU: a100, LongGPU: a100, BShort: 8192}
	bad := []struct {
		name string
		mod  func(*Config)
		want string
	}{
		{"negative rate", func(c *Config) { c.Rate = -5 }, "rate"},
		{"rate above MaxRate", func(c *Config) { c.Rate = 1e300 }, "rate 1e+300 requests/s"},
		{"infinite rate", func(c *Config) { c.Rate = math.Inf(1) }, "rate +Inf"},
		{"rho-max 1", func(c *Config) { c.RhoMax = 1 }, "rho-max"},
		{"gamma below 1", func(c *Config) { c.Gamma = 0.9 }, "gamma"},
		{"p_c above 1", func(c *Config) { c.PC = 1.5 }, "p-c"},
		{"b-short at long ctx", func(c *Config) { c.BShort = 65536 }, "b-short"},
	}
	for _, b := range bad {
		c := base
		b.mod(&c)
		_, err := NewPlanner(cal, c)
		if err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("%s: err %v, want one naming %q", b.name, err, b.want)
		}
	}
	// An SLO below the prefill time: no size can meet it.
	c := base
	c.SLO = 0.05
	pl, err := NewPlanner(cal, c)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pl.PR(); err == nil || !strings.Contains(err.Error(), "prefill") {
		t.Errorf("SLO 50 ms: err %v, want one naming the prefill time", err)
	}
	// An empty short slice: agent-heavy has F(128) = 0.
	c = base
	c.BShort = 128
	pl, _ = NewPlanner(cal, c)
	if _, err := pl.PR(); err == nil || !strings.Contains(err.Error(), "empty") {
		t.Errorf("b-short 128 on agent-heavy: err %v, want an empty-slice error", err)
	}
}

func TestSLOBindsWhenTight(t *testing.T) {
	// A GPU with few slots (16 at 4K, 1 at 64K) at a low rate: the cap alone
	// allows few GPUs but Erlang-C waits are then long, so the wait target
	// decides; the answer meets the SLO and one GPU fewer would not.
	a100, _ := catalog.LookupGPU("a100")
	tiny := a100
	tiny.Name, tiny.MaxSlots = "tiny", 8
	const slo = 1.0
	pl := newPlanner(t, "azure", Config{Rate: 5, BShort: 4096, PC: 1, SLO: slo, ShortGPU: tiny, LongGPU: tiny})
	m, err := pl.PR()
	if err != nil {
		t.Fatal(err)
	}
	bound := 0
	for _, p := range m.Pools {
		if p.P99TTFTS > slo+1e-9 {
			t.Errorf("%s: P99 TTFT %v above the SLO %v", p.Name, p.P99TTFTS, slo)
		}
		if p.GPUs > p.GPUsByRhoMax {
			bound++
			st := p.Stats()
			pt, _ := PoolTimingOf(tiny, p.MaxCtx, catalog.TimingKV)
			budget := slo - float64(st.P99Iters+1)*operatingIter(pt, st, queueing.DefaultRhoMax) // eq. 8 at the cap
			if w := queueing.KimuraP99Wait((p.GPUs-1)*p.Slots, 1/st.MeanS, p.ArrivalRate, st.Cs2); w <= budget {
				t.Errorf("%s: %d GPUs but %d already give wait %v <= budget %v", p.Name, p.GPUs, p.GPUs-1, w, budget)
			}
			if p.P99WaitS > budget {
				t.Errorf("%s: wait %v above the budget %v", p.Name, p.P99WaitS, budget)
			}
		}
		t.Logf("%s: %d GPUs (cap bound %d), wait %.4f s, TTFT %.4f s", p.Name, p.GPUs, p.GPUsByRhoMax, p.P99WaitS, p.P99TTFTS)
	}
	if bound == 0 {
		t.Error("the wait target bound no pool; the test lost its point")
	}
}

func TestReadPlanRoundTrip(t *testing.T) {
	pl := newPlanner(t, "azure", Config{BShort: 4096, PC: 1})
	plan, err := pl.Run([]string{MethodHomo, MethodPR})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(plan); err != nil {
		t.Fatal(err)
	}
	doc := buf.String()
	for _, key := range []string{`"name"`, `"gpu"`, `"max_ctx"`, `"slots"`, `"arrival_rate"`, `"mu_gpu"`, `"cs2"`, `"gpus"`, `"utilization"`, `"p99_wait_s"`, `"p99_ttft_s"`, `"total_gpus"`, `"annual_cost_usd"`, `"savings_vs_homogeneous"`} {
		if !strings.Contains(doc, key) {
			t.Errorf("plan JSON lacks key %s", key)
		}
	}
	pools, err := ReadPlan(strings.NewReader(doc), MethodPR)
	if err != nil {
		t.Fatal(err)
	}
	want := []PlannedPool{{"short", "a100", 44, 4096}, {"long", "a100", 131, 65536}}
	if len(pools) != 2 || pools[0] != want[0] || pools[1] != want[1] {
		t.Errorf("ReadPlan: %+v, want %+v", pools, want)
	}
	if _, err := ReadPlan(strings.NewReader(doc), ""); err == nil {
		t.Error("two methods, none named: no error")
	}
	if _, err := ReadPlan(strings.NewReader(doc), "fleetopt"); err == nil {
		t.Error("absent method: no error")
	}
	if _, err := ReadPlan(strings.NewReader(`{"methods":[{"method":"pr","pools":[{"name":"s","gpu":"tpu","gpus":1,"max_ctx":10}]}]}`), "pr"); err == nil {
		t.Error("unknown GPU: no error")
	}
}

// BenchmarkFleetOptSweep times Algorithm 1 for one workload once the CDF is
// loaded and its prefix sums built: all feasible B × 11 γ, exact moments,
// plus the homogeneous baseline for the savings.
func BenchmarkFleetOptSweep(b *testing.B) {
	for _, w := range paperPR {
		b.Run(w.workload, func(b *testing.B) {
			a100, _ := catalog.LookupGPU("a100")
			benchSweep(b, w.workload, Config{Rate: 1000, ShortGPU: a100, LongGPU: a100, BShort: w.bShort, PC: w.pc})
		})
	}
}

// benchSweep times NewPlanner + FleetOpt for cfg on a loaded workload CDF,
// reporting the sweep's cells and the CPU time per sweep.
func benchSweep(b *testing.B, workload string, cfg Config) {
	cal := mustCal(b, mustCDF(b, workload))
	var cells int
	c0 := cputime.Process()
	for b.Loop() {
		pl, err := NewPlanner(cal, cfg)
		if err != nil {
			b.Fatal(err)
		}
		m, err := pl.FleetOpt()
		if err != nil {
			b.Fatal(err)
		}
		cells = m.SweepCells
	}
	b.ReportMetric(float64(cells), "cells")
	b.ReportMetric((cputime.Process()-c0)*1e9/float64(b.N), "cpu-ns/op")
}

// BenchmarkNewCalibrator times the one-off prefix-sum build for a CDF.
func BenchmarkNewCalibrator(b *testing.B) {
	c := mustCDF(b, "azure")
	for b.Loop() {
		if _, err := NewCalibrator(c, 0.8, 512); err != nil {
			b.Fatal(err)
		}
	}
}

// TestPCZeroValue: Config.PC is not defaulted (its doc comment): the zero
// value is p_c = 0, no compression, so under the mix model retrofit at
// γ = 1.5 is exactly PR's fleet; DefaultPC (1, the CLI default) compresses.
func TestPCZeroValue(t *testing.T) {
	pl := newPlanner(t, "azure", Config{BShort: 4096, ShortCalibration: ShortCalibMix})
	if pc := pl.Config().PC; pc != 0 {
		t.Fatalf("PC defaulted to %v, want 0 (not defaulted)", pc)
	}
	pr, err := pl.PR()
	if err != nil {
		t.Fatal(err)
	}
	rf, err := pl.Retrofit()
	if err != nil {
		t.Fatal(err)
	}
	if rf.PC != 0 || rf.AlphaPrime != rf.Alpha || rf.TotalGPUs != pr.TotalGPUs || rf.Pools[0].GPUs != pr.Pools[0].GPUs {
		t.Errorf("p_c 0 retrofit: p_c %v, α′ %v vs α %v, %d GPUs vs PR %d", rf.PC, rf.AlphaPrime, rf.Alpha, rf.TotalGPUs, pr.TotalGPUs)
	}
	on, err := newPlanner(t, "azure", Config{BShort: 4096, ShortCalibration: ShortCalibMix, PC: DefaultPC}).Retrofit()
	if err != nil {
		t.Fatal(err)
	}
	if on.PC != 1 || !(on.AlphaPrime > on.Alpha) {
		t.Errorf("DefaultPC retrofit: p_c %v, α′ %v, α %v", on.PC, on.AlphaPrime, on.Alpha)
	}
}
