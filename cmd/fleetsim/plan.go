package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/fleetsim/fleetsim/pools/catalog"
	"github.com/fleetsim/fleetsim/pools/fleetopt"
	"github.com/fleetsim/fleetsim/pools/occupancy"
	"github.com/fleetsim/fleetsim/pools/queueing"
	"github.com/fleetsim/fleetsim/sim/export"
	"github.com/fleetsim/fleetsim/sim/sweep"
	"github.com/fleetsim/fleetsim/workload"
	"github.com/spf13/pflag"
)

func init() {
	register("plan", "size a fleet analytically (Erlang-C/Kimura, FleetOpt sweep, cost model)", runPlan)
}

func planUsage(w io.Writer, fs *pflag.FlagSet) {
	fmt.Fprint(w, `Usage: fleetsim plan [flags]

Sizes LLM inference fleets analytically (docs/planner.md): each pool is an
M/G/c queue with c = GPUs × slots; its service time S = (ceil(L_in/512) +
L_out)·t_iter is calibrated from the workload CDF slice it serves (exact
moments, or 3,000-sample Monte Carlo: stratified, or i.i.d. as the papers
did); the GPU count is the smallest that
meets the utilization cap and, with --slo-ttft-p99, the Kimura P99 wait
budget of FleetOpt eq. 8.

Methods: homo (one pool at --long-ctx), pr (two pools at --b-short),
retrofit (pr + compress-and-route at --gamma, long pool recalibrated),
fleetopt (FleetOpt Algorithm 1: every CDF breakpoint × γ ∈ {1.0..2.0}),
all. --pareto prints the cost / P99-TTFT frontier of the whole sweep.

C&R pools are calibrated on the traffic they really receive by default
(--short-calibration mix: compressed band requests keep their output and
are served at B tokens; --estimate-noise models the router's estimate near
γB); --short-calibration paper is Algorithm 1 as published (short pool on
(0,B], long pool on (γB,∞)), for reproducing the paper.

--service-model occupancy re-sizes the pools of every method with the
occupancy model (docs/planner.md §10): the iteration time at the batch a GPU
really runs (a fixed point n = λ_gpu·E[k]·t(n)) and a birth–death chain over
the requests in the pool for P(wait), the P99 wait, TTFT and TPOT. Its
counts are near what the simulator needs (the paper model's M/G/c at a full
batch is about twice too large); each pool also shows the paper model's
count. --rho-max then caps the predicted slot utilization, and
--slo-tpot-p99 adds a P99 TPOT target. The default, paper, reproduces the
papers.

--disaggregated sizes each pool of homo and pr as N_p prefill + N_d decode
instances (docs/planner.md §11): each stage an M/G/c with its own service
time at full slots, the prefill stage bound by --slo-ttft-p99, the decode
stage by --rho-max; the colocated count and costs beside ('fleetsim size
--disaggregated' searches N_p and N_d by simulation).

The --format json output can be given to 'fleetsim simulate --plan FILE'.
Bad input exits with status 2.

Flags:
`)
	fmt.Fprint(w, fs.FlagUsagesWrapped(100))
}

// paretoPoint is one (B, γ) cell on the cost / latency plane.
type paretoPoint struct {
	BShort     int     `json:"b_short"`
	Gamma      float64 `json:"gamma"`
	TotalGPUs  int     `json:"total_gpus"`
	AnnualUSD  float64 `json:"annual_cost_usd"`
	Savings    float64 `json:"savings_vs_homogeneous"`
	MaxP99TTFT float64 `json:"max_p99_ttft_s"` // worst pool's predicted P99 TTFT
	Pareto     bool    `json:"pareto"`         // no other cell is both cheaper and faster
	Infeasible string  `json:"infeasible,omitempty"`
}

type paretoReport struct {
	Workload         string        `json:"workload"`
	Rate             float64       `json:"rate"`
	Calibration      string        `json:"calibration"`
	ShortCalibration string        `json:"short_calibration"`
	Points           []paretoPoint `json:"points"`
}

// planMemoryLimit is the soft heap limit of plan and size
// (runtime/debug.SetMemoryLimit) unless GOMEMLIMIT is set. The occupancy
// model's largest chain is 64 MiB (queueing.MaxWindowStates); with the
// limit the chains solved before it are collected before the heap doubles,
// which keeps the peak RSS under 256 MiB at any accepted rate (the default
// GC target, twice the live heap, reached 390 MB).
const planMemoryLimit = 160 << 20

func limitPlanMemory() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(planMemoryLimit)
	}
}

func runPlan(args []string, stdout, stderr io.Writer) error {
	limitPlanMemory()
	fs := pflag.NewFlagSet("plan", pflag.ContinueOnError)
	fs.SortFlags = false
	wl := fs.String("workload", "azure", "token-length CDF: azure, lmsys, agent-heavy or a CDF JSON `FILE`")
	rate := fs.Float64("rate", 1000, fmt.Sprintf("fleet arrival rate λ, requests/s, in [%g, %g]", minRate, maxRate))
	sloS := fs.String("slo-ttft-p99", "0", "P99 TTFT target (500ms, 0.5s, or seconds); 0 = none: size by --rho-max only")
	gpu := fs.String("gpu", "a100", "GPU profile of the short pool (and of all pools unless --gpu-long): a hand-written profile "+strings.Join(catalog.GPUNames(), ", ")+", another catalog GPU (its specification serving "+catalog.DefaultModel+"), or a computed GPU/MODEL/tpN (docs/catalog.md)")
	gpuLong := fs.String("gpu-long", "", "GPU profile of the long and homogeneous pools (default: --gpu)")
	bShort := fs.Int("b-short", 0, "short-pool boundary and max context B_short, tokens, of pr and retrofit (default: the B FleetOpt's sweep picks, noted on stderr)")
	gamma := fs.Float64("gamma", 1.5, fmt.Sprintf("C&R bandwidth γ of retrofit, in [1, %d]; the borderline band is (B, γB]", maxGamma))
	pc := fs.Float64("p-c", fleetopt.DefaultPC, "compressibility p_c: share of borderline requests C&R compresses, in [0, 1]")
	rhoMax := fs.Float64("rho-max", queueing.DefaultRhoMax, "utilization cap ρ_max, in (0, 1)")
	calib := fs.String("calibration", fleetopt.CalibExact, "service-time calibration: exact, montecarlo (3,000 samples stratified in u: near-exact) or montecarlo-iid (3,000 independent samples, as the papers did)")
	shortCal := fs.String("short-calibration", fleetopt.ShortCalibMix, "C&R traffic model of retrofit/fleetopt pools: mix (short pool = plain (0,B] + compressed band with its full output; long pool = (γB,∞) + uncompressed band) or paper (FleetOpt Algorithm 1: short on (0,B], long on (γB,∞); use it to reproduce the paper)")
	noise := fs.Float64("estimate-noise", workload.BytesJitter, "mix: relative s.d. σ of the router's prompt-length estimate; a band request of length L is compressed with probability p_c·Φ((γB−L)/(σ·L_in)) (0.05 = the simulator's byte jitter; 0 = exact estimates)")
	seed := fs.Uint64("seed", fleetopt.DefaultSeed, "Monte Carlo seed (stream 'planner')")
	timing := fs.String("timing", catalog.DefaultTiming, "iteration-time preset: kv (W + H·(L/8192)·slots) or paper (W + H·slots)")
	frac := fs.Float64("input-fraction", workload.DefaultInputFraction, "fixed split: L_in = floor(f·L), in (0, 1)")
	longCtx := fs.Int("long-ctx", fleetopt.DefaultLongCtx, "max context of the long and homogeneous pools, tokens")
	method := fs.String("method", "all", "homo, pr, retrofit, fleetopt, all, or a comma-separated list")
	fixB := fs.Bool("fix-b", false, "fleetopt: keep B at --b-short and sweep γ only (FleetOpt Table 3)")
	pareto := fs.Bool("pareto", false, "sweep every CDF breakpoint × γ and print the cost / P99 TTFT frontier")
	service := fs.String("service-model", fleetopt.ServicePaper, "paper (M/G/c at a full batch, the papers) or occupancy (iteration time at the batch actually held, birth–death queueing; docs/planner.md §10)")
	tpotS := fs.String("slo-tpot-p99", "0", "occupancy model: P99 TPOT target (20ms, 0.02s, or seconds); 0 = none")
	slotRule := fs.String("slot-rule", catalog.SlotRuleScaled, "slots per GPU: scaled (batch limit × 8192/ctx, FleetOpt) or capped (the token-budget paper's N_seq = min(128, KV blocks/⌈ctx/16⌉))")
	compat := fs.String("compat", "", "papers: size as the papers' simulator did (Python random.Random(42) Monte Carlo, its CDF walk, c_slo rule, TTFT = P99 wait + mean prefill; B fixed; docs/planner.md §9)")
	format := fs.String("format", "table", "output: table or json")
	out := fs.StringP("out", "o", "", "write the output to `FILE` (atomically; it may only replace a regular file) instead of stdout; - is stdout")
	memory := fs.Bool("memory", false, "print the KV memory table of --model instead of a plan (token-budget eq. 1–2)")
	modelName := fs.String("model", "qwen3-235b-a22b", "--memory: model ("+strings.Join(catalog.ModelNames(), ", ")+" or one from --models)")
	modelsFile := fs.String("models", "", "--memory: JSON `FILE` of extra models [{name, layers, kv_heads, head_dim, kv_bytes, weight_bytes}]")
	memGB := fs.Float64("mem-gb", 192, "--memory: HBM per GPU, GB (10^9 bytes)")
	memUtil := fs.Float64("mem-util", 0.9, "--memory: usable fraction of HBM, in (0, 1]")
	tp := fs.Int("tp", 8, "--memory: tensor-parallel GPUs per instance")
	actGB := fs.Float64("act-gb", 10, "--memory: activation reserve per GPU, GB")
	dg := addDisaggFlags(fs, "plan")
	if help, err := parseFlags("plan", fs, args, stdout, planUsage, false); help || err != nil {
		return err
	}
	if *format != "table" && *format != "json" {
		return badInput("--format %q: allowed: table, json", *format)
	}
	if err := checkOut(*out); err != nil {
		return err
	}
	if *memory {
		if err := checkRanges(
			rangeCheck{flag: "mem-gb", v: *memGB, lo: 0, hi: maxMemGB, openLo: true, explain: "GB of HBM per GPU"},
			rangeCheck{flag: "mem-util", v: *memUtil, lo: 0, hi: 1, openLo: true},
			rangeCheck{flag: "tp", v: float64(*tp), lo: 1, hi: maxTP, explain: "GPUs per instance"},
			rangeCheck{flag: "act-gb", v: *actGB, lo: 0, hi: maxMemGB, explain: "GB per GPU"},
		); err != nil {
			return err
		}
		return runMemory(memoryArgs{*modelName, *modelsFile, *memGB, *memUtil, *tp, *actGB, *bShort, *longCtx, *format, *out}, stdout)
	}
	slo, err := parseSeconds(*sloS)
	if err != nil {
		return badInput("--slo-ttft-p99 %q: %v", *sloS, err)
	}
	tpot, err := parseSeconds(*tpotS)
	if err != nil {
		return badInput("--slo-tpot-p99 %q: %v", *tpotS, err)
	}
	switch {
	case *service != fleetopt.ServicePaper && *service != fleetopt.ServiceOccupancy:
		return badInput("--service-model %q: allowed: paper, occupancy", *service)
	case tpot > 0 && *service != fleetopt.ServiceOccupancy:
		return badInput("--slo-tpot-p99 %v s: needs --service-model occupancy (the paper model predicts no TPOT)", tpot)
	case *pareto && *service != fleetopt.ServicePaper:
		return badInput("--pareto: only with --service-model paper")
	case *compat != "" && *service != fleetopt.ServicePaper:
		return badInput("--compat %s: only with --service-model paper", *compat)
	}
	if err := checkRanges(
		rangeCheck{flag: "rate", v: *rate, lo: minRate, hi: maxRate, explain: "requests/s"},
		rangeCheck{flag: "slo-ttft-p99", v: slo, lo: 0, hi: maxSLOS, explain: "seconds; 0 = none"},
		rangeCheck{flag: "gamma", v: *gamma, lo: 1, hi: maxGamma, explain: "the C&R band is (B, γB]"},
		rangeCheck{flag: "estimate-noise", v: *noise, lo: 0, hi: maxNoise, explain: "relative s.d. of the router's estimate"},
	); err != nil {
		return err
	}
	if !(*frac > 0 && *frac < 1) {
		return badInput("--input-fraction %v: must be in (0, 1)", *frac)
	}
	short, err := catalog.LookupGPU(*gpu)
	if err != nil {
		return badInput("--gpu: %v", err)
	}
	long := short
	if *gpuLong != "" {
		if long, err = catalog.LookupGPU(*gpuLong); err != nil {
			return badInput("--gpu-long: %v", err)
		}
	}
	if short, err = short.WithSlotRule(*slotRule); err != nil {
		return badInput("--slot-rule: %v", err)
	}
	long, _ = long.WithSlotRule(*slotRule)
	var methods []string
	for _, m := range strings.Split(*method, ",") {
		m = strings.TrimSpace(strings.ToLower(m))
		switch m {
		case "all":
			methods = append(methods, fleetopt.Methods()...)
		case fleetopt.MethodHomo, fleetopt.MethodPR, fleetopt.MethodRetrofit, fleetopt.MethodFleetOpt:
			methods = append(methods, m)
		default:
			return badInput("--method %q: allowed: homo, pr, retrofit, fleetopt, all (comma-separated)", m)
		}
	}
	disaggOn, link, err := dg.config()
	if err != nil {
		return err
	}
	if disaggOn {
		if *pareto || *compat != "" || *service != fleetopt.ServicePaper {
			return badInput("--disaggregated: not with --pareto, --compat or --service-model occupancy (the stages are sized with the paper model)")
		}
		if methods, err = disaggMethods(methods, fs.Changed("method")); err != nil {
			return err
		}
	}
	needB := false // pr or retrofit without --b-short: FleetOpt's B is used
	if *bShort == 0 && !*pareto {
		if *fixB {
			return badInput("--fix-b: needs --b-short (the boundary to keep; without --fix-b FleetOpt sweeps B)")
		}
		needB = slices.Contains(methods, fleetopt.MethodPR) || slices.Contains(methods, fleetopt.MethodRetrofit)
	}
	cdf, err := workload.LoadCDF(*wl)
	if err != nil {
		return badInput("--workload %q: %s", *wl, oneLine(err))
	}
	if *compat != "" {
		return runPlanCompat(fs, *compat, compatArgs{cdf, *rate, slo, *rhoMax, short, long, *longCtx, *bShort, *gamma, *pc, methods, *pareto}, func(doc any, table func(io.Writer) error) error {
			return writeOut(*out, stdout, func(w io.Writer) error { return writeDoc(w, *format, doc, table) })
		})
	}
	cal, err := fleetopt.NewCalibrator(cdf, *frac, short.ChunkTokens)
	if err != nil {
		return badInput("--workload %q: %s", *wl, oneLine(err))
	}
	cfg := fleetopt.Config{
		Rate: *rate, SLO: slo, RhoMax: *rhoMax, ShortGPU: short, LongGPU: long, LongCtx: *longCtx,
		BShort: *bShort, Gamma: *gamma, PC: *pc, Calibration: *calib, Seed: *seed, Timing: sweep.PlannerTiming(*timing, disaggOn), FixB: *fixB,
		ShortCalibration: *shortCal, EstimateNoise: *noise,
	}
	if *rhoMax == 0 {
		return badInput("--rho-max 0: must be in (0, 1)")
	}
	if *seed == 0 {
		return badInput("--seed 0: must be >= 1")
	}
	if *shortCal != fleetopt.ShortCalibPaper && *shortCal != fleetopt.ShortCalibMix {
		return badInput("--short-calibration %q: allowed: mix, paper", *shortCal)
	}
	if *service == fleetopt.ServiceOccupancy {
		// The TTFT target binds the occupancy model only: the paper model's
		// counts (GPUs paper) are its utilization-cap sizes.
		cfg.SLO = 0
	}
	pl, err := fleetopt.NewPlanner(cal, cfg)
	if err != nil {
		return badInput("%s", flagNames(oneLine(err)))
	}
	if needB {
		if pl, err = withFleetOptB(pl, cal, cfg, stderr); err != nil {
			return badInput("%s", flagNames(oneLine(err)))
		}
	}
	var doc any
	var table func(io.Writer) error
	if *pareto {
		rep, err := runPareto(pl, cdf.Name)
		if err != nil {
			return badInput("%s", flagNames(oneLine(err)))
		}
		doc, table = rep, func(w io.Writer) error { return writeParetoTable(w, rep) }
	} else {
		plan, err := pl.Run(methods)
		colocNote := ""
		if err != nil && disaggOn { // disagg.go: the colocated counts at ρ_max only
			plan, colocNote, err = capOnlyPlan(cal, cfg, methods, err)
		}
		if err != nil {
			return badInput("%s", flagNames(oneLine(err)))
		}
		if *service == fleetopt.ServiceOccupancy {
			if err := pl.ApplyOccupancy(&plan, occupancy.Targets{P99TTFTS: slo, P99TPOTS: tpot}); err != nil {
				return badInput("%s", flagNames(oneLine(err)))
			}
		}
		doc, table = plan, func(w io.Writer) error { return writePlanTable(w, plan) }
		if disaggOn {
			dp, err := planDisagg(plan, cdf, *timing, *slotRule, link, colocNote)
			if err != nil {
				return err
			}
			doc, table = dp, func(w io.Writer) error { return writeDisaggPlan(w, dp) }
		}
	}
	return writeOut(*out, stdout, func(w io.Writer) error { return writeDoc(w, *format, doc, table) })
}

// flagNames rewrites the planner's field names into the CLI's flag names.
func flagNames(msg string) string {
	for _, f := range []string{"rate", "slo-ttft-p99", "rho-max", "b-short", "gamma", "p-c", "calibration", "short-calibration", "estimate-noise", "timing"} {
		if strings.HasPrefix(msg, f+" ") {
			return "--" + msg
		}
	}
	return msg
}

// checkOut validates --out before any work is done: the path must not be a
// directory, may only name a regular file if it exists, and its parent must
// be a directory or creatable (it is created when the file is written; ""
// and "-" = stdout).
func checkOut(path string) error {
	if path == "" || path == "-" {
		return nil
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return badInput("--out %q: is a directory; want a file path such as %s", path, filepath.Join(path, "plan.json"))
	}

	if err := checkCreatableDir("--out", path, filepath.Dir(path)); err != nil {
		return err
	}
	if err := export.CheckReplaceable(path); err != nil {
		return badInput("--out: %s", oneLine(err))
	}
	return nil
}

// writeOut renders the output and writes it to stdout, or when path is set
// to that file through export.WriteFileAtomic (a temporary file in the same
// directory, renamed into place), so a failed run never leaves a
// half-written file. Errors name the user's path, not the temporary file.
func writeOut(path string, stdout io.Writer, write func(io.Writer) error) error {
	if path == "" || path == "-" {
		return write(stdout)
	}
	var b bytes.Buffer
	if err := write(&b); err != nil {
		return err
	}
	if err := export.WriteFileAtomic(path, b.Bytes()); err != nil {
		var nr *export.NotRegularError
		if errors.As(err, &nr) {
			return badInput("--out: %s", oneLine(err))
		}
		return fmt.Errorf("--out %q: %s", path, oneLine(rootCause(err)))
	}
	return nil
}

// rootCause strips the path from a file-system error (its path may be the
// writer's temporary file) and returns the system's reason alone.
func rootCause(err error) error {
	var pe *os.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		return pe.Err
	case errors.As(err, &le):
		return le.Err
	}
	return err
}

func runPareto(pl *fleetopt.Planner, name string) (paretoReport, error) {
	cfg := pl.Config()
	rep := paretoReport{Workload: name, Rate: cfg.Rate, Calibration: cfg.Calibration, ShortCalibration: cfg.ShortCalibration}
	feasible := 0
	var firstErr error
	for _, c := range pl.Sweep(pl.Candidates(), cfg.Gammas) {
		p := paretoPoint{BShort: c.BShort, Gamma: c.Gamma}
		if c.Err != nil {
			p.Infeasible = oneLine(c.Err)
			if firstErr == nil {
				firstErr = c.Err
			}
		} else {
			feasible++
			p.TotalGPUs, p.AnnualUSD, p.Savings = c.Plan.TotalGPUs, c.Plan.AnnualUSD, c.Plan.Savings
			for _, pp := range c.Plan.Pools {
				p.MaxP99TTFT = math.Max(p.MaxP99TTFT, pp.P99TTFTS)
			}
		}
		rep.Points = append(rep.Points, p)
	}
	if feasible == 0 {
		if firstErr == nil {
			return rep, fmt.Errorf("pareto: no candidate boundary")
		}
		return rep, fmt.Errorf("pareto: no feasible (B, γ): %w", firstErr)
	}
	for i := range rep.Points {
		a := &rep.Points[i]
		if a.Infeasible != "" {
			continue
		}
		a.Pareto = true
		for j, b := range rep.Points {
			if b.Infeasible != "" {
				continue
			}
			// b dominates a, or is the same point seen earlier (keep one).
			same := b.AnnualUSD == a.AnnualUSD && b.MaxP99TTFT == a.MaxP99TTFT
			if (same && j < i) || (!same && b.AnnualUSD <= a.AnnualUSD && b.MaxP99TTFT <= a.MaxP99TTFT) {
				a.Pareto = false
				break
			}
		}
	}
	return rep, nil
}

func writeParetoTable(w io.Writer, rep paretoReport) error {
	fmt.Fprintf(w, "workload %s, λ = %g req/s, calibration %s, short-calibration %s: cost / P99 TTFT frontier over %d (B, γ) cells\n\n",
		rep.Workload, rep.Rate, rep.Calibration, rep.ShortCalibration, len(rep.Points))
	front := make([]paretoPoint, 0)
	for _, p := range rep.Points {
		if p.Pareto {
			front = append(front, p)
		}
	}
	sort.Slice(front, func(i, j int) bool { return front[i].AnnualUSD < front[j].AnnualUSD })
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "B_short\tγ\tGPUs\tcost $K/yr\tsavings\tmax P99 TTFT s\t")
	for _, p := range front {
		fmt.Fprintf(tw, "%d\t%.1f\t%d\t%.0f\t%.1f%%\t%.3f\t\n", p.BShort, p.Gamma, p.TotalGPUs, p.AnnualUSD/1000, 100*p.Savings, p.MaxP99TTFT)
	}
	return tw.Flush()
}

func writePlanTable(w io.Writer, p fleetopt.Plan) error {
	slo := "none (utilization cap only)"
	if p.SLOTTFTP99S > 0 {
		slo = fmt.Sprintf("%g s", p.SLOTTFTP99S)
	}
	if p.SLOTPOTP99S > 0 {
		slo += fmt.Sprintf(", P99 TPOT SLO %g s", p.SLOTPOTP99S)
	}
	cal := p.Calibration
	if p.Samples > 0 {
		cal = fmt.Sprintf("%s (%d samples, seed %d)", cal, p.Samples, p.Seed)
	}
	sc := p.ShortCalibration
	switch sc {
	case fleetopt.ShortCalibMix:
		sc += fmt.Sprintf(" (C&R pools calibrated on their post-compression traffic; router estimate noise σ = %g)", p.EstimateNoise)
	case fleetopt.ShortCalibPaper:
		sc += " (FleetOpt Algorithm 1: short (0,B], long (γB,∞))"
	}
	fmt.Fprintf(w, "workload %s, λ = %g req/s, P99 TTFT SLO %s, ρ_max %g\ncalibration %s, timing %s, L_in = floor(%g·L), chunk %d tokens\nshort-calibration %s\n\n",
		p.Workload, p.Rate, slo, p.RhoMax, cal, p.Timing, p.InputFraction, p.ChunkTokens, sc)
	occ := p.ServiceModel == fleetopt.ServiceOccupancy
	if occ {
		fmt.Fprintln(w, "service model: occupancy (docs/planner.md §10); GPUs paper = the paper model's count, util = predicted slot utilization")
		fmt.Fprintln(w)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	// Computed TP instances: GPUs counts GPUs (instances × tp), beside an
	// instances column.
	tp := slices.ContainsFunc(p.Methods, func(m fleetopt.MethodPlan) bool { return m.TotalPhysicalGPUs() != m.TotalGPUs })
	inst := func(n int) string {
		if tp {
			return strconv.Itoa(n) + "\t"
		}
		return ""
	}
	head := "method\tB_short\tγ\tpool\tgpu\tmax_ctx\tslots\tλ req/s\tμ_gpu req/s\tCs²\t" + map[bool]string{true: "instances\t"}[tp] + "GPUs\tutil\tP99 wait s\tP99 TTFT s\t"
	if occ {
		head += "GPUs paper\tP(wait)\tP99 TPOT s\t"
	}
	fmt.Fprintln(tw, head)
	for _, m := range p.Methods {
		b, g := "-", "-"
		if m.BShort > 0 {
			b, g = strconv.Itoa(m.BShort), fmt.Sprintf("%.1f", m.Gamma)
		}
		for _, pp := range m.Pools {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%d\t%.2f\t%.4g\t%.3f\t%s%d\t%.3f\t%.3f\t%.3f\t",
				m.Method, b, g, pp.Name, pp.GPU, pp.MaxCtx, pp.Slots, pp.ArrivalRate, pp.MuGPU, pp.Cs2, inst(pp.GPUs), pp.PhysicalGPUs(), pp.Utilization, pp.P99WaitS, pp.P99TTFTS)
			if occ && pp.Occupancy != nil {
				fmt.Fprintf(tw, "%d\t%.4f\t%.4f\t", pp.GPUsPaper, pp.Occupancy.PWait, pp.Occupancy.P99TPOTS)
			}
			fmt.Fprintln(tw)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "method\t"+map[bool]string{true: "instances\t"}[tp]+"GPUs\tcost $K/yr\tsavings\tα′\tclosed form α′(1−1/ρ)\teq. 8 GPUs\teq. 8 savings\tprofiler GPUs\tarchetype\t")
	for _, m := range p.Methods {
		arch := m.Archetype
		if arch == "" {
			arch = "-"
		}
		fmt.Fprintf(tw, "%s\t%s%d\t%.0f\t%.1f%%\t%.4f\t%.1f%%\t%.1f\t%.1f%%\t%d\t%s\t\n",
			m.Method, inst(m.TotalGPUs), m.TotalPhysicalGPUs(), m.AnnualUSD/1000, 100*m.Savings, m.AlphaPrime, 100*m.ClosedForm, m.Corrected, 100*m.CorrectedSav, m.ProfilerGPUs, arch)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	writeInstanceNote(w, p.Methods) // computed TP instances (catalog.go)
	return nil
}

type memoryArgs struct {
	model, modelsFile string
	memGB, util       float64
	tp                int
	actGB             float64
	bShort, longCtx   int
	format, out       string
}

// memoryRow is one context length of the --memory table.
type memoryRow struct {
	MaxCtx   int     `json:"max_ctx"`
	SeqBytes float64 `json:"seq_bytes"` // M_seq for the whole model (all TP shards)
	NSeq     int     `json:"n_seq"`     // sequences per instance (token-budget eq. 2 with TP)
}

type memoryReport struct {
	Model           catalog.Model `json:"model"`
	KVBytesPerToken float64       `json:"kv_bytes_per_token"`
	GPUMemBytes     float64       `json:"gpu_mem_bytes"`
	Util            float64       `json:"mem_util"`
	TP              int           `json:"tp"`
	ActivationBytes float64       `json:"activation_bytes_per_gpu"`
	KVBytesPerGPU   float64       `json:"kv_bytes_per_gpu"`
	KVBlocks        int           `json:"kv_blocks"` // 16-token blocks per instance
	Rows            []memoryRow   `json:"rows"`
}

func runMemory(a memoryArgs, stdout io.Writer) error {
	if a.format != "table" && a.format != "json" {
		return badInput("--format %q: allowed: table, json", a.format)
	}
	m, err := catalog.LookupModel(a.model)
	if a.modelsFile != "" {
		data, ferr := readInput("--models", a.modelsFile, maxModelsBytes)
		if ferr != nil {
			return badInput("%s", ferr)
		}
		ms, perr := catalog.ParseModels(bytes.NewReader(data))
		if perr != nil {
			return badInput("--models %q: %s", a.modelsFile, oneLine(perr))
		}
		for _, x := range ms {
			if x.Name == strings.ToLower(a.model) {
				m, err = x, nil
			}
		}
	}
	if err != nil {
		return badInput("--model: %v", err)
	}
	d := catalog.Deployment{GPUMemBytes: a.memGB * 1e9, Util: a.util, TP: a.tp, ActivationBytes: a.actGB * 1e9, BlockTokens: 16}
	if err := d.Validate(); err != nil {
		return badInput("%s", strings.TrimPrefix(err.Error(), "deployment: "))
	}
	rep := memoryReport{Model: m, KVBytesPerToken: m.KVBytesPerToken(), GPUMemBytes: d.GPUMemBytes, Util: d.Util,
		TP: d.TP, ActivationBytes: d.ActivationBytes, KVBytesPerGPU: d.KVBytesPerGPU(m), KVBlocks: d.KVBlocks(m)}
	ctxs := []int{1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072}
	if a.bShort > 0 {
		ctxs = append(ctxs, a.bShort)
	}
	ctxs = append(ctxs, a.longCtx)
	sort.Ints(ctxs)
	for i, c := range ctxs {
		if c < 1 || (i > 0 && c == ctxs[i-1]) {
			continue
		}
		rep.Rows = append(rep.Rows, memoryRow{MaxCtx: c, SeqBytes: m.SeqBytes(c), NSeq: d.SeqsPerInstance(m, c)})
	}
	write := func(w io.Writer) error {
		if a.format == "json" {
			return writeJSON(w, rep)
		}
		fmt.Fprintf(w, "model %s: %d layers, %d KV heads, d_head %d, %g-byte KV: %.0f bytes/token (%.0f per GPU at TP %d)\n",
			m.Name, m.Layers, m.KVHeads, m.HeadDim, m.KVBytes, rep.KVBytesPerToken, rep.KVBytesPerToken/float64(d.TP), d.TP)
		fmt.Fprintf(w, "GPU %.0f GB × %.2f − weights %.1f GB − activations %.1f GB = %.1f GB of KV per GPU (%d blocks of 16 tokens)\n\n",
			a.memGB, d.Util, m.WeightBytes/float64(d.TP)/1e9, a.actGB, rep.KVBytesPerGPU/1e9, rep.KVBlocks)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "max_ctx\tM_seq GB\tN_seq\t")
		for _, r := range rep.Rows {
			fmt.Fprintf(tw, "%d\t%.2f\t%d\t\n", r.MaxCtx, r.SeqBytes/1e9, r.NSeq)
		}
		return tw.Flush()
	}
	return writeOut(a.out, stdout, write)
}
