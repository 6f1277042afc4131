package main

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/pflag"

	"github.com/fleetsim/fleetsim/pools/variants"
	"github.com/fleetsim/fleetsim/sim"
	"github.com/fleetsim/fleetsim/sim/variantsim"
	"github.com/fleetsim/fleetsim/workload"
)

func init() {
	register("optimize", "choose replicas per variant (WVA): SLO queue model, cost optimizer, optional DES check", runOptimize)
}

func optimizeUsage(w io.Writer, fs *pflag.FlagSet) {
	fmt.Fprint(w, `Usage: fleetsim optimize --config variants.yaml [flags]

The Workload Variant Autoscaler's optimizer (docs/variants.md). For every
workload and every variant of its model, a per-replica queue model turns the
workload's SLOs (mean TTFT, mean ITL, optional TPS) into a maximum request
rate per replica; replicas = max(min_replicas, ⌈rate / throughput⌉) and
cost = unit cost × accelerators per replica × replicas. Then:

  unlimited  every workload takes its cheapest candidate (with a current
             allocation: the smallest transition penalty);
  limited    candidates come out of the file's inventory, workloads in
             priority order (1 first) and by regret; units left over go to
             the workloads without an allocation by --policy:
             None, PriorityExhaustive, PriorityRoundRobin, RoundRobin.

--simulate runs every allocation in fleetsim's discrete-event simulation
(its replicas as one pool whose iteration time follows the variant's profile,
Poisson arrivals at the workload's rate, every request of the workload's mean
lengths) and prints the simulated mean and P99 TTFT and mean ITL beside the
model's, flagging each SLO the simulation misses (TTFT: P99 against the
target; ITL: mean against the target) and why.

Bad input (unknown policy, a priority < 1, β < 0, ...) exits with status 2.

Flags:
`)
	fmt.Fprint(w, fs.FlagUsagesWrapped(100))
}

type optimizeFlags struct {
	config, mode, policy, format, out, dispatch string
	inventory                                   string
	deferBE, simulate                           bool
	requests                                    int
	seed                                        uint64
}

// simRow is the --simulate outcome of one allocation.
type simRow struct {
	Workload string             `json:"workload"`
	Outcome  variantsim.Outcome `json:"outcome"`
	Misses   []string           `json:"misses"` // SLOs the simulation missed, with the reason
}

// optimizeReport is the --format json output.
type optimizeReport struct {
	*variants.Result
	Simulation []simRow `json:"simulation,omitempty"`
}

func runOptimize(args []string, stdout, stderr io.Writer) error {
	fs := pflag.NewFlagSet("optimize", pflag.ContinueOnError)
	fs.SortFlags = false
	var f optimizeFlags
	fs.StringVar(&f.config, "config", "", "variants `FILE` (YAML): variants, workloads, inventory (see examples/variants.yaml)")
	fs.StringVar(&f.mode, "mode", "", "unlimited or limited (default: the file's mode, else unlimited)")
	fs.StringVar(&f.policy, "policy", "", "saturation policy in limited mode: "+strings.Join(variants.Policies, ", ")+" (default: the file's, else None)")
	fs.StringVar(&f.inventory, "inventory", "", "replace the file's inventory: `TYPE=N,...` accelerator units (limited mode)")
	fs.BoolVar(&f.deferBE, "defer-best-effort", false, "limited mode: apply the policy once after all priority groups (default: after each)")
	fs.BoolVar(&f.simulate, "simulate", false, "check every allocation in the discrete-event simulation")
	fs.IntVar(&f.requests, "requests", 20000, "with --simulate: requests per allocation (the first 20% are warm-up)")
	fs.Uint64Var(&f.seed, "seed", 1, "with --simulate: run seed")
	fs.StringVar(&f.dispatch, "dispatch", sim.DispatchJSQ, "with --simulate: dispatch among the replicas (jsq, central, rr)")
	fs.StringVar(&f.format, "format", "text", "stdout: text (table) or json")
	fs.StringVar(&f.out, "out", "", "also write the JSON result to `FILE`")
	if help, err := parseFlags("optimize", fs, args, stdout, optimizeUsage, true); help || err != nil {
		return err
	}
	if err := onlyWith(fs, f.simulate, "--simulate", "requests", "seed", "dispatch"); err != nil {
		return err
	}
	switch {
	case fs.NArg() > 0:
		return badInput("unexpected argument %q (run 'fleetsim optimize --help')", fs.Arg(0))
	case f.config == "":
		return badInput("--config FILE is required (run 'fleetsim optimize --help')")
	case f.format != "text" && f.format != "json":
		return badInput("--format %q: allowed: text, json", f.format)
	case f.mode != "" && f.mode != variants.ModeUnlimited && f.mode != variants.ModeLimited:
		return badInput("--mode %q: allowed: unlimited, limited", f.mode)
	case f.requests < 10 || f.requests > 10_000_000:
		return badInput("--requests %d: must be 10 to 10000000", f.requests)
	case f.dispatch != sim.DispatchJSQ && f.dispatch != sim.DispatchCentral && f.dispatch != sim.DispatchRR:
		return badInput("--dispatch %q: allowed: jsq, central, rr", f.dispatch)
	}
	if f.policy != "" {
		p, err := variants.ParsePolicy(f.policy)
		if err != nil {
			return badInput("--policy %q: allowed: %s", f.policy, strings.Join(variants.Policies, ", "))
		}
		f.policy = p
	}
	if err := checkOut(f.out); err != nil {
		return err
	}
	// With --simulate, a stop signal ends the run: one line, exit 1, nothing
	// written (like simulate).
	var intr *interrupter
	if f.simulate {
		intr = catchSignals()
		defer intr.release()
	}
	cfg, err := loadVariants(f.config)
	if err != nil {
		return err
	}
	if fs.Changed("inventory") {
		if cfg.Inventory, err = parseInventory(f.inventory); err != nil {
			return err
		}
	}
	if fs.Changed("defer-best-effort") {
		cfg.DeferBestEffort = f.deferBE
	}
	res, err := variants.Optimize(cfg, variants.Options{Mode: f.mode, Policy: f.policy})
	if err != nil {
		return badInput("--config %s: %s", f.config, oneLine(err))
	}
	rep := optimizeReport{Result: res}
	if f.simulate {
		rep.Simulation, err = simulateAllocations(cfg, res, f, intr.stopped)
		if ierr := intr.err("nothing written"); ierr != nil {
			return ierr
		}
		if err != nil {
			return err
		}
	}
	if f.out != "" {
		if err := writeOut(f.out, nil, func(w io.Writer) error { return encodeJSON(w, rep) }); err != nil {
			return err
		}
	}
	if f.format == "json" {
		return encodeJSON(stdout, rep)
	}
	return printAllocations(stdout, cfg, rep)
}

func encodeJSON(w io.Writer, v any) error {
	return writeJSON(w, v)
}

// loadVariants reads and checks a variants file, loading the profile files
// it names (relative to its directory).
func loadVariants(path string) (*variants.Config, error) {
	data, err := readInput("--config", path, maxVariantsBytes)
	if err != nil {
		return nil, badInput("%s", oneLine(err))
	}
	cfg, err := variants.ParseConfig(data)
	if err != nil {
		return nil, badInput("--config %s: %s", path, oneLine(err))
	}
	dir := filepath.Dir(path)
	err = cfg.ResolveProfiles(func(p string) ([]variants.Profile, error) {
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		return readProfileFile(p)
	})
	if err != nil {
		return nil, badInput("--config %s: %s", path, oneLine(err))
	}
	return cfg, nil
}

// readProfileFile reads a `fleetsim fit` profile file.
func readProfileFile(path string) ([]variants.Profile, error) {
	data, err := workload.ReadFileLimit(path, variants.MaxProfileBytes)
	if err != nil {
		return nil, rootCause(err)
	}
	return variants.ReadProfiles(bytes.NewReader(data))
}

// simulateAllocations runs every allocation with replicas and traffic in the
// DES and compares it with the SLOs.
func simulateAllocations(cfg *variants.Config, res *variants.Result, f optimizeFlags, stop func() bool) ([]simRow, error) {
	var rows []simRow
	for i, a := range res.Allocations {
		if a.Replicas == 0 || a.RateRPS == 0 {
			continue
		}
		w := cfg.Workloads[i]
		v := cfg.Variants[variantIndex(cfg, a.Variant)]
		c := candidateOf(a)
		out, err := variantsim.Run(variantsim.Check{
			Profile: *v.Profile, Batch: c.Batch, Replicas: a.Replicas, RateRPS: a.RateRPS,
			In: max(w.InTokens, 1), Out: w.OutTokens, SLO: w.SLO, Requests: f.requests, Seed: f.seed, Dispatch: f.dispatch,
			Stop: stop,
		})
		if err != nil {
			// The simulation is set up from the file's values alone (e.g. a
			// request longer than the instance's KV budget): bad input.
			return nil, badInput("--simulate: workload %s on %s: %s", a.Workload, a.Variant, oneLine(err))
		}
		rows = append(rows, simRow{Workload: a.Workload, Outcome: out, Misses: misses(w, a, out)})
	}
	return rows, nil
}

func variantIndex(cfg *variants.Config, name string) int {
	for i, v := range cfg.Variants {
		if v.Name == name {
			return i
		}
	}
	return -1
}

func candidateOf(a variants.Allocation) variants.Candidate {
	for _, c := range a.Candidates {
		if c.Variant == a.Variant {
			return c
		}
	}
	return variants.Candidate{}
}

// misses lists the SLOs the simulation missed, each with its likely cause.
func misses(w variants.Workload, a variants.Allocation, o variantsim.Outcome) []string {
	var m []string
	partial := ""
	if a.Status == variants.StatusPartial {
		partial = fmt.Sprintf("best-effort allocation: %d of the %d replicas the SLOs need", a.Replicas, a.Needed)
	}
	if o.Overloaded {
		m = append(m, "overloaded: the simulated replicas do not keep up with the rate")
	}
	if t := w.SLO.TTFT; t > 0 && o.TTFTP99 > t {
		why := "the model sizes the mean TTFT; the simulated P99 is its tail"
		switch {
		case partial != "":
			why = partial
		case o.TTFTMean > t:
			why = "even the simulated mean exceeds the target"
		}
		m = append(m, fmt.Sprintf("TTFT p99 %.1f ms > %.0f ms (%s)", o.TTFTP99, t, why))
	}
	if t := w.SLO.ITL; t > 0 && o.ITLMean > t {
		why := "prefill iterations interleaved with the decodes lengthen the simulated ITL"
		if partial != "" {
			why = partial
		}
		m = append(m, fmt.Sprintf("ITL mean %.2f ms > %.0f ms (%s)", o.ITLMean, t, why))
	}
	return m
}

func printAllocations(w io.Writer, cfg *variants.Config, rep optimizeReport) error {
	r := rep.Result
	fmt.Fprintf(w, "mode %s, policy %s: total cost %.4g per hour; units used:", r.Mode, r.Policy, r.TotalCost)
	for _, k := range slices.Sorted(maps.Keys(r.Used)) {
		if r.Inventory != nil {
			fmt.Fprintf(w, " %s %d/%d", k, r.Used[k], r.Inventory[k])
		} else {
			fmt.Fprintf(w, " %s %d", k, r.Used[k])
		}
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "workload\tprio\trate_rps\tstatus\tvariant\taccel\treplicas\tunits\tcost\tmax_rps/replica\tTTFT_ms\tITL_ms\tSLO TTFT/ITL ms")
	for i, a := range r.Allocations {
		slo := cfg.Workloads[i].SLO
		ttft, itl := "-", "-"
		if a.Predicted != nil {
			ttft, itl = fmt.Sprintf("%.1f", a.Predicted.TTFT), fmt.Sprintf("%.2f", a.Predicted.ITL)
		}
		fmt.Fprintf(tw, "%s\t%d\t%.4g\t%s\t%s\t%s\t%d\t%d\t%.4g\t%.4g\t%s\t%s\t%g/%g\n", a.Workload, a.Priority, a.RateRPS,
			a.Status, dash(a.Variant), dash(a.Accelerator), a.Replicas, a.Units, a.Cost, a.MaxRate, ttft, itl, slo.TTFT, slo.ITL)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, a := range r.Allocations {
		if a.Note != "" {
			fmt.Fprintf(w, "  %s: %s\n", a.Workload, a.Note)
		}
	}
	if len(rep.Simulation) == 0 {
		return nil
	}
	fmt.Fprintln(w, "\nsimulated (discrete-event, post-warm-up):")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "workload\tmodel TTFT_ms\tsim TTFT mean\tsim TTFT p99\tmodel ITL_ms\tsim ITL mean\tcompleted\tverdict")
	for _, s := range rep.Simulation {
		a := r.Allocations[allocIndex(r, s.Workload)]
		mt, mi := "-", "-"
		if a.Predicted != nil {
			mt, mi = fmt.Sprintf("%.1f", a.Predicted.TTFT), fmt.Sprintf("%.2f", a.Predicted.ITL)
		}
		verdict := "SLOs met"
		if len(s.Misses) > 0 {
			verdict = "MISSED"
		}
		o := s.Outcome
		fmt.Fprintf(tw, "%s\t%s\t%.1f\t%.1f\t%s\t%.2f\t%d\t%s\n", s.Workload, mt, o.TTFTMean, o.TTFTP99, mi, o.ITLMean, o.Completed, verdict)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, s := range rep.Simulation {
		for _, m := range s.Misses {
			fmt.Fprintf(w, "  %s: %s\n", s.Workload, m)
		}
	}
	return nil
}

func allocIndex(r *variants.Result, name string) int {
	for i, a := range r.Allocations {
		if a.Workload == name {
			return i
		}
	}
	return -1
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// parseInventory parses --inventory TYPE=N,... .
func parseInventory(s string) (map[string]int, error) {
	inv := map[string]int{}
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if !ok || strings.TrimSpace(k) == "" || err != nil || n < 0 || n > math.MaxInt32 {
			return nil, badInput("--inventory %q: want TYPE=N,... with N accelerator units 0 to %d, e.g. H100=8,A100=4", s, math.MaxInt32)
		}
		k = strings.TrimSpace(k)
		if _, dup := inv[k]; dup {
			return nil, badInput("--inventory %q: %s given twice", s, k)
		}
		inv[k] = n
	}
	return inv, nil
}
