package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/fleetsim/fleetsim/experiments"
	"github.com/fleetsim/fleetsim/pools/catalog"
	"github.com/fleetsim/fleetsim/pools/fleetopt"
	"github.com/fleetsim/fleetsim/pools/queueing"
	"github.com/fleetsim/fleetsim/sim"
	"github.com/fleetsim/fleetsim/workload"
	"github.com/spf13/pflag"
)

func init() {
	register("validate", "plan a fleet analytically, simulate it and compare prediction with measurement", runValidate)
}

func validateUsage(w io.Writer, fs *pflag.FlagSet) {
	fmt.Fprint(w, `Usage: fleetsim validate [flags]

Checks an analytic fleet size with the simulator: the planner (as in
'fleetsim plan') sizes the fleet of --method, the simulator runs exactly that
fleet (Poisson arrivals from the workload CDF, the same timing preset), and
each pool's planned GPUs, analytic vs simulated slot utilization, P99 TTFT
and P99 queue wait are printed with their differences.

By default the run is long enough for 30,000 measured requests in the
smallest pool, after a warm-up of five mean service times of the slowest pool
(the pools start empty). pr uses the length router; retrofit and fleetopt use
compress-and-route at the planned γ and p_c, planned with the C&R traffic
model of --short-calibration (default mix, as 'fleetsim plan'; paper
reproduces FleetOpt Algorithm 1, whose short pools saturate).

Three utilizations are printed per pool: util ana (the planner's ϱ),
util sim (measured busy slots / slots) and util self (a self-consistent
estimate with the iteration time at the batch actually held; it predicts
util sim). GPUs self is the GPU count at which util self would reach
--rho-max: an estimate close to the saturation knee, not a plan. Bad
input exits with status 2.

Flags:
`)
	fmt.Fprint(w, fs.FlagUsagesWrapped(100))
}

func runValidate(args []string, stdout, stderr io.Writer) error {
	fs := pflag.NewFlagSet("validate", pflag.ContinueOnError)
	fs.SortFlags = false
	wl := fs.String("workload", "azure", "token-length CDF: azure, lmsys, agent-heavy or a CDF JSON `FILE`")
	rate := fs.Float64("rate", 1000, "fleet arrival rate λ, requests/s")
	bShort := fs.Int("b-short", 4096, "short-pool boundary and max context B_short, tokens (pr, retrofit; fleetopt: 0 = sweep B)")
	gpu := fs.String("gpu", "a100", "GPU profile of the short pool (and of all pools unless --gpu-long): a hand-written profile "+strings.Join(catalog.GPUNames(), ", ")+", another catalog GPU (its specification serving "+catalog.DefaultModel+"), or a computed GPU/MODEL/tpN (docs/catalog.md)")
	gpuLong := fs.String("gpu-long", "", "GPU profile of the long and homogeneous pools (default: --gpu)")
	method := fs.String("method", "pr", "homo, pr, retrofit or fleetopt")
	gamma := fs.Float64("gamma", 1.5, "C&R bandwidth γ of retrofit (>= 1)")
	pc := fs.Float64("p-c", 1.0, "compressibility p_c in (0, 1] (retrofit, fleetopt)")
	rhoMax := fs.Float64("rho-max", queueing.DefaultRhoMax, "utilization cap ρ_max, in (0, 1)")
	calib := fs.String("calibration", fleetopt.CalibExact, "service-time calibration: exact, montecarlo (stratified), montecarlo-iid, or papers (the papers' own sizing, docs/planner.md §9; kv timing)")
	timing := fs.String("timing", catalog.DefaultTiming, "iteration-time preset of planner and simulator: kv or paper")
	shortCal := fs.String("short-calibration", fleetopt.ShortCalibMix, "C&R traffic model of retrofit/fleetopt pools, as in 'fleetsim plan': mix (each pool sized for the traffic it receives after compression) or paper (FleetOpt Algorithm 1: short on (0,B], long on (γB,∞); its short pools saturate in simulation)")
	noise := fs.Float64("estimate-noise", workload.BytesJitter, "mix: relative s.d. σ of the router's prompt-length estimate assumed by the planner (0.05 = the simulator's byte jitter; 0 = exact estimates)")
	requests := fs.Int("requests", 0, "requests to simulate (0 = automatic: 30,000 measured in the smallest pool after the warm-up)")
	warmup := fs.Float64("warmup", 0, "warm-up fraction discarded from the metrics, in [0, 1) (0 = automatic)")
	seed := fs.Uint64("seed", 1, "simulation seed (>= 1)")
	fidelity := fs.String("fidelity", "engine", "comma-separated: slot (M/G/c at the planner's service time; homo/pr only), engine (the iteration engine), kv (engine with --kv-max-seqs a cap and the GPU's KV blocks the budget: preempts)")
	kvMaxSeqs := fs.Int("kv-max-seqs", experiments.DefaultKVMaxSeqs, "kv fidelity: max_seqs per instance (vLLM's max_num_seqs)")
	format := fs.String("format", "table", "output: table or json")
	if help, err := parseFlags("validate", fs, args, stdout, validateUsage, false); help || err != nil {
		return err
	}
	switch {
	case *format != "table" && *format != "json":
		return badInput("--format %q: allowed: table, json", *format)
	case !(*rate >= minRate && *rate <= maxRate):
		return badInput("--rate %v: must be in [%g, %g] requests/s", *rate, minRate, maxRate)
	case !(*gamma >= 1 && *gamma <= maxGamma):
		return badInput("--gamma %v: must be in [1, %d] (the C&R band is (B, γB])", *gamma, maxGamma)
	case !(*noise >= 0 && *noise <= maxNoise):
		return badInput("--estimate-noise %v: must be in [0, %g]", *noise, maxNoise)
	case *requests < 0:
		return badInput("--requests %d: must be >= 1 (0 = automatic)", *requests)
	case !(*warmup >= 0 && *warmup < 1):
		return badInput("--warmup %v: must be in [0, 1) (0 = automatic)", *warmup)
	case *seed == 0:
		return badInput("--seed 0: must be >= 1")
	case *rhoMax == 0:
		return badInput("--rho-max 0: must be in (0, 1)")
	case *pc == 0:
		return badInput("--p-c 0: no request would be compressed; use --method pr")
	case *bShort < 0:
		return badInput("--b-short %d: must be a positive number of tokens", *bShort)
	}
	fids, err := experiments.ParseFidelities(*fidelity)
	if err != nil {
		return badInput("--%s", err.Error())
	}
	if *kvMaxSeqs < 1 {
		return badInput("--kv-max-seqs %d: must be >= 1", *kvMaxSeqs)
	}
	if *shortCal != fleetopt.ShortCalibPaper && *shortCal != fleetopt.ShortCalibMix {
		return badInput("--short-calibration %q: allowed: mix, paper", *shortCal)
	}
	m := strings.ToLower(*method)
	switch m {
	case fleetopt.MethodHomo, fleetopt.MethodPR, fleetopt.MethodRetrofit, fleetopt.MethodFleetOpt:
	default:
		return badInput("--method %q: allowed: homo, pr, retrofit, fleetopt", *method)
	}
	if _, err := catalog.LookupGPU(*gpu); err != nil {
		return badInput("--gpu %q: %s", *gpu, oneLine(err))
	}
	if *gpuLong != "" {
		if _, err := catalog.LookupGPU(*gpuLong); err != nil {
			return badInput("--gpu-long %q: %s", *gpuLong, oneLine(err))
		}
	}
	cfg := experiments.ValidateConfig{Workload: *wl, Rate: *rate, BShort: *bShort, GPU: *gpu, GPULong: *gpuLong,
		Method: m, Gamma: *gamma, PC: *pc, RhoMax: *rhoMax, Calibration: *calib, Timing: *timing,
		ShortCalibration: *shortCal, EstimateNoise: *noise,
		Requests: *requests, WarmupFraction: *warmup, Seed: *seed, Fidelities: fids, KVMaxSeqs: *kvMaxSeqs}
	if m == fleetopt.MethodHomo {
		cfg.BShort = 0
	}
	intr := catchSignals()
	defer intr.release()
	cfg.Stop = intr.stopped
	var bar *progressBar
	clearBar := func() {
		if bar != nil {
			bar.done()
		}
	}
	if isTerminal(stderr) {
		cfg.Start = func(n int) {
			clearBar() // the previous run's bar
			bar = newProgressBar(stderr, int64(n))
		}
		cfg.Progress = func(n int64) {
			if bar != nil {
				bar.update(n)
			}
		}
		defer clearBar()
	}
	v, err := experiments.Validate(cfg)
	clearBar() // before anything is printed
	if errors.Is(err, sim.ErrStopped) {
		return intr.err("validation stopped, nothing printed")
	}
	if err != nil {
		msg := oneLine(err)
		if rest, ok := strings.CutPrefix(msg, "workload: cdf "); ok {
			msg = "--workload " + rest
		}
		return badInput("%s", flagNames(msg))
	}
	if *format == "json" {
		return writeJSON(stdout, v)
	}
	return writeValidation(stdout, v)
}

// pctDiff returns 100·(sim − ana)/ana, or "—" when ana is 0.
// fmtNum formats x, or "-" when it is NaN or infinite (a measurement
// without data: a pool nothing completed in).
func fmtNum(format string, x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "-"
	}
	return fmt.Sprintf(format, x)
}

func pctDiff(sim, ana float64) string {
	if ana == 0 || math.IsNaN(ana) || math.IsInf(ana, 0) || math.IsNaN(sim) || math.IsInf(sim, 0) {
		return "—"
	}
	return fmt.Sprintf("%+.1f%%", 100*(sim-ana)/ana)
}

func writeValidation(w io.Writer, v *experiments.Validation) error {
	desc := v.Method
	if v.BShort > 0 {
		desc += fmt.Sprintf(", B_short %d", v.BShort)
	}
	if v.Gamma > 1 {
		desc += fmt.Sprintf(", γ %.1f, p_c %g", v.Gamma, v.PC)
	}
	fmt.Fprintf(w, "workload %s, λ = %g req/s, method %s: %d GPUs (calibration %s, timing %s, ρ_max %g)\n",
		v.Workload, v.Rate, desc, v.TotalGPUs, v.Calibration, v.Timing, v.RhoMax)
	sc := v.ShortCalibration
	switch sc {
	case fleetopt.ShortCalibMix:
		sc += fmt.Sprintf(" (C&R pools sized for their post-compression traffic; router estimate noise σ = %g)", v.EstimateNoise)
	case fleetopt.ShortCalibPaper:
		sc += " (FleetOpt Algorithm 1: short sized on (0,B], long on (γB,∞))"
	}
	if v.Gamma <= 1 {
		sc += "; no effect on this fleet (no compression)"
	}
	fmt.Fprintf(w, "short-calibration %s\n", sc)
	fmt.Fprintf(w, "simulated %d requests (seed %d, router %s), warm-up %.0f%% (%.0f s), measurement window %.0f s\n\n",
		v.Requests, v.Seed, v.Router, 100*v.WarmupFraction, v.WarmupS, v.WindowS)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "pool\tgpu\tmax_ctx\tGPUs\tmeasured\tutil ana\tutil occ\tutil sim\tocc diff\tutil self\tGPUs self (est.)\tP99 TTFT ana s\tP99 TTFT occ s\tP99 TTFT sim s\tocc diff\tP99 wait ana s\tP99 wait occ s\tP99 wait sim s\tP99 TPOT occ s\tP99 TPOT sim s\trejected\toverloaded\t")
	for _, p := range v.Pools {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%.3f\t%.3f\t%s\t%s\t%.3f\t%d\t%.3f\t%.3f\t%s\t%s\t%.4f\t%.4f\t%s\t%.4f\t%s\t%d\t%v\t\n",
			p.Name, p.GPU, p.MaxCtx, p.GPUs, p.Measured, p.UtilAna, p.Occ.Utilization, fmtNum("%.3f", p.UtilSim), pctDiff(p.UtilSim, p.Occ.Utilization), p.UtilSelf, p.GPUsSelf,
			p.P99TTFTAnaS, p.Occ.P99TTFTS, fmtNum("%.3f", p.P99TTFTSimS), pctDiff(p.P99TTFTSimS, p.Occ.P99TTFTS),
			p.P99WaitAnaS, p.Occ.P99WaitS, fmtNum("%.4f", p.P99WaitSimS), p.Occ.P99TPOTS, fmtNum("%.4f", p.P99TPOTSimS), p.Rejected, p.Overloaded)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nutil ana = λ_p/(n·μ_gpu) of the planner (paper service model); util occ, P99 … occ = the occupancy service model (docs/planner.md §10), occ diff = (sim − occ)/occ; util sim = time-averaged busy slots / slots;\nutil self = self-consistent estimate with the iteration time at the batch actually held, for the traffic the router really sends (predicts util sim);\nGPUs self (est.) = GPUs at which util self would be ρ_max = %g: an estimate near the saturation knee, not a plan (no margin, TTFT target or queueing; docs/experiments.md).\n", v.RhoMax)
	if err := writeFidelities(w, v); err != nil {
		return err
	}
	for _, warn := range v.Warnings {
		fmt.Fprintf(w, "warning: %s\n", warn)
	}
	return nil
}

// relErr is 100·(model − measured)/measured, or "—".
func relErr(model, measured float64) string {
	if measured == 0 || math.IsNaN(measured) || math.IsInf(model, 0) || math.IsNaN(model) {
		return "—"
	}
	return fmt.Sprintf("%+.1f%%", 100*(model-measured)/measured)
}

// writeFidelities prints, per pool, the analytic models beside every
// simulated fidelity, with the models' relative errors against each.
func writeFidelities(w io.Writer, v *experiments.Validation) error {
	if len(v.Pools) == 0 || (v.Pools[0].Slot == nil && v.Pools[0].KV == nil) {
		return nil
	}
	fmt.Fprintln(w, "\nfidelities (P(wait): slot = wait > 0; engine and kv = wait above the pool's longest possible iteration;\n… err = (model − sim)/sim, the opposite sign of the table above's occ diff = (sim − occ)/occ):")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "pool\tsource\tutil\tP(wait)\tP99 wait s\tP99 TTFT s\tpreemptions\tpaper util err\tocc util err\tpaper TTFT err\tocc TTFT err\t")
	for _, p := range v.Pools {
		fmt.Fprintf(tw, "%s\tpaper (M/G/c)\t%.3f\t%.4f\t%.4f\t%.3f\t\t\t\t\t\t\n", p.Name, p.UtilAna, p.PWaitAna, p.P99WaitAnaS, p.P99TTFTAnaS)
		fmt.Fprintf(tw, "%s\toccupancy\t%.3f\t%.4f\t%.4f\t%.3f\t\t\t\t\t\t\n", p.Name, p.Occ.Utilization, p.Occ.PWait, p.Occ.P99WaitS, p.Occ.P99TTFTS)
		row := func(src string, u, pw, w99, t99 float64, pre int64) {
			fmt.Fprintf(tw, "%s\t%s\t%.3f\t%.4f\t%.4f\t%.3f\t%d\t%s\t%s\t%s\t%s\t\n", p.Name, src, u, pw, w99, t99, pre,
				relErr(p.UtilAna, u), relErr(p.Occ.Utilization, u), relErr(p.P99TTFTAnaS, t99), relErr(p.Occ.P99TTFTS, t99))
		}
		if p.Slot != nil {
			row("sim: slot", p.Slot.Utilization, p.Slot.PWait, p.Slot.P99WaitS, p.Slot.P99TTFTS, 0)
		}
		row("sim: engine", p.UtilSim, p.PWaitSim, p.P99WaitSimS, p.P99TTFTSimS, p.Preemptions)
		if p.KV != nil {
			row("sim: kv", p.KV.Util, p.KV.PWait, p.KV.P99Wait, p.KV.P99TTFT, p.KV.Preemptions)
		}
	}
	return tw.Flush()
}
