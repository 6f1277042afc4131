package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/spf13/pflag"

	"github.com/fleetsim/fleetsim/pools/catalog"
	"github.com/fleetsim/fleetsim/sim"
	"github.com/fleetsim/fleetsim/sim/export"
	"github.com/fleetsim/fleetsim/sim/sweep"
	"github.com/fleetsim/fleetsim/workload"
)

func init() {
	register("sweep", "run a grid of scenarios in parallel (rates, pool counts, GPUs, routers, ...), or find the highest sustainable rate", runSweep)
}

// Output names inside sweep --out.
const (
	sweepFile   = "sweep.parquet"
	sweepTable  = "sweep.md"
	partsDir    = "parts"
	pointsDir   = "points"
	maxRateFile = "maxrate.md"
)

// sweepOnlyFlags are simulate's flags that sweep replaces by grid flags (or
// does not use).
var sweepOnlyFlags = []string{"rate", "b-short", "gamma", "router", "timing", "out", "no-parquet", "csv", "format", "version", "timeseries-interval", "requests-format"}

// sweepFlags are the sweep command's flags: simulate's scenario flags plus
// the grid and search flags.
type sweepFlags struct {
	sim        *simFlags
	fs         *pflag.FlagSet
	file       string
	preset     string
	rates      string
	counts     []string
	gpus       []string
	bShorts    string
	gammas     string
	routers    string
	timings    string
	seeds      string
	duration   float64
	workers    int
	shard      string
	points     bool
	noPlots    bool
	out        string
	findMax    bool
	probes     int
	rateTol    float64
	satRequest int
}

// Sweep presets, after vllm-sr-sim's what-if commands.
const (
	presetLamRange       = "lam-range"       // whatif --lam-range: a rate sweep
	presetGPUCompare     = "gpu-compare"     // whatif --gpu-compare: every GPU that fits the pools
	presetCompareRouters = "compare-routers" // compare-routers: every router kind
)

// presetRates are the rates of the lam-range preset, req/s (the example in
// vllm-sr-sim's README: --lam-range 50 100 200 500 1000).
const presetRates = "50,100,200,500,1000"

func newSweepFlags() *sweepFlags {
	f := &sweepFlags{sim: newSimFlags(), fs: pflag.NewFlagSet("sweep", pflag.ContinueOnError)}
	fs := f.fs
	fs.SortFlags = false
	fs.StringVar(&f.file, "sweep", "", "sweep `FILE` (YAML): scenario (a scenario file's path), grid (key: list or range), duration_s; flags override it")
	fs.StringVar(&f.preset, "preset", "", "add the axis of preset `NAME`: lam-range (rates "+presetRates+"), gpu-compare (every GPU that holds the pools' max context), compare-routers (length, token-budget, spillover, cr)")
	fs.StringVar(&f.rates, "rates", "", "arrival rates, req/s: `LIST` (100,200,400) or range START:STOP:STEP (100:1000:100)")
	fs.StringArrayVar(&f.counts, "pool-counts", nil, "instances per pool: `[POOL=]LIST|RANGE` (every pool, or the pool named; repeatable)")
	fs.StringArrayVar(&f.gpus, "gpu", nil, "GPUs: `[POOL=]LIST` of catalog names (every pool, or the pool named; repeatable)")
	fs.StringVar(&f.bShorts, "b-short", "", "router B_short thresholds, tokens: `LIST|RANGE`")
	fs.StringVar(&f.gammas, "gamma", "", "C&R bandwidths γ >= 1: `LIST|RANGE`")
	fs.StringVar(&f.routers, "router", "", "routers: `LIST` of length, token-budget, spillover, cr")
	fs.StringVar(&f.timings, "timing", "", "timing presets: `LIST` of "+strings.Join(catalog.TimingNames, ", ")+" (default: the scenario's, else auto)")
	fs.StringVar(&f.seeds, "seeds", "", "seeds, each point run once per seed: `LIST|RANGE` (default: --seed)")
	fs.Float64Var(&f.duration, "duration", 0, "simulated seconds per point: requests = ceil(rate × duration) (0: --requests at every point)")
	fs.IntVar(&f.workers, "workers", 0, "points run at once (0: GOMAXPROCS)")
	fs.StringVar(&f.shard, "shard", "", "run shard `I/N` of the grid only (points with index mod N = I) and write DIR/"+partsDir+"/part-I-of-N.parquet")
	fs.BoolVar(&f.points, "points", false, "also write each point's per-request Parquet to DIR/"+pointsDir+"/point-NNNNNN.parquet")
	fs.BoolVar(&f.noPlots, "no-plots", false, "do not draw the plots")
	fs.StringVar(&f.out, "out", "sweep", "output `DIR` (created if missing; default maxrate with --find-max-rate)")
	fs.BoolVar(&f.findMax, "find-max-rate", false, "search, per seed, the highest rate the over-saturation detector does not flag (needs --duration)")
	fs.IntVar(&f.probes, "probes", 6, "--find-max-rate: rates first run, evenly spaced up to the saturated throughput")
	fs.Float64Var(&f.rateTol, "rate-tol", 0.01, "--find-max-rate: stop bisecting when the bracket is within this fraction of the rate, in (0, 1)")
	fs.IntVar(&f.satRequest, "saturation-requests", 0, "--find-max-rate: requests of the saturation run (0: 20 × the fleet's slots, at least 1,000)")
	f.sim.fs.VisitAll(func(fl *pflag.Flag) {
		switch {
		case fl.Name == "compat":
			// sweep's own help (its --timing is an axis); grid copies
			// Changed back to simulate's flag, which base reads.
			c := *fl
			c.Usage = "papers: start the grid from the papers' default scenario (their fleet " + poolsString(sim.PapersDefaults().Pools) +
				" under kv timing, prompt tokens free) in place of the default; the axes (--rates, --pool-counts, --timing LIST, ...) still vary it; not with --config, a sweep file's scenario, --pool or --plan"
			fs.AddFlag(&c)
		case !slices.Contains(sweepOnlyFlags, fl.Name):
			fs.AddFlag(fl)
		}
	})
	// f.sim.fs stays simulate's own set: the shared *pflag.Flag values are
	// the same, so their Changed is seen there, while sweep's list flags
	// named like simulate's (--b-short, --gamma, --router, --timing) are not.
	return f
}

func sweepUsage(w io.Writer, fs *pflag.FlagSet) {
	fmt.Fprint(w, `Usage: fleetsim sweep [flags]

Runs a grid of scenarios: the base scenario (simulate's flags, --config or
the sweep file's scenario) at every combination of the swept keys' values,
points in parallel (one per core). Each point's seed is its seed key
(--seeds, default --seed), so results never depend on scheduling or on the
number of workers. Writes DIR/sweep.parquet (one row per point and pool plus
a fleet row), DIR/sweep.md and plots of P99 TTFT, utilization and cost
against the first swept key (PNG and SVG); the table goes to stdout.

  fleetsim sweep --rates 100:1000:100 --pool short:a100:40:4096 --pool long:a100:120:65536
  fleetsim sweep --preset gpu-compare --pool a:a100:8:8192 --rates 50,100
  fleetsim sweep --find-max-rate --pool a:a10g:1:2048 --duration 300 --seeds 1:8:1

--shard I/N runs one part of the grid (for many machines); merge the parts
with DuckDB: SELECT * FROM read_parquet('DIR/parts/*.parquet') ORDER BY point, pool_index.
Bad input exits with status 2, one line on stderr, and runs nothing.

Flags:
`)
	fmt.Fprint(w, fs.FlagUsagesWrapped(100))
	fmt.Fprintln(w, "\nSee docs/sweep.md for the sweep file, the columns of sweep.parquet and worked examples.")
}

func runSweep(args []string, stdout, stderr io.Writer) error {
	f := newSweepFlags()
	if help, err := parseFlags("sweep", f.fs, args, stdout, sweepUsage, false); help || err != nil {
		return err
	}
	g, shard, err := f.grid()
	if err != nil {
		return badInput("%s", oneLine(err))
	}
	f.out = f.outDir()
	if f.out == "" {
		return badInput("--out \"\": an output directory is needed")
	}
	if fi, err := os.Stat(f.out); err == nil && !fi.IsDir() {
		return badInput("--out %q: exists and is not a directory", f.out)
	} else if _, lerr := os.Lstat(f.out); err != nil && lerr == nil {
		return badInput("--out %q: a symbolic link to nothing (%v); give a directory", f.out, err)
	}
	if f.workers < 0 {
		return badInput("--workers %d: must be >= 0 (0: GOMAXPROCS)", f.workers)
	}
	kind := kindSweep
	if f.findMax {
		kind = kindMaxRate
	}
	if err := checkRunDir(f.out, kind); err != nil {
		return err
	}
	if err := checkReportPath(f.sim.extra.report); err != nil {
		return err
	}
	stop, release := stopOnSignal()
	defer release()
	if f.findMax {
		return f.findMaxRate(g, stdout, stderr, stop)
	}
	return f.runGrid(g, shard, stdout, stderr, stop)
}

// stopOnSignal returns a Stop function that turns true on a stop signal
// (stopSignals: SIGINT, SIGTERM, SIGHUP, SIGQUIT), and the function that
// stops listening.
func stopOnSignal() (func() bool, func()) {
	var stop atomic.Bool
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, stopSignals...)
	go func() {
		if _, ok := <-sigs; ok {
			stop.Store(true)
		}
	}()
	return stop.Load, func() { signal.Stop(sigs); close(sigs) }
}

// grid builds and validates the sweep: the base scenario, then the sweep
// file, the preset and the grid flags.
func (f *sweepFlags) grid() (*sweep.Grid, sweep.Shard, error) {
	var file sweepFileSpec
	if f.file != "" {
		var err error
		if file, err = loadSweepFile(f.file); err != nil {
			return nil, sweep.Shard{}, err
		}
		if file.scenario != "" && !f.fs.Changed("config") {
			if f.fs.Changed("compat") && f.sim.compat == CompatPapers {
				return nil, sweep.Shard{}, compatConflict(fmt.Sprintf("--sweep %s: its scenario %s", f.file, file.scenario))
			}
			f.sim.config = file.scenario
		}
	}
	if f.fs.Changed("compat") {
		f.sim.fs.Lookup("compat").Changed = true // sweep's copy of the flag (newSweepFlags)
	}
	base, err := f.sim.scenario()
	if err != nil {
		return nil, sweep.Shard{}, err
	}
	g := &sweep.Grid{Base: base, DurationS: file.durationS}
	if f.fs.Changed("duration") {
		g.DurationS = f.duration
	}
	// Axes in a fixed order whatever their source: flags replace the
	// file's axis of the same key.
	given := map[string]string{}
	var order []string
	set := func(key, spec string) {
		if _, ok := given[key]; !ok {
			order = append(order, key)
		}
		given[key] = spec
	}
	for _, kv := range file.axes {
		set(kv[0], kv[1])
	}
	flagAxis := func(name, key, val string) {
		if f.fs.Changed(name) {
			set(key, val)
		}
	}
	flagAxis("rates", sweep.KeyRate, f.rates)
	for _, list := range [][2]any{{"pool-counts", f.counts}, {"gpu", f.gpus}} {
		key := map[string]string{"pool-counts": sweep.KeyCount, "gpu": sweep.KeyGPU}[list[0].(string)]
		for _, v := range list[1].([]string) {
			if pool, vals, ok := strings.Cut(v, "="); ok {
				set(key+"."+strings.TrimSpace(pool), vals)
			} else {
				set(key, v)
			}
		}
	}
	flagAxis("b-short", sweep.KeyBShort, f.bShorts)
	flagAxis("gamma", sweep.KeyGamma, f.gammas)
	flagAxis("router", sweep.KeyRouter, f.routers)
	flagAxis("timing", sweep.KeyTiming, f.timings)
	flagAxis("seeds", sweep.KeySeed, f.seeds)
	preset := file.preset
	if f.fs.Changed("preset") {
		preset = f.preset
	}
	switch preset {
	case "":
	case presetLamRange:
		if _, ok := given[sweep.KeyRate]; !ok {
			set(sweep.KeyRate, presetRates)
		}
	case presetGPUCompare:
		if _, ok := given[sweep.KeyGPU]; !ok {
			set(sweep.KeyGPU, strings.Join(fittingGPUs(base.Pools), ","))
		}
	case presetCompareRouters:
		if _, ok := given[sweep.KeyRouter]; !ok {
			set(sweep.KeyRouter, strings.Join([]string{sim.RouterLength, sim.RouterTokenBudget, sim.RouterSpillover, sim.RouterCR}, ","))
		}
	default:
		return nil, sweep.Shard{}, fmt.Errorf("--preset %q: allowed: %s, %s, %s", preset, presetLamRange, presetGPUCompare, presetCompareRouters)
	}
	// Canonical axis order: sweep.Keys() order, per-pool keys after their key.
	slices.SortStableFunc(order, func(a, b string) int {
		return slices.Index(sweep.Keys(), strings.SplitN(a, ".", 2)[0]) - slices.Index(sweep.Keys(), strings.SplitN(b, ".", 2)[0])
	})
	for _, key := range order {
		a, err := sweep.ParseAxis(key, given[key])
		if err != nil {
			return nil, sweep.Shard{}, err
		}
		g.Axes = append(g.Axes, a)
	}
	var shard sweep.Shard
	if f.fs.Changed("shard") {
		if shard, err = sweep.ParseShard(f.shard); err != nil {
			return nil, shard, err
		}
		if f.findMax {
			return nil, shard, fmt.Errorf("--shard %q: not with --find-max-rate (run one search per seed instead: --seeds S)", f.shard)
		}
	}
	if f.findMax {
		err = f.checkFindMax(g)
	} else if err = f.checkNoFindMax(); err == nil {
		err = g.Validate()
	}
	if err != nil {
		return nil, shard, err
	}
	return g, shard, checkWorkload(g.Base)
}

// checkWorkload builds the base scenario's request source once, so that a
// missing or bad CDF file or trace (every row the runs will use) is bad
// input found before anything runs or is written.
func checkWorkload(cfg sim.Config) error {
	if cfg.Workload.Rate <= 0 && cfg.Workload.Trace == "" {
		cfg.Workload.Rate = 1 // --find-max-rate sets the rate
	}
	src, err := workload.NewSource(cfg.Workload, cfg.Seed)
	if err != nil {
		return errors.New(workloadError(err))
	}
	if c, ok := src.(io.Closer); ok {
		c.Close()
	}
	return nil
}

// fittingGPUs lists the catalog GPUs whose KV budget holds every pool's
// max context.
func fittingGPUs(ps []sim.PoolConfig) []string {
	var out []string
	for _, name := range catalog.GPUNames() {
		g, _ := catalog.LookupGPU(name)
		ok := true
		for _, p := range ps {
			ok = ok && g.Slots(p.MaxContext) >= 1
		}
		if ok {
			out = append(out, name)
		}
	}
	return out
}

// runGrid runs the grid (or its shard) and writes the outputs.
func (f *sweepFlags) runGrid(g *sweep.Grid, shard sweep.Shard, stdout, stderr io.Writer, stop func() bool) (err error) {
	// A failed or interrupted sweep leaves none of its files behind, and
	// no directory it created (only if empty: it never removes others' files).
	var (
		mu      sync.Mutex
		written []string // files, then directories, removed in reverse order
	)
	mkdir := func(dir string) error {
		if _, err := os.Stat(dir); err == nil {
			return nil
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("creating %s: %w", dir, err)
		}
		written = append(written, dir)
		return nil
	}
	var unlock func() // --out's lock, released after any cleanup
	defer func() {
		if err != nil {
			for i := len(written) - 1; i >= 0; i-- {
				if written[i] == f.out && unlock != nil {
					unlock()
					unlock = nil
				}
				os.Remove(written[i])
			}
		}
		if unlock != nil {
			unlock()
		}
	}()
	if err := mkdir(f.out); err != nil {
		return err
	}
	if shard.N == 0 {
		// The whole grid's set (sweep.parquet, table, plots, points) is
		// one run's: a second sweep into the same --out is refused while
		// this one runs. A shard writes only its own part file.
		if unlock, err = export.LockDir(f.out); err != nil {
			return err
		}
	}
	opts := sweep.Options{Workers: f.workers, Shard: shard, Stop: stop}
	if f.points {
		if err := mkdir(filepath.Join(f.out, pointsDir)); err != nil {
			return err
		}
		opts.Sink = func(p sweep.Point, _ sim.Config) (sim.Sink, func(bool) error, error) {
			path := filepath.Join(f.out, pointsDir, fmt.Sprintf("point-%06d.parquet", p.Index))
			s, err := export.NewParquetSink(path)
			if err != nil {
				return nil, nil, err
			}
			return s, func(ok bool) error {
				if !ok {
					s.Abort()
					return nil
				}
				if err := s.Close(); err != nil {
					return err
				}
				mu.Lock()
				written = append(written, path)
				mu.Unlock()
				return nil
			}, nil
		}
	}
	n := len(shard.Points(g.Size()))
	clearBar := func() {}
	if isTerminal(stderr) {
		bar := newCountBar(stderr, int64(n), "sweep", "points", "points/s")
		opts.Progress = func(done, _ int) { bar.update(int64(done)) }
		clearBar = bar.done
		defer bar.done()
	}
	res, err := sweep.Run(g, opts)
	clearBar() // before anything is printed
	if err != nil {
		if errors.Is(err, sim.ErrStopped) {
			return fmt.Errorf("interrupted: sweep.parquet not written")
		}
		var fe *sim.ValidationError
		if errors.As(err, &fe) {
			return badInput("%s", oneLine(err))
		}
		return err
	}
	rows := sweep.Rows(res)
	info, err := sweepFileInfo(g)
	if err != nil {
		return err
	}
	var wrote []string // for the closing message
	note := func(paths ...string) {
		wrote = append(wrote, paths...)
		written = append(written, paths...)
	}
	if shard.N > 0 {
		dir := filepath.Join(f.out, partsDir)
		if err := mkdir(dir); err != nil {
			return err
		}
		p := filepath.Join(dir, fmt.Sprintf("part-%04d-of-%04d.parquet", shard.I, shard.N))
		if err := export.WriteSweepParquet(p, rows, info); err != nil {
			return err
		}
		note(p)
	} else {
		p := filepath.Join(f.out, sweepFile)
		if err := export.WriteSweepParquet(p, rows, info); err != nil {
			return err
		}
		note(p)
		var b strings.Builder
		if err := export.WriteSweepTable(&b, rows); err != nil {
			return err
		}
		tp := filepath.Join(f.out, sweepTable)
		if err := export.WriteFileAtomic(tp, []byte(b.String())); err != nil {
			return err
		}
		note(tp)
		if !f.noPlots {
			ps, err := export.WriteSweepPlots(f.out, rows, g.Axes)
			note(ps...)
			if err != nil {
				return err
			}
		}
	}
	if p, err := f.writeSweepReport(g, rows); err != nil {
		return err
	} else if p != "" {
		note(p)
	}

	fmt.Fprintf(stdout, "fleetsim %s sweep: %d points", version, n)
	if shard.N > 0 {
		fmt.Fprintf(stdout, " (shard %s of %d points)", shard, g.Size())
	}
	fmt.Fprintf(stdout, ", %d workers\n\n", sweep.Workers(f.workers, n))
	if err := export.WriteSweepTable(stdout, rows); err != nil {
		return err
	}
	// A shard's run leaves the other shards' parts alone: it records only
	// the kind.
	var recorded []string
	if shard.N == 0 {
		recorded = written
	}
	if err := finishRunDir(f.out, kindSweep, recorded, shard.N == 0); err != nil {
		return err
	}
	if f.points {
		wrote = append(wrote, filepath.Join(f.out, pointsDir)+"/point-*.parquet")
	}
	fmt.Fprintf(stderr, "wrote %s\n", strings.Join(wrote, ", "))
	return nil
}

// outDir is --out, or by default ./sweep for a grid and ./maxrate for
// --find-max-rate (so that a search does not write into a grid's
// directory).
func (f *sweepFlags) outDir() string {
	if f.findMax && !f.fs.Changed("out") {
		return "maxrate"
	}
	return f.out
}
