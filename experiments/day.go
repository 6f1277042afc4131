package experiments

import (
	"fmt"
	"math"
	"slices"

	"github.com/fleetsim/fleetsim/pools/autoscale"
	"github.com/fleetsim/fleetsim/pools/catalog"
	"github.com/fleetsim/fleetsim/pools/fleetopt"
	"github.com/fleetsim/fleetsim/pools/variants"
	"github.com/fleetsim/fleetsim/router"
	"github.com/fleetsim/fleetsim/sim"
	"github.com/fleetsim/fleetsim/sim/export"
	"github.com/fleetsim/fleetsim/workload"
)

// The day of issue 17: the FleetOpt Azure pool-routing fleet (A100 pools at
// 4,096 and 65,536 tokens) through one simulated day of a daily sinusoid,
// mean 500 req/s, peak/trough 3:1, peak at 14:00.
const (
	DayMean     = 500.0
	DayRatio    = 3.0
	DayPeakS    = 14 * 3600.0
	DayS        = 86400.0
	DayRequests = int(DayMean * DayS) // 43.2 M: the full day
	// DayScale is the default share of the day's rate (and so of its
	// requests and fleet) `experiment day` simulates: 0.1 (4.32 M requests
	// per policy); --requests 43200000 runs the full day.
	DayScale = 0.1
	// dayReservedShare is the reserved rate as a share of the on-demand
	// rate (the catalog's $/GPU-hr): an assumed 40% discount for a
	// commitment; the tables state it.
	dayReservedShare = 0.6
	// dayTargetRho is the threshold policy's target utilization: arrivals
	// per instance = 0.7·μ_gpu (the planner's service rate per GPU), below
	// the planner's cap ρ_max = 0.85 to absorb the start-up delay.
	dayTargetRho = 0.7
	// daySeriesS is the time series' interval, s.
	daySeriesS = 300.0
)

// dayRun is one simulated day: its summary and its time series.
type dayRun struct {
	name string
	sum  *sim.Summary
	ts   *daySeries
}

// daySeries keeps the fleet's row of each interval and the pools'
// instance counts.
type daySeries struct {
	t, rate, inst, ttft []float64
}

func (d *daySeries) WriteSeries(rows []sim.SeriesRow) error {
	f := rows[len(rows)-1]
	d.t = append(d.t, f.EndS/3600)
	d.rate = append(d.rate, f.RateRPS)
	d.inst = append(d.inst, float64(f.Starting+f.Serving+f.Draining))
	d.ttft = append(d.ttft, f.TTFTP99S)
	return nil
}

// daySizer sizes the PR fleet with the planner (exact calibration, ρ_max
// 0.85, FleetOpt Table 3's method) at any rate.
type daySizer struct {
	cal   *fleetopt.Calibrator
	gpu   catalog.GPU
	cache map[float64]fleetopt.MethodPlan
}

func (z *daySizer) plan(rate float64) (fleetopt.MethodPlan, error) {
	rate = math.Max(rate, 1e-3)
	if p, ok := z.cache[rate]; ok {
		return p, nil
	}
	pl, err := fleetopt.NewPlanner(z.cal, fleetopt.Config{Rate: rate, BShort: 4096, ShortGPU: z.gpu, LongGPU: z.gpu})
	if err != nil {
		return fleetopt.MethodPlan{}, err
	}
	plan, err := pl.Run([]string{fleetopt.MethodPR})
	if err != nil {
		return fleetopt.MethodPlan{}, err
	}
	z.cache[rate] = plan.Methods[0]
	return plan.Methods[0], nil
}

// Day runs the FleetOpt Azure pool-routing fleet through one simulated day
// (docs/day.md, docs/experiments.md) under static-peak, threshold, wva and
// schedule, then compares an adaptive B_short with static thresholds on
// the same day. Options.Requests sets the share of the day simulated:
// DayScale by default, the full day at DayRequests.
func Day(o Options) ([]Table, error) {
	scale := DayScale
	if o.Requests > 0 {
		scale = float64(o.Requests) / float64(DayRequests)
	}
	mean := DayMean * scale
	prof := fmt.Sprintf("sin:mean=%g,ratio=%g,period=24h,peak=14h", mean, DayRatio)
	rp, err := workload.ParseRateProfile(prof)
	if err != nil {
		return nil, err
	}
	curve := workload.NewCurve(rp, mean)
	requests := int(math.Round(mean * DayS))
	a := (DayRatio - 1) / (DayRatio + 1)
	peak, trough := mean*(1+a), mean*(1-a)

	_, cal, err := newPlanner("azure", fleetopt.Config{Rate: peak, BShort: 4096})
	if err != nil {
		return nil, err
	}
	gpu, err := catalog.LookupGPU("a100")
	if err != nil {
		return nil, err
	}
	z := &daySizer{cal: cal, gpu: gpu, cache: map[float64]fleetopt.MethodPlan{}}
	peakPlan, err := z.plan(peak)
	if err != nil {
		return nil, err
	}
	troughPlan, err := z.plan(trough)
	if err != nil {
		return nil, err
	}
	startPlan, err := z.plan(curve.Rate(0))
	if err != nil {
		return nil, err
	}
	names := []string{"short", "long"}
	base := sim.Defaults()
	base.Seed = o.seed(1)
	base.Timing = catalog.TimingKV
	base.WarmupFraction = 0
	base.OSD.Mode = sim.OSDOff
	base.Workload = workload.Spec{CDF: "azure", Requests: requests, RateProfile: prof}
	onDemand := gpu.CostPerHour
	reserved := dayReservedShare * onDemand
	// fleet returns the pools at counts with their scaling blocks:
	// reserved floor floor[i], bounds [lo[i], up[i]] (0: no bound).
	fleet := func(counts, floor, lo, up []int) []sim.PoolConfig {
		ps := slices.Clone(base.Pools)
		for i := range ps {
			ps[i].Count = max(counts[i], 1)
			r, od, f, l, hi := reserved, onDemand, floor[i], lo[i], up[i]
			ps[i].ScalingBlock = &sim.PoolScaling{MinInstances: &l, MaxInstances: &hi, ReservedInstances: &f, ReservedRate: &r, OnDemandRate: &od}
		}
		return ps
	}
	gpus := func(m fleetopt.MethodPlan) []int { return []int{poolGPUs(m, "short"), poolGPUs(m, "long")} }
	peakN, troughN, startN := gpus(peakPlan), gpus(troughPlan), gpus(startPlan)

	run := func(name string, cfg sim.Config) (dayRun, error) {
		o.say("day: %s (%d requests, mean %.4g req/s)", name, requests, mean)
		if err := cfg.Validate(); err != nil {
			return dayRun{}, fmt.Errorf("day %s: %w", name, err)
		}
		src, err := workload.NewSource(cfg.Workload, cfg.Seed)
		if err != nil {
			return dayRun{}, err
		}
		ts := &daySeries{}
		sum, err := sim.Run(cfg, src, nil, sim.Options{Stop: o.Stop, Series: sim.SeriesOptions{Sink: ts, IntervalS: daySeriesS}})
		if err != nil {
			return dayRun{}, fmt.Errorf("day %s: %w", name, err)
		}
		return dayRun{name, sum, ts}, nil
	}
	withPolicy := func(a *autoscale.Config, pools []sim.PoolConfig) sim.Config {
		c := base
		c.Pools, c.Autoscale = pools, a
		return c
	}
	elastic := fleet(startN, troughN, []int{1, 1}, []int{0, 0})

	// The policies.
	th := &autoscale.Config{Policy: autoscale.PolicyThreshold, Metric: autoscale.MetricRate, Targets: map[string]float64{}}
	for _, p := range peakPlan.Pools {
		th.Targets[p.Name] = dayTargetRho * p.MuGPU
	}
	vcfg, err := dayVariants(base, peakPlan, names)
	if err != nil {
		return nil, err
	}
	wv := &autoscale.Config{Policy: autoscale.PolicyWVA, Variants: "(built in: fleetsim engine fits)", IntervalS: 60}
	lead := sim.DefaultScaling("a100", gpu, 1, catalog.Startup{}).StartupS
	sc := &autoscale.Config{Policy: autoscale.PolicySchedule, Schedules: map[string]autoscale.Schedule{}}
	for i, n := range names {
		s, err := autoscale.PlanSchedule(curve.Rate, 3600, DayS, func(r float64) (int, error) {
			m, err := z.plan(r)
			return gpus(m)[i], err
		})
		if err != nil {
			return nil, err
		}
		sc.Schedules[n] = leadSchedule(s, lead)
	}
	var runs []dayRun
	for _, c := range []struct {
		name string
		cfg  sim.Config
	}{
		{"static-peak", withPolicy(&autoscale.Config{Policy: autoscale.PolicyStatic}, fleet(peakN, peakN, peakN, peakN))},
		{"threshold", withPolicy(th, elastic)},
		{"wva", func() sim.Config { c := withPolicy(wv, elastic); c.Variants = vcfg; return c }()},
		{"schedule", withPolicy(sc, fleet([]int{sc.Schedules["short"].At(0), sc.Schedules["long"].At(0)}, troughN, []int{1, 1}, []int{0, 0}))},
	} {
		r, err := run(c.name, c.cfg)
		if err != nil {
			return nil, err
		}
		runs = append(runs, r)
	}
	t := Table{
		Name: "day",
		Title: fmt.Sprintf("One simulated day, FleetOpt Azure PR fleet (A100, B = 4,096), sin mean %.4g req/s, peak/trough 3:1 (peak 14:00), %d requests",
			mean, requests),
		Source:  "issue 17; fleet: FleetOpt (arXiv 2603.16514) Table 3 PR method, sized by the planner",
		Columns: []string{"policy", "GPU-hours", "cost $", "vs static-peak", "SLO attainment", "worst hour", "worst hour at", "P99 TTFT 60 s windows > SLO", "scale-ups", "scale-downs", "peak instances"},
		Notes: []string{
			fmt.Sprintf("static-peak: the planner's PR fleet at the peak %.4g req/s (%d + %d A100s), all reserved; the others start from the fleet for λ(0) and keep the trough's fleet (%d + %d) reserved; on demand $%.2f, reserved $%.3f per GPU-hour (an assumed 40%% commitment discount).",
				peak, peakN[0], peakN[1], troughN[0], troughN[1], onDemand, reserved),
			fmt.Sprintf("threshold: HPA rule on the arrival rate per instance, targets %.1f and %.2f req/s (0.7·μ_gpu of the planner), tolerance 0.1, down window 300 s, every 15 s.", th.Targets["short"], th.Targets["long"]),
			"wva: the variant optimizer (fleetsim optimize) every 60 s on the last minute's measured rate and mean lengths, scale-down window 300 s; each pool's variant is a fit of fleetsim's own A100 engine at the pool's mean lengths (fleetsim fit --from-sim), targets mean TTFT 250 ms and mean ITL 40 ms (half the P99 SLOs; the WVA's model is of means).",
			fmt.Sprintf("schedule: the planner's fleet for each hour's peak rate (autoscale.PlanSchedule), switched %.0f s (the start-up delay) ahead of the hour: the perfect-forecast bound.", lead),
			"SLO: P99 TTFT 0.5 s and P99 TPOT 80 ms; attainment = completed requests meeting both; worst hour by arrival hour; start-up delay 130.6 s (60 s + 141.2 GB at 2 GB/s).",
		},
	}
	static := runs[0].sum.Scaling
	for _, r := range runs {
		t.Rows = append(t.Rows, dayRow(r, static.GPUHours))
	}
	tables := []Table{t}
	t.Figures = dayFigures(runs, curve, mean, base.SLO.TTFTS)
	tables[0] = t

	// Adaptive B_short against static ones, on the threshold day, with
	// the token-budget router (its threshold on L_in + L_out: with the
	// Azure CDF's exact lengths, the length router's rule at B_short).
	bt := Table{
		Name:    "day",
		Title:   "Adaptive B_short vs static B_short on the same day (threshold autoscaling, token-budget router)",
		Source:  "token-budget pool routing (arXiv 2604.09613) Future Work: error-driven threshold discovery; issue 17",
		Columns: []string{"B_short", "GPU-hours", "cost $", "SLO attainment", "worst hour", "P99 TTFT 60 s windows > SLO", "B_short at the end"},
		Notes:   []string{"adaptive: router.Adaptive between 1,024 and 4,096 tokens, step 192, defaults otherwise (docs/day.md); the pools autoscale under the threshold policy above."},
	}
	for _, b := range []int{2048, 3072, 4096, -1} {
		c := withPolicy(th, elastic)
		c.Router = sim.RouterConfig{Config: router.Config{Kind: router.KindTokenBudget, BShort: 4096, PC: router.DefaultPC}}
		name := fmt.Sprintf("static %d", b)
		if b > 0 {
			c.Router.BShort = b
		} else {
			name = "adaptive [1024, 4096]"
			c.Router.Adaptive = &router.AdaptiveConfig{MinBShort: 1024, MaxBShort: 4096}
		}
		r, err := run("B_short "+name, c)
		if err != nil {
			return nil, err
		}
		s := r.sum.Scaling
		w := s.TTFTWindows
		bt.Rows = append(bt.Rows, []any{name, Num{s.GPUHours, 1}, Num{s.CostUSD, 0}, Num{s.SLOAttainment, 4}, Num{s.WorstHourSLOAttainment, 4},
			fmt.Sprintf("%d of %d", w.Above, w.Windows), finalB(s.BShort, b)})
	}
	return append(tables, bt), nil
}

func finalB(got, static int) any {
	if static > 0 {
		return static
	}
	return got
}

func dayRow(r dayRun, staticGPUh float64) []any {
	s := r.sum.Scaling
	peakInst := 0
	for _, p := range s.Pools {
		peakInst += p.PeakInstances
	}
	w := s.TTFTWindows
	return []any{r.name, Num{s.GPUHours, 1}, Num{s.CostUSD, 0}, Num{100 * (s.GPUHours/staticGPUh - 1), 1},
		Num{s.SLOAttainment, 4}, Num{s.WorstHourSLOAttainment, 4}, fmt.Sprintf("%02.0f:00", s.WorstHourStartS/3600),
		fmt.Sprintf("%d of %d", w.Above, w.Windows), s.ScaleUps, s.ScaleDowns, peakInst}
}

// leadSchedule moves each increase of s earlier by lead seconds (keeping
// the higher count through the lead), so that instances serve at the hour
// they were planned for.
func leadSchedule(s autoscale.Schedule, lead float64) autoscale.Schedule {
	out := autoscale.Schedule{PeriodS: s.PeriodS}
	n := len(s.Times)
	for k := range n {
		prev := s.Counts[(k+n-1)%n]
		if k > 0 && s.Counts[k] > prev && s.Times[k]-lead > s.Times[k-1] {
			out.Times = append(out.Times, s.Times[k]-lead)
			out.Counts = append(out.Counts, s.Counts[k])
		}
		out.Times = append(out.Times, s.Times[k])
		out.Counts = append(out.Counts, s.Counts[k])
	}
	return out
}

// dayVariants builds the wva policy's variants file: per pool, a variant
// fitted to fleetsim's own A100 engine at the pool's max context and at
// the pool's mean prompt and output lengths (the Azure CDF's mean L_total
// within the pool's range, split 0.8/0.2; batches 1 to 64: fleetsim fit
// --from-sim), and a workload named after the pool.
func dayVariants(base sim.Config, plan fleetopt.MethodPlan, names []string) (*variants.Config, error) {
	cdf, err := workload.LoadCDF(base.Workload.CDF)
	if err != nil {
		return nil, err
	}
	vc := &variants.Config{Mode: variants.ModeUnlimited}
	lo := 0
	for i, p := range base.Pools {
		g, err := p.InstanceProfile()
		if err != nil {
			return nil, err
		}
		ecfg, err := g.EngineConfig(p.MaxContext, base.Timing)
		if err != nil {
			return nil, err
		}
		var m, w float64
		for b := range cdf.Buckets() {
			if b.Hi > lo && b.Hi <= p.MaxContext {
				m, w = m+b.P*b.Mean(), w+b.P
			}
		}
		lo = p.MaxContext
		mean := m / max(w, 1e-12)
		in := max(int(workload.DefaultInputFraction*mean), 1)
		out := max(int(mean)-in, 2)
		var bs []int
		for b := 1; b <= min(64, ecfg.MaxSeqs); b *= 2 {
			bs = append(bs, b)
		}
		pts, err := variants.RunSweep(ecfg, variants.SimSweep{Batches: bs, In: in, Out: out})
		if err != nil {
			return nil, err
		}
		prof, _, err := variants.FitSweep(pts, in)
		if err != nil {
			return nil, err
		}
		prof.MaxBatch, prof.AtTokens = ecfg.MaxSeqs, out // the workload's max_batch pins the batch to the slots
		vc.Variants = append(vc.Variants, variants.Variant{Name: names[i] + "-a100", Model: names[i], Accelerator: "A100", UnitCost: g.CostPerHour, Profile: &prof})
		vc.Workloads = append(vc.Workloads, variants.Workload{Name: names[i], Model: names[i], RateRPM: 60 * plan.Pools[i].ArrivalRate,
			InTokens: in, OutTokens: out, SLO: variants.Targets{TTFT: 250, ITL: 40}, MaxBatch: ecfg.MaxSeqs})
	}
	if err := vc.Validate(); err != nil {
		return nil, err
	}
	return vc, nil
}

// dayFigures draws the load with the instances (one chart) and the fleet's
// P99 TTFT against the SLO.
func dayFigures(runs []dayRun, curve *workload.Curve, mean float64, slo float64) []export.Figure {
	// The load is drawn in units that put its peak at the static fleet's
	// size, so that both read on one axis; it comes last, so that each
	// policy has the same colour in both charts.
	a := (DayRatio - 1) / (DayRatio + 1)
	k := float64(runs[0].sum.Scaling.Pools[0].PeakInstances+runs[0].sum.Scaling.Pools[1].PeakInstances) / (mean * (1 + a))
	load := export.FigureSeries{Name: fmt.Sprintf("load λ(t) × %.3g (req/s)", k)}
	for h := 0.0; h <= 24; h += 0.25 {
		load.X, load.Y = append(load.X, h), append(load.Y, k*curve.Rate(h*3600))
	}
	inst := export.Figure{Name: "day-instances", Title: "Load and instances over the day", XLabel: "hour of the day", YLabel: "instances (starting + serving + draining)",
		YFromZero: true, NoPoints: true}
	ttft := export.Figure{Name: "day-ttft", Title: "Fleet P99 TTFT per 5 minutes against the SLO", XLabel: "hour of the day", YLabel: "P99 TTFT, s",
		LogY: true, NoPoints: true, Refs: []export.FigureRef{{Label: fmt.Sprintf("SLO %g s", slo), At: slo}}}
	for _, r := range runs {
		inst.Series = append(inst.Series, export.FigureSeries{Name: r.name, X: r.ts.t, Y: r.ts.inst})
		ttft.Series = append(ttft.Series, export.FigureSeries{Name: r.name, X: r.ts.t, Y: finiteOnly(r.ts.ttft)})
	}
	inst.Series = append(inst.Series, load)
	return []export.Figure{inst, ttft}
}

func finiteOnly(y []float64) []float64 {
	out := slices.Clone(y)
	for i, v := range out {
		if math.IsNaN(v) {
			out[i] = 0 // dropped by the log axis
		}
	}
	return out
}
