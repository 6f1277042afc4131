package main

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/fleetsim/fleetsim/pools/catalog"
	"github.com/fleetsim/fleetsim/pools/variants"
)

func init() {
	register("fit", "fit a variant's ITL/prefill profile (α, β, γ, δ) from a benchmark CSV or fleetsim's engine", runFit)
}

func fitUsage(w io.Writer, fs *pflag.FlagSet) {
	fmt.Fprint(w, `Usage: fleetsim fit --bench FILE.csv [flags]
       fleetsim fit --from-sim --gpu NAME [--timing PRESET] [flags]
       fleetsim fit --measured GPU/MODEL/tpN [--table FILE]

Fits the Workload Variant Autoscaler's linear profile (times in ms)

  ITL(bb)      = α + β·bb           (decode time per token at batch size bb)
  prefill(bb)  = γ + δ·in·bb        (when the benchmark has in and prefill/ttft columns)

by least squares, per (model, hardware, precision, tp) group. The benchmark
CSV has a header with the columns mm, hw, prec, bb, itl (required), thp, dp,
tp (optional) and in, prefill or ttft (optional, ms).

--from-sim benchmarks fleetsim's own engine instead: for each batch size bb,
bb identical requests (--in prompt, --out-tokens output tokens) arrive
together on an idle instance of --gpu; ITL is (finish − first token)/(out − 1)
and prefill is the time to the first token. Under --timing paper the engine's
t_iter = W + H·n, so the fit recovers α = W and β = H exactly.

--measured fits the engine's W, H_seq, H_kv, P, the papers' W + H·n and the
WVA's α, β, γ, δ to the measured step-time model (Vidur's profiled operator
tables, docs/catalog.md) on the step-times grid, and prints each with its
median, P95 and largest relative error; --table reads a table file instead.

It prints α, β, R², the residuals (and γ, δ) per group; --out writes the
profile file that 'fleetsim optimize' (variants' profile_file) and
'fleetsim simulate' (a pool's profile) read; --plot draws the points and the
fitted line (PNG or SVG by extension). Bad input exits with status 2.

Flags:
`)
	fmt.Fprint(w, fs.FlagUsagesWrapped(100))
}

// fitFlags are the flags of `fleetsim fit`.
type fitFlags struct {
	bench, group, out, plot, format string
	fromSim                         bool
	gpu, timing, batches            string
	maxCtx, in, outTokens           int
	maxBatch, atTokens              int
	measured, table                 string
}

func runFit(args []string, stdout, stderr io.Writer) error {
	fs := pflag.NewFlagSet("fit", pflag.ContinueOnError)
	fs.SortFlags = false
	var f fitFlags
	fs.StringVar(&f.bench, "bench", "", "benchmark CSV `FILE` (columns mm, hw, prec, bb, itl[, thp, dp, tp, in, prefill|ttft])")
	fs.StringVar(&f.group, "group", "", "fit only this group `model/hw/prec/tpN` (default: every group)")
	fs.BoolVar(&f.fromSim, "from-sim", false, "benchmark fleetsim's engine instead of reading a CSV")
	fs.StringVar(&f.gpu, "gpu", "", "with --from-sim: catalog GPU `NAME` ("+strings.Join(catalog.GPUNames(), ", ")+")")
	fs.StringVar(&f.timing, "timing", catalog.TimingPaper, "with --from-sim: timing preset ("+strings.Join(catalog.TimingNames, ", ")+")")
	fs.StringVar(&f.batches, "batches", "", "with --from-sim: batch sizes `LIST` (default 1,2,4,... up to min(64, slots))")
	fs.IntVar(&f.maxCtx, "max-ctx", 1024, "with --from-sim: the instance's max context, tokens (sets its slots)")
	fs.IntVar(&f.in, "in", 128, "with --from-sim: prompt tokens per request")
	fs.IntVar(&f.outTokens, "out-tokens", 64, "with --from-sim: output tokens per request (>= 2)")
	fs.IntVar(&f.maxBatch, "max-batch", 0, "max_batch of the profile (batch limit at --at-tokens; --from-sim default: the slots)")
	fs.IntVar(&f.atTokens, "at-tokens", 0, "at_tokens of the profile (output tokens at which max-batch holds; --from-sim default: --out-tokens)")
	fs.StringVar(&f.measured, "measured", "", "fit the linear forms to the measured step-time model of `GPU/MODEL/tpN` (docs/catalog.md)")
	fs.StringVar(&f.table, "table", "", "with --measured: a measured table `FILE` (testdata/measured format) instead of the embedded data")
	fs.StringVar(&f.out, "out", "", "write the profile file (JSON) to `FILE`")
	fs.StringVar(&f.plot, "plot", "", "draw the fit to `FILE`.png or FILE.svg")
	fs.StringVar(&f.format, "format", "text", "stdout: text or json (the profile file)")
	if help, err := parseFlags("fit", fs, args, stdout, fitUsage, false); help || err != nil {
		return err
	}
	if err := onlyWith(fs, f.fromSim, "--from-sim", "gpu", "timing", "batches", "max-ctx", "in", "out-tokens"); err != nil {
		return err
	}
	if f.format != "text" && f.format != "json" {
		return badInput("--format %q: allowed: text, json", f.format)
	}
	if err := checkOut(f.out); err != nil {
		return err
	}
	if f.plot != "" {
		if err := checkPlotPath(f.plot); err != nil {
			return err
		}
	}
	if (f.maxBatch > 0) != (f.atTokens > 0) && !f.fromSim {
		return badInput("--max-batch %d and --at-tokens %d: give both or neither", f.maxBatch, f.atTokens)
	}
	if f.maxBatch < 0 || f.atTokens < 0 {
		return badInput("--max-batch %d, --at-tokens %d: must be >= 0", f.maxBatch, f.atTokens)
	}
	var profiles []variants.Profile
	var points [][]fitPoint
	var err error
	switch {
	case f.measured != "":
		if f.fromSim || f.bench != "" || f.out != "" || f.plot != "" || f.format != "text" {
			return badInput("--measured %q: prints a table; give it without --bench, --from-sim, --out, --plot, --format json", f.measured)
		}
		return fitMeasured(stdout, f.measured, f.table)
	case f.table != "":
		return badInput("--table %q: needs --measured GPU/MODEL/tpN", f.table)
	case f.fromSim && f.bench != "":
		return badInput("--bench %q and --from-sim: give one of them", f.bench)
	case f.fromSim:
		profiles, points, err = fitFromSim(f)
	case f.bench != "":
		profiles, points, err = fitBench(f)
	default:
		return badInput("want --bench FILE.csv or --from-sim --gpu NAME (run 'fleetsim fit --help')")
	}
	if err != nil {
		return err
	}
	if f.plot != "" {
		if err := plotFits(f.plot, profiles, points); err != nil {
			return err
		}
	}
	if f.out != "" {
		if err := writeOut(f.out, nil, func(w io.Writer) error { return variants.WriteProfiles(w, profiles) }); err != nil {
			return err
		}
	}
	if f.format == "json" {
		return variants.WriteProfiles(stdout, profiles)
	}
	return printFits(stdout, profiles, points)
}

// fitPoint is one observation of a fit, for the text report and the plot.
type fitPoint struct{ x, y float64 }

func fitBench(f fitFlags) ([]variants.Profile, [][]fitPoint, error) {
	data, err := readInput("--bench", f.bench, maxBenchBytes)
	if err != nil {
		return nil, nil, badInput("%s", oneLine(err))
	}
	groups, err := variants.ReadBench(bytes.NewReader(data))
	if err != nil {
		return nil, nil, badInput("--bench %q: %s", f.bench, oneLine(err))
	}
	var ps []variants.Profile
	var pts [][]fitPoint
	for _, g := range groups {
		if f.group != "" && g.Name() != f.group {
			continue
		}
		p, err := variants.FitGroup(g, f.bench)
		if err != nil {
			return nil, nil, badInput("--bench %q: %s", f.bench, oneLine(err))
		}
		p.MaxBatch, p.AtTokens = f.maxBatch, f.atTokens
		var gp []fitPoint
		for _, r := range g.Rows {
			gp = append(gp, fitPoint{r.Batch, r.ITL})
		}
		ps = append(ps, p)
		pts = append(pts, gp)
	}
	if len(ps) == 0 {
		names := make([]string, len(groups))
		for i, g := range groups {
			names[i] = g.Name()
		}
		return nil, nil, badInput("--group %q: no such benchmark group (the file has: %s)", f.group, strings.Join(names, ", "))
	}
	return ps, pts, nil
}

func fitFromSim(f fitFlags) ([]variants.Profile, [][]fitPoint, error) {
	if f.gpu == "" {
		return nil, nil, badInput("--from-sim needs --gpu NAME (allowed: %s)", strings.Join(catalog.GPUNames(), ", "))
	}
	g, err := catalog.LookupGPU(f.gpu)
	if err != nil {
		return nil, nil, badInput("--gpu %q: %s", f.gpu, oneLine(err))
	}
	if f.in < 1 || f.outTokens < 2 || f.in+f.outTokens > f.maxCtx {
		return nil, nil, badInput("--in %d, --out-tokens %d, --max-ctx %d: want in >= 1, out-tokens >= 2 and in + out-tokens <= max-ctx",
			f.in, f.outTokens, f.maxCtx)
	}
	cfg, err := g.EngineConfig(f.maxCtx, f.timing)
	if err != nil {
		return nil, nil, badInput("--gpu %s --max-ctx %d --timing %q: %s", g.Name, f.maxCtx, f.timing, oneLine(err))
	}
	var batches []int
	if f.batches == "" {
		for b := 1; b <= min(64, cfg.MaxSeqs); b *= 2 {
			batches = append(batches, b)
		}
	} else {
		for _, s := range strings.Split(f.batches, ",") {
			b, err := strconv.Atoi(strings.TrimSpace(s))
			if err != nil || b < 1 || b > cfg.MaxSeqs {
				return nil, nil, badInput("--batches %q: %q must be an integer 1 to %d (the instance's slots at --max-ctx %d)",
					f.batches, s, cfg.MaxSeqs, f.maxCtx)
			}
			batches = append(batches, b)
		}
	}
	res, err := variants.RunSweep(cfg, variants.SimSweep{Batches: batches, In: f.in, Out: f.outTokens})
	if err != nil {
		return nil, nil, badInput("--from-sim: %s", oneLine(err))
	}
	p, rep, err := variants.FitSweep(res, f.in)
	if err != nil {
		return nil, nil, badInput("--from-sim: %s", oneLine(err))
	}
	timing := f.timing
	if timing == "" {
		timing = catalog.DefaultTiming
	}
	p.Name = fmt.Sprintf("fleetsim/%s/%s", g.Name, timing)
	p.Model, p.Accelerator = g.Description, g.Name
	rep.Source = fmt.Sprintf("fleetsim engine: gpu %s, timing %s, max_ctx %d, in %d, out %d, batches %v",
		g.Name, timing, f.maxCtx, f.in, f.outTokens, batches)
	p.Fit = rep
	p.MaxBatch, p.AtTokens = cfg.MaxSeqs, f.outTokens
	if f.maxBatch > 0 {
		p.MaxBatch = f.maxBatch
	}
	if f.atTokens > 0 {
		p.AtTokens = f.atTokens
	}
	pts := make([]fitPoint, len(res))
	for i, r := range res {
		pts[i] = fitPoint{float64(r.Batch), r.ITL}
	}
	return []variants.Profile{p}, [][]fitPoint{pts}, nil
}

func printFits(w io.Writer, ps []variants.Profile, pts [][]fitPoint) error {
	for i, p := range ps {
		d := p.Fit.Decode
		fmt.Fprintf(w, "%s (%s)\n", p.Name, p.Fit.Source)
		fmt.Fprintf(w, "  decode  ITL = α + β·bb: α = %.6f ms, β = %.6f ms  (R² = %.6f, %d points, RMS residual %.4g ms)\n",
			p.Alpha, p.Beta, d.R2, d.Points, d.RMS())
		if pf := p.Fit.Prefill; pf != nil {
			fmt.Fprintf(w, "  prefill = γ + δ·in·bb: γ = %.6f ms, δ = %.6g ms  (R² = %.6f, %d points, RMS residual %.4g ms)\n",
				p.Gamma, p.Delta, pf.R2, pf.Points, pf.RMS())
		} else {
			fmt.Fprintln(w, "  prefill: no in/prefill columns (γ = δ = 0)")
		}
		if p.MaxBatch > 0 {
			fmt.Fprintf(w, "  max batch %d at %d tokens\n", p.MaxBatch, p.AtTokens)
		}
		fmt.Fprintln(w, "  bb        itl_ms      fitted_ms   residual_ms")
		for j, q := range pts[i] {
			fmt.Fprintf(w, "  %-8g  %-10.5g  %-10.5g  %+.4g\n", q.x, q.y, p.Decode(q.x), d.Residuals[j])
		}
	}
	return nil
}
