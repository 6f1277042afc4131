package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/fleetsim/fleetsim/pools/capacity"
	"github.com/fleetsim/fleetsim/pools/catalog"
	"github.com/fleetsim/fleetsim/pools/fleetopt"
	"github.com/fleetsim/fleetsim/sim/capacitycheck"
	"github.com/fleetsim/fleetsim/sim/export"
	"github.com/fleetsim/fleetsim/workload"
	"github.com/spf13/pflag"
)

func init() {
	register("capacity", "plan reserved capacity units for a trace (slosizer: burst windows, fluid-queue latency), checked by simulation", runCapacity)
}

func capacityUsage(w io.Writer, fs *pflag.FlagSet) {
	fmt.Fprint(w, `Usage: fleetsim capacity (--trace FILE | --workload CDF --rate R) [flags]

Plans reserved capacity (provisioned throughput units, committed GPUs) for
real, bursty traffic (docs/capacity.md; the slosizer formalization).

A provider profile turns each request into work
  B = w_in·(I − C) + w_cache·C + w_out·O + w_think·H   adjusted tokens
(I input tokens with the cached C among them, O output, H thinking tokens);
one unit serves τ adjusted tokens per second.

Throughput plan: the trace is cut into windows [kΔ, (k+1)Δ) (empty ones
count); X_n = (work in window n)/(τΔ) units. G covers the --percentile of
X_n in the worst window, rounded up to the profile's increment (and
minimum), then × (1 + --headroom) and rounded up again; with
--max-overload-prob P it is raised to the smallest G whose worst-window
P(X_n > G) <= P.

Latency plan (--latency-slo): R = L_base + W, W from a single-server FCFS
fluid queue at rate G·τ; L_base is linear in (I, C, O, H), fitted by NNLS
when the trace gives >= 20 observed latencies (generic column latency_s),
else slosizer's defaults. G is the smallest with the --latency-percentile
of R (or W) within the SLO.

--simulate replays the trace on fleets of --gpu instances around the plan
(one instance = μ/τ units, μ its saturated throughput in adjusted tokens/s,
calibrated by simulation) and prints the fluid model's p95/p99 latency
beside the simulated ones.

Profiles: `+strings.Join(capacity.ProfileNames(), ", ")+` or a YAML file.
Bad input exits with status 2.

Flags:
`)
	fmt.Fprint(w, fs.FlagUsagesWrapped(100))
}

// capacityFlags are the command's flags.
type capacityFlags struct {
	fs                        *pflag.FlagSet
	trace, traceFormat        string
	cdf, arrival              string
	rate                      float64
	requests                  int
	seed                      uint64
	profile                   string
	percentiles, windows      string
	headroom                  float64
	overload                  string
	maxUnits                  int
	latencySLO, latencyMetric string
	latencyPct                float64
	simulate                  bool
	gpu, timing, instances    string
	maxCtx                    int
	format, out, plotDir      string
}

func newCapacityFlags() *capacityFlags {
	f := &capacityFlags{fs: pflag.NewFlagSet("capacity", pflag.ContinueOnError)}
	fs := f.fs
	fs.SortFlags = false
	fs.StringVar(&f.trace, "trace", "", "trace `FILE`: Azure LLM trace CSV, Mooncake JSONL, or generic CSV/JSONL (with optional cached_tokens, thinking_tokens, latency_s)")
	fs.StringVar(&f.traceFormat, "trace-format", "", "azure, mooncake or generic (default: by extension, .csv azure, .jsonl mooncake)")
	fs.StringVar(&f.cdf, "workload", "", "instead of a trace: a token-length CDF (azure, lmsys, agent-heavy or a CDF JSON file) with --arrival at --rate")
	fs.StringVar(&f.arrival, "arrival", workload.ArrivalPoisson, "with --workload: poisson or bursty")
	fs.Float64Var(&f.rate, "rate", 0, "requests/s: the --workload arrival rate; with --trace, rescale the trace's times to this mean rate (0 = as recorded)")
	fs.IntVar(&f.requests, "requests", 0, "requests to read or generate (0 = the whole trace; 100,000 for --workload)")
	fs.Uint64Var(&f.seed, "seed", 1, "seed of --workload sampling and of the simulator")
	fs.StringVar(&f.profile, "profile", capacity.DefaultProfile, "capacity profile: a built-in name or a YAML `FILE`")
	fs.StringVar(&f.percentiles, "percentile", "0.99", "percentile(s) of X_n to cover, in (0, 1); a comma list plans each")
	fs.StringVar(&f.windows, "windows", "1,5,30", "window lengths Δ, seconds (1, 500ms, 1m), comma-separated; the worst decides")
	fs.Float64Var(&f.headroom, "headroom", 0, "extra fraction bought on top (0.2 = 20%)")
	fs.StringVar(&f.overload, "max-overload-prob", "", "largest worst-window P(X_n > G) allowed, in [0, 1) (default: no target)")
	fs.IntVar(&f.maxUnits, "max-units", 100_000, "search bound on G, units: a target needing more is infeasible (exit 2)")
	fs.StringVar(&f.latencySLO, "latency-slo", "", "latency target (1s, 500ms, or seconds); empty = no latency plan")
	fs.Float64Var(&f.latencyPct, "latency-percentile", 0.99, "share of requests that must meet --latency-slo, in (0, 1)")
	fs.StringVar(&f.latencyMetric, "latency-metric", capacity.MetricE2E, "e2e (R = L_base + W) or queue (W)")
	fs.BoolVar(&f.simulate, "simulate", false, "check the fluid latency model against the simulator on fleets of --gpu instances")
	fs.StringVar(&f.gpu, "gpu", "a100", "--simulate: GPU profile: "+strings.Join(catalog.AcceptedGPUNames(), ", ")+", or GPU/MODEL/tpN")
	fs.StringVar(&f.timing, "timing", catalog.DefaultTiming, "--simulate: iteration-time preset: kv or paper")
	fs.StringVar(&f.instances, "instances", "", "--simulate: instance counts to simulate, comma-separated (default: around the plan)")
	fs.IntVar(&f.maxCtx, "max-ctx", 0, "--simulate: instance max context, tokens (0 = smallest power of two holding every request)")
	fs.StringVar(&f.format, "format", "table", "output: table or json")
	fs.StringVarP(&f.out, "out", "o", "", "write the output to `FILE` (atomically) instead of stdout")
	fs.StringVar(&f.plotDir, "plot-dir", "", "write PNG plots (X_n over time with G; distribution of X_n per Δ) into `DIR` (created if missing)")
	return f
}

// capacityReport is the command's output (--format json).
type capacityReport struct {
	Input      string                    `json:"input"`
	Requests   int                       `json:"requests"`
	SpanS      float64                   `json:"span_s"`
	TotalWork  float64                   `json:"total_work"` // ΣB, adjusted tokens
	MeanUnits  float64                   `json:"mean_units"` // ΣB/(τ·span)
	Profile    capacity.Profile          `json:"profile"`
	WindowsS   []float64                 `json:"windows_s"`
	Throughput []capacity.ThroughputPlan `json:"throughput"`
	Latency    *latencyReport            `json:"latency,omitempty"`
	Simulation *simulationReport         `json:"simulation,omitempty"`
	Plots      []string                  `json:"plots,omitempty"`
}

type latencyReport struct {
	Baseline capacity.Fit         `json:"baseline"`
	Plan     capacity.LatencyPlan `json:"plan"`
}

type simulationReport struct {
	Calibration capacitycheck.Calibration `json:"calibration"`
	PlanUnits   float64                   `json:"plan_units"` // the plan the instance counts surround
	capacitycheck.Comparison
	// With a latency plan: the smallest simulated fleet reaching the
	// plan's units, and whether its simulated latency meets the target
	// (false: the plan is MISSED in simulation).
	PlanInstances int   `json:"plan_instances,omitempty"`
	PlanMetTarget *bool `json:"plan_met_target,omitempty"`
}

// parseList splits a comma list and parses each item.
func parseList(flag, s string, parse func(string) (float64, error)) ([]float64, error) {
	var out []float64
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		v, err := parse(item)
		if err != nil || math.IsNaN(v) {
			return nil, badInput("--%s %q: item %q is not a number", flag, s, item)
		}
		out = append(out, v)
	}
	return out, nil
}

func parseFloat(s string) (float64, error) { return strconv.ParseFloat(s, 64) }

func runCapacity(args []string, stdout, stderr io.Writer) error {
	f := newCapacityFlags()
	if help, err := parseFlags("capacity", f.fs, args, stdout, capacityUsage, false); help || err != nil {
		return err
	}
	if f.format != "table" && f.format != "json" {
		return badInput("--format %q: allowed: table, json", f.format)
	}
	if err := checkOut(f.out); err != nil {
		return err
	}
	if f.plotDir != "" {
		if err := checkCreatableDir("--plot-dir", f.plotDir, f.plotDir); err != nil {
			return err
		}
		for _, name := range capacityPlotNames {
			p := filepath.Join(f.plotDir, name)
			if fi, err := os.Lstat(p); err == nil && !fi.Mode().IsRegular() {
				return badInput("--plot-dir %q: %s exists and is not a regular file", f.plotDir, name)
			}
		}
	}
	// With --simulate, a stop signal ends the run: one line, exit 1, nothing
	// written (like simulate).
	var intr *interrupter
	if f.simulate {
		intr = catchSignals()
		defer intr.release()
	}
	// Targets first: they are cheap to check.
	pcts, err := parseList("percentile", f.percentiles, parseFloat)
	if err != nil {
		return err
	}
	windows, err := parseList("windows", f.windows, parseSeconds)
	if err != nil {
		return err
	}
	overload := float64(capacity.NoOverloadTarget)
	if f.overload != "" {
		if overload, err = strconv.ParseFloat(f.overload, 64); err != nil || !(overload >= 0 && overload < 1) {
			return badInput("--max-overload-prob %q: want a probability in [0, 1)", f.overload)
		}
	}
	targets := make([]capacity.ThroughputTarget, len(pcts))
	for i, q := range pcts {
		targets[i] = capacity.ThroughputTarget{Percentile: q, Windows: windows, Headroom: f.headroom, MaxOverloadProb: overload, MaxUnits: f.maxUnits}
		if err := targets[i].Validate(); err != nil {
			return badInput("%s", capacityFlagNames(oneLine(err)))
		}
	}
	var lt *capacity.LatencyTarget
	if f.latencySLO != "" {
		slo, err := parseSeconds(f.latencySLO)
		if err != nil {
			return badInput("--latency-slo %q: %v", f.latencySLO, err)
		}
		lt = &capacity.LatencyTarget{ThresholdS: slo, Percentile: f.latencyPct, Metric: f.latencyMetric, Headroom: f.headroom, MaxUnits: f.maxUnits}
		if err := lt.Validate(); err != nil {
			return badInput("%s", capacityFlagNames(oneLine(err)))
		}
	}
	if err := onlyWith(f.fs, f.simulate, "--simulate", "gpu", "timing", "instances", "max-ctx"); err != nil {
		return err
	}
	var instances []int
	if f.instances != "" {
		vals, err := parseList("instances", f.instances, parseFloat)
		if err != nil {
			return err
		}
		for _, v := range vals {
			if v != math.Trunc(v) || v < 1 || v > 1e6 {
				return badInput("--instances %q: %v is not an instance count in [1, 1000000]", f.instances, v)
			}
			if slices.Contains(instances, int(v)) {
				return badInput("--instances %q: %v is given twice; each fleet is simulated once", f.instances, v)
			}
			instances = append(instances, int(v))
		}
	}
	if f.maxCtx < 0 {
		return badInput("--max-ctx %d: want tokens >= 2 (or 0 = automatic)", f.maxCtx)
	}
	// Nothing is written before the report is complete: with --simulate a
	// stop signal ends the command at once, wherever the work is (the
	// planning steps and the fluid model's are not polled).
	var (
		rep *capacityReport
		ws  []capacity.Windowed
	)
	if err := intr.await("nothing written", func() error {
		if testHookPlanning != nil {
			testHookPlanning(intr)
		}
		prof, err := loadCapacityProfile(f.profile)
		if err != nil {
			return err
		}
		reqs, input, err := f.loadRequests()
		if err != nil {
			return err
		}
		s, err := capacity.NewSeries(reqs, prof)
		if err != nil {
			return badInput("%s", oneLine(err))
		}
		rep = &capacityReport{Input: input, Requests: len(reqs), SpanS: s.Span(), TotalWork: s.Total, Profile: prof, WindowsS: windows}
		if s.Span() > 0 {
			rep.MeanUnits = s.Total / (prof.Tau * s.Span())
		}
		ws = make([]capacity.Windowed, len(windows))
		for i, d := range windows {
			if ws[i], err = capacity.Bucket(s, prof.Tau, d); err != nil {
				if nb := s.Span()/d + 1; f.rate > 0 && d >= 1 && nb > capacity.MaxBuckets {
					// A window of a second or more is an ordinary one (the
					// default windows are 1, 5, 30 s): the span is --rate's
					// doing (the requests generated or rescaled at that rate).
					return badInput("--rate %v: %d requests at this rate span %.4g s, %.3g windows of %g s (at most %d); give --rate >= %.3g requests/s, fewer --requests or longer --windows",
						f.rate, len(reqs), s.Span(), nb, d, capacity.MaxBuckets, f.rate*nb/capacity.MaxBuckets)
				}
				return badInput("%s", capacityFlagNames(oneLine(err)))
			}
		}
		for _, t := range targets {
			plan, err := capacity.PlanWindows(ws, prof, t)
			if err != nil {
				return badInput("%s", capacityFlagNames(oneLine(err)))
			}
			rep.Throughput = append(rep.Throughput, plan)
		}
		planUnits := float64(rep.Throughput[len(rep.Throughput)-1].Units)
		if lt != nil {
			fit, err := capacity.FitBaseline(reqs)
			if err != nil {
				return badInput("%s", oneLine(err))
			}
			base := make([]float64, len(reqs))
			for i, r := range reqs {
				base[i] = fit.Baseline.Predict(r)
			}
			lp, err := capacity.PlanLatency(s, base, prof, *lt)
			if err != nil {
				return badInput("%s", capacityFlagNames(oneLine(err)))
			}
			rep.Latency = &latencyReport{Baseline: fit, Plan: lp}
			planUnits = float64(lp.MinUnits)
		}
		if f.simulate {
			var target *capacitycheck.Target
			if lt != nil {
				target = &capacitycheck.Target{ThresholdS: lt.ThresholdS, Percentile: lt.Percentile, Metric: lt.Metric}
				if target.Metric == "" {
					target.Metric = capacity.MetricE2E
				}
			}
			rep.Simulation, err = simulateCapacity(reqs, prof, f, instances, planUnits, target, intr.stopped)
			if ierr := intr.err("nothing written"); ierr != nil {
				return ierr
			}
			if err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		return err
	}
	if f.plotDir != "" {
		if rep.Plots, err = capacityPlots(f.plotDir, ws, rep); err != nil {
			return err
		}
	}
	return writeOut(f.out, stdout, func(w io.Writer) error {
		if f.format == "json" {
			return writeJSON(w, rep)
		}
		return writeCapacityTable(w, rep)
	})
}

// testHookPlanning, when set (tests), is called as capacity starts its
// work (with --simulate: under intr.await).
var testHookPlanning func(*interrupter)

// capacityFlagNames rewrites the planner's field names into flag names.
func capacityFlagNames(msg string) string {
	for field, flag := range map[string]string{
		"percentile": "percentile", "windows": "windows", "window": "windows", "headroom": "headroom",
		"max_overload_prob": "max-overload-prob", "max_units": "max-units", "latency_slo": "latency-slo",
		"latency_percentile": "latency-percentile", "latency_metric": "latency-metric",
	} {
		if strings.HasPrefix(msg, field+" = ") {
			return "--" + flag + strings.TrimPrefix(msg, field)
		}
	}
	return msg
}

// loadCapacityProfile returns a built-in profile or parses a YAML file.
func loadCapacityProfile(name string) (capacity.Profile, error) {
	if p, err := capacity.LookupProfile(name); err == nil {
		return p, nil
	}
	data, err := workload.ReadFileLimit(name, maxCapacityProfileBytes)
	var le *workload.LimitError
	if errors.As(err, &le) {
		return capacity.Profile{}, badInput("--profile: %s", le.Error())
	}
	if err != nil {
		if strings.ContainsAny(name, "/.") {
			return capacity.Profile{}, badInput("--profile %q: %s", name, oneLine(rootCauseOr(err)))
		}
		return capacity.Profile{}, badInput("--profile %q: unknown profile (built-in: %s; or a YAML file)", name, strings.Join(capacity.ProfileNames(), ", "))
	}
	p, err := capacity.ParseProfile(strings.TrimSuffix(filepath.Base(name), filepath.Ext(name)), data)
	if err != nil {
		return capacity.Profile{}, badInput("--profile %q: %s", name, oneLine(err))
	}
	return p, nil
}

// rootCauseOr returns rootCause(err) or err itself.
func rootCauseOr(err error) error {
	if rc := rootCause(err); rc != nil {
		return rc
	}
	return err
}

// minWorkloadRate is the smallest --workload arrival rate, requests/s:
// below it the sampled arrival times overflow.
const minWorkloadRate = 1e-6

// maxCapacityRows bounds the rows read from a trace (all are held in memory).
const maxCapacityRows = 50_000_000

// loadRequests reads the trace or generates requests from the CDF.
func (f *capacityFlags) loadRequests() ([]capacity.Request, string, error) {
	switch {
	case f.trace != "" && f.cdf != "":
		return nil, "", badInput("--trace and --workload: give one of them")
	case f.trace == "" && f.cdf == "":
		return nil, "", badInput("--trace FILE or --workload CDF: an input is needed")
	}
	if f.requests < 0 || f.requests > maxCapacityRows {
		return nil, "", badInput("--requests %d: want 0 (all) to %d", f.requests, maxCapacityRows)
	}
	if !(f.rate >= 0 && f.rate <= fleetopt.MaxRate) {
		return nil, "", badInput("--rate %v: want requests/s in [0, %g]", f.rate, fleetopt.MaxRate)
	}
	if f.trace != "" {
		limit := f.requests
		if limit == 0 {
			limit = maxCapacityRows
		}
		rows, err := workload.ReadTraceRows(f.trace, f.traceFormat, limit)
		if err != nil {
			return nil, "", badInput("%s", oneLine(err))
		}
		scale, t0 := 1.0, rows[0].Time
		if span := rows[len(rows)-1].Time - t0; f.rate > 0 && len(rows) > 1 {
			if !(span > 0) {
				return nil, "", badInput("--rate %v: the trace's rows share one timestamp, so it cannot be rescaled", f.rate)
			}
			scale = float64(len(rows)) / span / f.rate
			if math.IsInf(scale*span, 0) {
				// So small a rate spans more than a float holds (the
				// first arrival would be 0 × Inf = NaN): the same refusal
				// as a span too long for one-second windows.
				return nil, "", badInput("--rate %v: %d requests at this rate span more than %.3g s; give --rate >= %.3g requests/s, fewer --requests or longer --windows",
					f.rate, len(rows), math.MaxFloat64, float64(len(rows))/capacity.MaxBuckets)
			}
		}
		reqs := make([]capacity.Request, len(rows))
		for i, r := range rows {
			reqs[i] = capacity.Request{Arrival: (r.Time - t0) * scale, Input: r.Input, Cached: r.Cached, Output: r.Output, Thinking: r.Thinking, Latency: math.NaN()}
			if r.HasLatency {
				reqs[i].Latency = r.LatencyS
			}
		}
		name := "trace " + f.trace
		if f.rate > 0 {
			name += fmt.Sprintf(" rescaled to %g req/s", f.rate)
		}
		return reqs, name, nil
	}
	n := f.requests
	if n == 0 {
		n = 100_000
	}
	if !(f.rate >= minWorkloadRate) {
		return nil, "", badInput("--rate %v: --workload needs an arrival rate in [%g, %g] requests/s", f.rate, minWorkloadRate, fleetopt.MaxRate)
	}
	spec := workload.Spec{CDF: f.cdf, Rate: f.rate, Requests: n, Arrival: f.arrival}
	if err := spec.Validate(); err != nil {
		return nil, "", badInput("%s", workloadError(err))
	}
	src, err := workload.NewSource(spec, f.seed)
	if err != nil {
		return nil, "", badInput("%s", workloadError(err))
	}
	reqs := make([]capacity.Request, 0, n)
	var r workload.Request
	for src.Next(&r) {
		reqs = append(reqs, capacity.Request{Arrival: r.Arrival, Input: r.InputTokens, Output: r.OutputTokens, Latency: math.NaN()})
	}
	if err := src.Err(); err != nil {
		return nil, "", badInput("%s", workloadError(err))
	}
	return reqs, fmt.Sprintf("workload %s, %s arrivals at %g req/s (seed %d)", f.cdf, f.arrival, f.rate, f.seed), nil
}

// simulateCapacity calibrates the GPU and compares the fluid model with the
// simulator around planUnits.
func simulateCapacity(reqs []capacity.Request, prof capacity.Profile, f *capacityFlags, instances []int, planUnits float64, target *capacitycheck.Target, stop func() bool) (*simulationReport, error) {
	o := capacitycheck.Options{GPU: f.gpu, Timing: f.timing, MaxCtx: f.maxCtx, Seed: f.seed, Stop: stop}
	cal, err := capacitycheck.Calibrate(reqs, prof, o)
	if err != nil {
		var fe *workload.FieldError
		if errors.As(err, &fe) {
			return nil, badInput("--%s", strings.Replace(oneLine(err), "_", "-", 1))
		}
		return nil, err
	}
	if len(instances) == 0 {
		instances = capacitycheck.Around(planUnits, cal)
	}
	cmp, err := capacitycheck.Compare(reqs, prof, cal, instances, planUnits, f.seed, target)
	if err != nil {
		var fe *workload.FieldError
		if errors.As(err, &fe) {
			return nil, badInput("--%s", oneLine(err))
		}
		return nil, err
	}
	rep := &simulationReport{Calibration: cal, PlanUnits: planUnits, Comparison: cmp}
	if pt := cmp.PlanFleet(planUnits); pt != nil && pt.MetTarget != nil {
		rep.PlanInstances, rep.PlanMetTarget = pt.Instances, pt.MetTarget
	}
	return rep, nil
}

// capacityPlotNames are the files --plot-dir receives.
var capacityPlotNames = [2]string{"capacity_timeline.png", "capacity_distribution.png"}

// capacityPlots writes the timeline of the smallest window and the
// distribution of every window at the last throughput plan's G.
func capacityPlots(dir string, ws []capacity.Windowed, rep *capacityReport) ([]string, error) {
	plan := rep.Throughput[len(rep.Throughput)-1]
	g := float64(plan.Units)
	unit := rep.Profile.Unit
	small := 0
	for i := range ws {
		if ws[i].DeltaS < ws[small].DeltaS {
			small = i
		}
	}
	var paths []string
	tl := filepath.Join(dir, capacityPlotNames[0])
	name := rep.Input
	if strings.HasPrefix(name, "trace ") {
		name = "trace " + filepath.Base(strings.TrimPrefix(name, "trace "))
	}
	title := fmt.Sprintf("%s: X_n per %g s window and the p%g plan's G", name, ws[small].DeltaS, 100*plan.Percentile)
	if err := export.WriteCapacityTimeline(tl, &ws[small], g, unit, title); err != nil {
		return nil, fmt.Errorf("--plot-dir: %s", oneLine(err))
	}
	paths = append(paths, tl)
	dist := filepath.Join(dir, capacityPlotNames[1])
	title = fmt.Sprintf("%s: distribution of X_n per window length; G = the p%g plan", name, 100*plan.Percentile)
	if err := export.WriteCapacityDistribution(dist, ws, g, unit, title); err != nil {
		return nil, fmt.Errorf("--plot-dir: %s", oneLine(err))
	}
	return append(paths, dist), nil
}
