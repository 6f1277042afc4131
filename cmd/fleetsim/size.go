package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/fleetsim/fleetsim/pools/catalog"
	"github.com/fleetsim/fleetsim/pools/queueing"
	"github.com/fleetsim/fleetsim/sim/sweep"
	"github.com/spf13/pflag"
)

func init() {
	register("size", "find the smallest fleet that meets P99 TTFT/TPOT targets in simulation", runSize)
}

func sizeUsage(w io.Writer, fs *pflag.FlagSet) {
	fmt.Fprint(w, `Usage: fleetsim size [flags]

Finds, pool by pool, the smallest GPU count at which the simulator meets
every target on every seed (docs/experiments.md "Sizing by simulation").
The pools and their traffic come from the planner, as in 'fleetsim plan'
(--method, --b-short, ...); each pool's search starts at the occupancy
model's count n0, gallops (±s, 2s, 4s, ...; s = max(1, n0/64)) to a bracket
and bisects, and every
candidate sees the same requests (common random numbers: seeds 1..K).
Each run is the pool's part of a whole-fleet 'fleetsim simulate --requests
N --warmup 0.2' (N = --requests, raised until the warm-up covers five mean
slot times). A count is accepted when, on every seed, the pool's P99 TTFT
and P99 TPOT are within the targets with 95% confidence (batch quantiles;
an unclear run is repeated with 2N, 4N; still unclear fails), its slot
utilization within --util-cap (if set) and it is not overloaded; the count
below it failed on at least one seed. The count is then confirmed on
fresh seeds K+1..K+C (--confirm-seeds) and raised until they pass too.
(Rejections are router misroutes, which no GPU count changes; they are
reported per seed in the JSON, not counted against a candidate.)

Pools interact only through the router: under the length router (homo, pr)
each pool is simulated alone on the requests routed to it; under
compress-and-route (retrofit, fleetopt) the router's decisions do not
depend on load, so each pool is searched in the full fleet with the other
pool held. Load-aware spillover is not offered.

Prints the paper model's, the occupancy model's and the simulated GPU
count per pool, the cost and the margin to each target at the chosen size.
Progress goes to stderr; --format json for scripts. Bad input (no target,
an unreachable target, --seeds 0, a rate whose runs would exceed
20,000,000 requests) exits with status 2.

Flags:
`)
	fmt.Fprint(w, fs.FlagUsagesWrapped(100))
}

func runSize(args []string, stdout, stderr io.Writer) error {
	fs := pflag.NewFlagSet("size", pflag.ContinueOnError)
	fs.SortFlags = false
	wl := fs.String("workload", "azure", "token-length CDF: azure, lmsys, agent-heavy or a CDF JSON `FILE`")
	rate := fs.Float64("rate", 1000, "fleet arrival rate λ, requests/s")
	method := fs.String("method", "pr", "homo, pr, retrofit or fleetopt")
	bShort := fs.Int("b-short", 4096, "short-pool boundary and max context B_short, tokens (pr, retrofit; fleetopt: 0 = sweep B)")
	gamma := fs.Float64("gamma", 1.5, "C&R bandwidth γ of retrofit (>= 1)")
	pc := fs.Float64("p-c", 1.0, "compressibility p_c in (0, 1] (retrofit, fleetopt)")
	gpu := fs.String("gpu", "a100", "GPU profile of the short pool (and of all pools unless --gpu-long): "+strings.Join(catalog.AcceptedGPUNames(), ", ")+", or GPU/MODEL/tpN")
	gpuLong := fs.String("gpu-long", "", "GPU profile of the long and homogeneous pools (default: --gpu)")
	timing := fs.String("timing", catalog.DefaultTiming, "iteration-time preset: kv or paper; with --disaggregated any of "+strings.Join(catalog.TimingNames, ", ")+" (the colocated counts beside are then kv's)")
	rhoMax := fs.Float64("rho-max", queueing.DefaultRhoMax, "utilization cap ρ_max of the paper model's count, in (0, 1)")
	sloS := fs.String("slo-ttft-p99", "500ms", "P99 TTFT target (500ms, 0.5s, or seconds); 0 = none")
	tpotS := fs.String("slo-tpot-p99", "0", "P99 TPOT target (e.g. 50ms); 0 = none")
	utilCap := fs.Float64("util-cap", 0, "cap on the measured slot utilization, in (0, 1); 0 = none")
	seeds := fs.Int("seeds", sweep.DefaultSeeds, "K: every candidate is simulated with seeds 1..K and must pass on all")
	confirm := fs.Int("confirm-seeds", 0, "fresh seeds K+1..K+N the chosen count must also pass (it is raised until it does); 0 = K")
	requests := fs.Int("requests", sweep.DefaultSizeRequests, "N: fleet requests per run; each pool's run is its part of a whole-fleet 'simulate --requests N --warmup 0.2' (N raised until the warm-up covers five mean slot times; doubled up to 4× while a P99's 95% interval straddles its target)")
	format := fs.String("format", "table", "output: table or json")
	dg := addDisaggFlags(fs, "size")
	if help, err := parseFlags("size", fs, args, stdout, sizeUsage, false); help || err != nil {
		return err
	}
	if *format != "table" && *format != "json" {
		return badInput("--format %q: allowed: table, json", *format)
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
	case *seeds < 1:
		return badInput("--seeds %d: must be >= 1 (every seed must meet every target)", *seeds)
	case *confirm < 0 || *confirm > 1000:
		return badInput("--confirm-seeds %d: must be in [0, 1000] (0: as many as --seeds)", *confirm)
	case *requests < 100:
		// The library reads 0 as its default; on the command line 0 is a mistake.
		return badInput("--requests %d: must be >= 100 measured requests per pool", *requests)
	case !(*rhoMax > 0 && *rhoMax < 1):
		return badInput("--rho-max %v: must be in (0, 1)", *rhoMax)
	case *gamma < 1 || math.IsNaN(*gamma):
		return badInput("--gamma %v: must be >= 1", *gamma)
	case !(*pc > 0 && *pc <= 1):
		return badInput("--p-c %v: must be in (0, 1]", *pc)
	}
	cfg := sweep.SizeConfig{Workload: *wl, Rate: *rate, Method: strings.ToLower(*method), BShort: *bShort, Gamma: *gamma, PC: *pc,
		GPU: *gpu, GPULong: *gpuLong, Timing: *timing, RhoMax: *rhoMax, SLOTTFTS: slo, SLOTPOTS: tpot, UtilCap: *utilCap,
		Seeds: *seeds, ConfirmSeeds: *confirm, Requests: *requests,
		Progress: func(msg string) { fmt.Fprintln(stderr, "size: "+msg) }}
	if cfg.Disaggregated, cfg.DisaggLink, err = dg.config(); err != nil {
		return err
	}
	// A stop signal ends the simulations: one line, exit 1, nothing
	// printed (like simulate).
	intr := catchSignals()
	defer intr.release()
	cfg.Stop = intr.stopped
	res, err := sweep.Size(cfg)
	if ierr := intr.err("sizing stopped, nothing printed"); ierr != nil {
		return ierr
	}
	if err != nil {
		return badInput("%s", sizeFlagNames(oneLine(err), *rate, cfg.Method, *bShort))
	}
	if *format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(res)
	}
	return writeSize(stdout, res)
}

// sizeFlagNames turns the library's field names into flags. Two checks
// reach the user as fields of the scenario size builds for a pool's run:
// the run's workload.rate (the pool's share of --rate) and the short pool's
// max_ctx (--b-short); they are named by their flags.
func sizeFlagNames(msg string, rate float64, method string, bShort int) string {
	if rest, ok := strings.CutPrefix(msg, "workload.rate = "); ok {
		share, why, _ := strings.Cut(rest, ": ")
		return fmt.Sprintf("--rate %g requests/s: too low for size's runs (a pool's share %s requests/s: %s)", rate, roundG(share), why)
	}
	if method != "homo" && strings.HasPrefix(msg, "pools[") {
		if _, rest, ok := strings.Cut(msg, fmt.Sprintf("].max_ctx = %d: ", bShort)); ok {
			return fmt.Sprintf("--b-short %d tokens: %s", bShort, rest)
		}
	}
	for _, f := range []string{"seeds", "confirm-seeds", "requests", "util-cap", "slo-tpot-p99", "method", "b-short", "workload", "gpu", "gpu-long"} {
		if strings.HasPrefix(msg, f+" ") {
			return "--" + msg
		}
	}
	return flagNames(msg)
}

func writeSize(w io.Writer, r *sweep.SizeResult) error {
	desc := r.Method
	if r.BShort > 0 {
		desc += fmt.Sprintf(", B_short %d", r.BShort)
	}
	if r.Gamma > 1 {
		desc += fmt.Sprintf(", γ %.1f, p_c %g", r.Gamma, r.PC)
	}
	tg := []string{}
	if r.SLOTTFTS > 0 {
		tg = append(tg, fmt.Sprintf("P99 TTFT <= %g s", r.SLOTTFTS))
	}
	if r.SLOTPOTS > 0 {
		tg = append(tg, fmt.Sprintf("P99 TPOT <= %g s", r.SLOTPOTS))
	}
	if r.UtilCap > 0 {
		tg = append(tg, fmt.Sprintf("slot utilization <= %g", r.UtilCap))
	}
	fmt.Fprintf(w, "workload %s, λ = %g req/s, method %s, timing %s\ntargets on every one of %d seeds: %s (%d measured requests per pool and run)\n%s\n\n",
		r.Workload, r.Rate, desc, r.Timing, r.Seeds, strings.Join(tg, ", "), r.Requests, r.Interaction)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "pool\tgpu\tmax_ctx\tλ req/s\tGPUs paper\tGPUs occupancy\tGPUs simulated\tpaper/sim\tworst P99 TTFT s\tworst P99 TPOT s\tworst util\tTTFT margin\tTPOT margin\tcandidates\t$K/yr\t")
	for _, p := range r.Pools {
		margin := func(m *float64) string {
			if m == nil {
				return "—"
			}
			return fmt.Sprintf("%.1f%%", 100**m)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%.2f\t%d\t%d\t%d\t%.2f\t%.3f\t%.4f\t%.3f\t%s\t%s\t%d\t%.0f\t\n",
			p.Name, p.GPU, p.MaxCtx, p.ArrivalRate, p.GPUsPaper, p.GPUsOccupancy, p.GPUsSim, float64(p.GPUsPaper)/float64(p.GPUsSim),
			p.WorstP99TTFT, p.WorstP99TPOT, p.WorstUtil, margin(p.MarginTTFT), margin(p.MarginTPOT), p.Evaluations, p.AnnualUSD/1000)
	}
	fmt.Fprintf(tw, "total\t\t\t\t%d\t%d\t%d\t%.2f\t\t\t\t\t\t\t%.0f\t\n", r.GPUsPaper, r.GPUsOccupancy, r.GPUsSim, float64(r.GPUsPaper)/float64(r.GPUsSim), r.AnnualUSD/1000)
	if err := tw.Flush(); err != nil {
		return err
	}
	if r.PaperNote != "" {
		fmt.Fprintf(w, "note: %s\n", r.PaperNote)
	}
	if err := writeSizeDisagg(w, r); err != nil {
		return err
	}
	fmt.Fprintf(w, "paper fleet $%.0fK/yr, simulated fleet $%.0fK/yr\n", r.AnnualUSDPaper/1000, r.AnnualUSD/1000)
	return nil
}

// roundG prints a number the library formatted in full (%v) with three
// significant digits; anything else is returned as it is.
func roundG(s string) string {
	if v, err := strconv.ParseFloat(s, 64); err == nil {
		return fmt.Sprintf("%.3g", v)
	}
	return s
}
