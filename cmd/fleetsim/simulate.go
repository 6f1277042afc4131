package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/fleetsim/fleetsim/pools/catalog"
	"github.com/fleetsim/fleetsim/sim"
	"github.com/fleetsim/fleetsim/sim/export"
	"github.com/fleetsim/fleetsim/workload"
)

func init() {
	register("simulate", "simulate a fleet and write per-request Parquet and a run summary (the default command)", runSimulate)
}

// Output file names inside --out.
const (
	requestsFile = "requests.parquet"
	summaryFile  = "summary.json"
	poolsCSVFile = "pools.csv"
)

// simFlags are the simulate command's flags.
type simFlags struct {
	fs         *pflag.FlagSet
	config     string
	workload   string
	trace      string
	traceFmt   string
	arrival    string
	profile    string
	rate       float64
	requests   int
	seed       uint64
	pools      []string
	timing     string
	compat     string
	dispatch   string
	queueLimit int
	router     string
	categories string
	bShort     int
	gamma      float64
	pc         float64
	spillQ     float64
	emaDecay   float64
	plan       string
	planMethod string
	warmup     float64
	sloTTFT    float64
	sloTPOT    float64
	out        string
	noParquet  bool
	osd        string
	csv        bool
	format     string
	version    bool
	extra      simOutputs // time series, CSV/JSONL, report (simulate_outputs.go)
	day        dayFlags   // autoscaler, scaling, adaptive B_short (autoscale.go)
}

func newSimFlags() *simFlags {
	d := sim.Defaults()
	f := &simFlags{fs: pflag.NewFlagSet("simulate", pflag.ContinueOnError)}
	fs := f.fs
	fs.SortFlags = false
	fs.StringVar(&f.config, "config", "", "scenario `FILE` (YAML, or JSON when it ends in .json); flags override it")
	fs.StringVar(&f.workload, "workload", d.Workload.CDF, "token-length CDF `NAME`: azure, lmsys, agent-heavy, or a CDF JSON file")
	fs.StringVar(&f.trace, "trace", "", "replay a trace `FILE` instead of a CDF (Azure LLM trace .csv or Mooncake .jsonl; - reads stdin, with --trace-format)")
	fs.StringVar(&f.traceFmt, "trace-format", "", "trace format: azure or mooncake (default: by extension)")
	fs.StringVar(&f.arrival, "arrival", "poisson", "arrival process with a CDF: poisson or bursty")
	fs.StringVar(&f.profile, "rate-profile", "", "time-varying arrival rate `KIND:PARAMS` (docs/day.md): const:RATE, sin:mean=M,ratio=R,period=P,peak=T, step:T=RATE,..., linear:T=RATE,..., trace-shape:FILE,bucket=B,mean=M")
	fs.Float64Var(&f.rate, "rate", d.Workload.Rate, "mean arrival rate, requests/s (with --trace: rescale the trace to it; default its own rate)")
	fs.IntVar(&f.requests, "requests", d.Workload.Requests, "number of requests (a trace may hold fewer)")
	fs.Uint64Var(&f.seed, "seed", d.Seed, "random seed; the same seed gives byte-identical outputs")
	fs.StringArrayVar(&f.pools, "pool", nil, "a pool `NAME:GPU:COUNT:MAXCTX` (repeatable; replaces the default pools "+poolsString(d.Pools)+")")
	fs.StringVar(&f.timing, "timing", d.Timing, "iteration timing preset: auto (prompt tokens charged: calibrated for computed A100/H100 instances, kv + calibrated prefill for the hand-written profiles, else kv), kv (t = W + H/8192·kv_tokens), paper (t = W + H·n_active), measured or calibrated (computed instances with data; prompt tokens charged)")
	fs.StringVar(&f.compat, "compat", "", "papers: run the papers' default scenario (their fleet "+poolsString(sim.PapersDefaults().Pools)+" under kv timing, prompt tokens free) in place of the default; not with --config, --pool, --plan or --timing")
	fs.StringVar(&f.dispatch, "dispatch", sim.DispatchCentral, "dispatch inside every pool: central (one FCFS queue), jsq (join shortest queue) or rr (round robin)")
	fs.IntVar(&f.queueLimit, "queue-limit", 0, "most requests waiting in each pool; arrivals beyond it are rejected (0: no limit)")
	fs.StringVar(&f.router, "router", d.Router.Kind, "router: length, token-budget, spillover or cr (docs/router.md)")
	fs.StringVar(&f.categories, "categories", "", "content mix `NAME=SHARE,...` over prose, code, cjk, rag, mixed; shares sum to 1 (default prose=1)")
	fs.IntVar(&f.bShort, "b-short", 0, "token-budget, spillover, cr: short-pool threshold B_short on the estimated L_in + max_output, tokens (default: the smallest pool's max context)")
	fs.Float64Var(&f.gamma, "gamma", 0, "cr: C&R bandwidth γ >= 1, requests estimated in (B_short, γ·B_short] are compressed (default 1.5)")
	fs.Float64Var(&f.pc, "p-c", 0, "cr: compression success probability, in (0, 1] (default 1)")
	fs.Float64Var(&f.spillQ, "spill-queue-per-gpu", 0, "spillover, cr: queued requests per GPU above which a pool is overloaded and requests spill to another pool that can serve them, > 0 (default 4 for spillover; cr: no spillover)")
	fs.Float64Var(&f.emaDecay, "ema-decay", 0, "token-budget, spillover, cr: decay β of the bytes-per-token EMA, in (0, 1) (default 0.95)")
	fs.StringVar(&f.plan, "plan", "", "simulate the fleet of a plan `FILE` written by 'fleetsim plan --format json' (its pools, router settings, workload and rate; flags override the workload, rate and router)")
	fs.StringVar(&f.planMethod, "plan-method", "", "with --plan: the plan's method to simulate: homo, pr, retrofit or fleetopt (needed when the plan holds several)")
	fs.Float64Var(&f.warmup, "warmup", d.WarmupFraction, "fraction of the first arrivals kept in the output as warm-up and left out of the metrics, in [0, 1)")
	f.sloTTFT, f.sloTPOT = d.SLO.TTFTS, d.SLO.TPOTS
	fs.Var(secondsValue{&f.sloTTFT}, "slo-ttft", "TTFT target for SLO attainment (500ms, 0.5s, or seconds)")
	fs.Var(secondsValue{&f.sloTPOT}, "slo-tpot", "TPOT target for SLO attainment (80ms, 0.08s, or seconds)")
	fs.StringVar(&f.out, "out", "out", "output `DIR`: DIR/"+requestsFile+" and DIR/"+summaryFile+" (created if missing)")
	fs.StringVar(&f.osd, "osd", sim.OSDMonitor, "over-saturation detector (guidellm's OSD, per pool and for the fleet, docs/osd.md): monitor (report whether and when it fired), enforce (also stop the run there) or off")
	fs.BoolVar(&f.noParquet, "no-parquet", false, "do not write "+requestsFile)
	f.day.register(fs)
	f.extra.register(fs)
	fs.BoolVar(&f.csv, "csv", false, "also write the per-pool table to DIR/"+poolsCSVFile)
	fs.StringVar(&f.format, "format", "table", "stdout: table (per-pool Markdown table) or json (summary.json's content)")
	fs.BoolVar(&f.version, "version", false, "print the version and exit")
	return f
}

func poolsString(ps []sim.PoolConfig) string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = fmt.Sprintf("%s:%s:%d:%d", p.Name, p.GPU, p.Count, p.MaxContext)
	}
	return strings.Join(s, ", ")
}

func simulateUsage(w io.Writer, fs *pflag.FlagSet) {
	fmt.Fprint(w, `Usage: fleetsim simulate [flags]

Simulates a fleet of GPU pools serving a workload, iteration by iteration,
and writes DIR/requests.parquet (one row per request) and DIR/summary.json
(config, seed, version, per-pool metrics). Without flags it runs the default
scenario: the Azure CDF at 1,000 req/s, 100,000 requests, the FleetOpt
pool-routing shape sized for prompt tokens charged, short:a100:161:4096 +
long:a100:153:65536, auto timing (kv + calibrated prefill), seed 1, output
in ./out. --compat papers runs the papers' fleet short:a100:43:4096 +
long:a100:131:65536 under kv timing instead (docs/model.md, presets).

Settings apply in order: defaults, then --config FILE, then flags. Bad input
exits with status 2, one line on stderr, and writes no file.

Flags:
`)
	fmt.Fprint(w, fs.FlagUsagesWrapped(100))
	fmt.Fprintf(w, "\nGPUs: %s, or a computed instance GPU/MODEL/tpN (fleetsim catalog; docs/catalog.md). See docs/cli.md for the scenario file format and the Parquet schema.\n",
		strings.Join(catalog.AcceptedGPUNames(), ", "))
}

// parsePool parses NAME:GPU:COUNT:MAXCTX.
func parsePool(s string) (sim.PoolConfig, error) {
	parts := strings.Split(s, ":")
	if len(parts) != 4 {
		return sim.PoolConfig{}, fmt.Errorf("--pool %q: want NAME:GPU:COUNT:MAXCTX (e.g. short:a100:43:4096)", s)
	}
	count, err := strconv.Atoi(parts[2])
	if err != nil {
		return sim.PoolConfig{}, fmt.Errorf("--pool %q: COUNT %q is not an integer (want NAME:GPU:COUNT:MAXCTX)", s, parts[2])
	}
	maxCtx, err := strconv.Atoi(parts[3])
	if err != nil {
		return sim.PoolConfig{}, fmt.Errorf("--pool %q: MAXCTX %q is not an integer number of tokens (want NAME:GPU:COUNT:MAXCTX)", s, parts[3])
	}
	return sim.PoolConfig{Name: parts[0], GPU: parts[1], Count: count, MaxContext: maxCtx}, nil
}

// base is the scenario the run starts from: sim.Defaults, or with
// --compat papers sim.PapersDefaults (the papers' fleet and kv timing),
// which the flags that would replace its fleet or timing may not join.
func (f *simFlags) base() (sim.Config, error) {
	if !f.fs.Changed("compat") {
		return sim.Defaults(), nil
	}
	if f.compat != CompatPapers {
		return sim.Config{}, fmt.Errorf("--compat %q: allowed: papers (or leave it out)", f.compat)
	}
	for _, fl := range []string{"config", "pool", "plan", "timing"} {
		if f.fs.Changed(fl) {
			return sim.Config{}, compatConflict("--" + fl)
		}
	}
	return sim.PapersDefaults(), nil
}

// compatConflict is the error of an input (what: a flag, or a sweep file's
// scenario) that would replace what --compat papers fixes.
func compatConflict(what string) error {
	return fmt.Errorf("%s: not with --compat papers, which fixes the fleet (%s) and the timing (kv); give one of them", what, poolsString(sim.PapersDefaults().Pools))
}

// scenario builds the run's configuration: defaults, then the scenario file,
// then the flags that were given. It does not validate.
func (f *simFlags) scenario() (sim.Config, error) {
	cfg, err := f.base()
	if err != nil {
		return cfg, err
	}
	var keys scenarioKeys
	if f.config != "" {
		var err error
		if keys, err = loadScenario(f.config, &cfg); err != nil {
			return cfg, err
		}
		for _, fl := range []string{"pool", "plan", "timing"} {
			if keys.compat && f.fs.Changed(fl) {
				return cfg, fileCompatConflict("--" + fl)
			}
		}
	}
	ch := f.fs.Changed
	w := &cfg.Workload
	var pr planRouter
	switch {
	case ch("plan"):
		if ch("pool") {
			return cfg, fmt.Errorf("--pool and --plan %q: the plan gives the pools; give one of them", f.plan)
		}
		var pk scenarioKeys
		var err error
		if pr, pk, err = applyPlan(f.plan, f.planMethod, ch("workload") || ch("trace"), &cfg); err != nil {
			return cfg, err
		}
		keys.rate = keys.rate || pk.rate
		if pk.cdf {
			keys.trace = false
		}
	case ch("plan-method"):
		return cfg, fmt.Errorf("--plan-method %q: needs --plan FILE", f.planMethod)
	}
	if ch("workload") && ch("trace") {
		return cfg, fmt.Errorf("--workload %q and --trace %q: give one of them", f.workload, f.trace)
	}
	if ch("workload") {
		w.CDF, w.Trace, w.TraceFormat = f.workload, "", ""
	}
	if ch("trace") {
		// A trace replaces a CDF workload with its split model (a trace
		// gives each request's lengths).
		w.CDF, w.Trace = "", f.trace
		w.Split, w.InputFraction, w.OutputMu, w.OutputSigma = "", 0, 0, 0
		if !keys.trace { // a format from the file belongs to the file's trace
			w.TraceFormat = ""
		}
	}
	if ch("trace-format") {
		w.TraceFormat = f.traceFmt
	}
	if ch("arrival") {
		w.Arrival = f.arrival
	}
	if ch("rate-profile") {
		w.RateProfile = f.profile
	}
	// The default rate belongs to the default CDF workload: a trace without
	// an explicit rate replays its own timestamps, and a rate profile gives
	// its own mean.
	switch {
	case ch("rate"):
		w.Rate = f.rate
	case keys.rate:
	case w.Trace != "" || w.RateProfile != "":
		w.Rate = 0
	default:
		w.Rate = sim.Defaults().Workload.Rate
	}
	if ch("requests") {
		w.Requests = f.requests
	}
	if ch("seed") {
		cfg.Seed = f.seed
	}
	if ch("pool") {
		cfg.Pools = nil
		for _, s := range f.pools {
			p, err := parsePool(s)
			if err != nil {
				return cfg, err
			}
			cfg.Pools = append(cfg.Pools, p)
		}
	}
	if ch("timing") {
		cfg.Timing = f.timing
	}
	for i := range cfg.Pools {
		if ch("dispatch") {
			cfg.Pools[i].Dispatch = f.dispatch
		}
		if ch("queue-limit") {
			cfg.Pools[i].QueueLimit = f.queueLimit
		}
	}
	if ch("categories") {
		m, err := parseCategories(f.categories)
		if err != nil {
			return cfg, err
		}
		w.Categories = m
	}
	if err := f.routerScenario(&cfg.Router, pr); err != nil {
		return cfg, err
	}
	if ch("warmup") {
		cfg.WarmupFraction = f.warmup
	}
	if ch("slo-ttft") {
		cfg.SLO.TTFTS = f.sloTTFT
	}
	if ch("slo-tpot") {
		cfg.SLO.TPOTS = f.sloTPOT
	}
	if ch("osd") {
		cfg.OSD.Mode = f.osd
	}
	return cfg, f.day.apply(f.fs, &cfg)
}

func runSimulate(args []string, stdout, stderr io.Writer) error {
	f := newSimFlags()
	if help, err := parseFlags("simulate", f.fs, args, stdout, simulateUsage, true); help || err != nil {
		return err
	}
	if f.version {
		fmt.Fprintf(stdout, "fleetsim %s\n", version)
		return nil
	}
	if f.fs.NArg() > 0 {
		return badInput("unexpected argument %q (flags only; run 'fleetsim simulate --help')", f.fs.Arg(0))
	}
	if f.format != "table" && f.format != "json" {
		return badInput("--format %q: allowed: table, json", f.format)
	}
	if f.out == "" {
		return badInput("--out \"\": an output directory is needed")
	}
	if err := f.extra.check(f.noParquet); err != nil {
		return err
	}
	cfg, err := f.scenario()
	if err != nil {
		return badInput("%s", err)
	}
	if err := loadDayFiles(&cfg); err != nil {
		return badInput("%s", oneLine(err))
	}
	if err := cfg.Validate(); err != nil {
		return badInput("%s", oneLine(err))
	}
	// Everything that can fail on bad input (the CDF file, every trace row
	// used) is checked here, before any output exists.
	src, err := workload.NewSource(cfg.Workload, cfg.Seed)
	if err != nil {
		return badInput("%s", workloadError(err))
	}
	if sz, ok := src.(workload.Sized); ok && cfg.Workload.Trace != "" && sz.Len() < int64(cfg.Workload.Requests) {
		fmt.Fprintf(stderr, "fleetsim simulate: note: trace %s has %d rows, fewer than --requests %d: replaying %d (warm-up %d)\n",
			cfg.Workload.Trace, sz.Len(), cfg.Workload.Requests, sz.Len(), int64(cfg.WarmupFraction*float64(sz.Len())))
	}
	// The summary records the effective settings, defaults spelled out.
	cfg = cfg.Effective()
	if err := checkCreatableDir("--out", f.out, f.out); err != nil {
		return err
	}
	for _, name := range f.outputNames() {
		if err := export.CheckReplaceable(filepath.Join(f.out, name)); err != nil {
			return badInput("--out %q: %s", f.out, oneLine(err))
		}
	}
	if err := checkRunDir(f.out, kindSimulate); err != nil {
		return err
	}
	return simulate(cfg, src, f, stdout, stderr)
}

// outputNames are the files a run writes inside --out.
func (f *simFlags) outputNames() []string {
	names := append([]string{summaryFile}, f.extra.names()...)
	if f.csv {
		names = append(names, poolsCSVFile)
	}
	return names
}

// testHookRan, when set (tests), is called once the simulation has ended,
// before the outputs are finished: a test delivers a stop signal there.
var testHookRan func(*interrupter)

// simulate runs a validated scenario and writes its outputs.
func simulate(cfg sim.Config, src workload.Source, f *simFlags, stdout, stderr io.Writer) (err error) {
	gcOn := setUpGC()
	defer gcOn()
	createdDir := false
	if _, statErr := os.Stat(f.out); os.IsNotExist(statErr) {
		createdDir = true
	}
	if err := os.MkdirAll(f.out, 0o755); err != nil {
		return fmt.Errorf("creating --out %s: %w", f.out, err)
	}
	defer func() {
		if err != nil && createdDir {
			os.Remove(f.out) // only if empty
		}
	}()
	// Its files replace an earlier run's as one set (export.OutputSet):
	// a second fleetsim run into the same --out is refused meanwhile, as
	// for a sweep (TestSimulateOutLocked). Released before the directory
	// it created is removed (deferred calls run last first).
	unlock, err := export.LockDir(f.out)
	if err != nil {
		return err
	}
	defer unlock()

	// A stop signal (stopSignals) ends the run at its next arrival or
	// tick; nothing is written then. Handled before any file exists.
	intr := catchSignals()
	defer intr.release()

	var (
		sink    sim.Sink
		parquet *export.ParquetSink
	)
	scen, err := json.Marshal(cfg)
	if err != nil {
		return err
	}
	// Every output of the run is a file of set (export.OutputSet): all
	// replace an earlier run's files, or none does.
	set := export.NewOutputSet()
	defer set.Abort() // a no-op once the files are in place
	info := export.FileInfo{
		Set:     set,
		Version: version,
		Meta:    timingMeta(cfg, map[string]string{export.MetaSeed: strconv.FormatUint(cfg.Seed, 10), export.MetaScenario: string(scen)}),
		// The prefix-cache/disaggregation columns (docs/prefix.md).
		Extended: cfg.ExtendedRecords(),
	}
	if f.extra.parquet() {
		parquet, err = export.NewParquetSinkInfo(filepath.Join(f.out, requestsFile), info)
		if err != nil {
			return err
		}
		defer parquet.Abort() // no-op after a successful Close
		sink = parquet
	}

	opts := sim.Options{Stop: intr.stopped}
	extra, sink, err := f.extra.start(f.out, info, sink, &opts)
	if err != nil {
		return err
	}
	defer extra.abort() // no-op for the files closed
	clearBar := func() {}
	if isTerminal(stderr) {
		total := int64(cfg.Workload.Requests)
		if sz, ok := src.(workload.Sized); ok {
			total = sz.Len()
		}
		bar := newProgressBar(stderr, total)
		opts.Progress = bar.update
		clearBar = bar.done
		defer bar.done()
	}
	gcOn()
	sum, err := sim.Run(cfg, src, sink, opts)
	clearBar() // before anything is printed
	if err != nil {
		if errors.Is(err, sim.ErrStopped) {
			return intr.err("no output written")
		}
		if errors.Is(err, export.ErrSeriesTooLong) {
			return badInput("--timeseries-interval %q: %v; a longer interval, or off", f.extra.interval, export.ErrSeriesTooLong)
		}
		return err
	}
	if err := src.Err(); err != nil {
		return badInput("%s", workloadError(err))
	}
	if testHookRan != nil {
		testHookRan(intr)
	}
	if sum.Version == "" {
		sum.Version = version
	}

	var outputs []export.OutputFile
	var wrote, labels []string // paths written; how stdout names them
	// The files are finished under their temporary names first (set);
	// requests.parquet and the rest replace an earlier run's files only
	// once every one is, so a failure or a stop signal before then leaves
	// the earlier files as they were (TestFailedRerunKeepsEarlierFilesEach).
	if parquet != nil {
		if err := parquet.Close(); err != nil {
			return err
		}
		st := parquet.Stats()
		outputs = append(outputs, export.OutputFile{Name: requestsFile, Kind: "parquet", Stats: &st})
		wrote = append(wrote, parquet.Path())
		labels = append(labels, fmt.Sprintf("%s (%d rows)", parquet.Path(), st.Rows))
	}
	{
		o, p, l, err := extra.close()
		outputs, wrote, labels = append(outputs, o...), append(wrote, p...), append(labels, l...)
		if err != nil {
			return err
		}
	}
	if f.csv {
		var b strings.Builder
		if err := export.WriteTableCSV(&b, sum); err != nil {
			return err
		}
		p := filepath.Join(f.out, poolsCSVFile)
		if err := set.WriteFile(p, []byte(b.String())); err != nil {
			return err
		}
		outputs = append(outputs, export.OutputFile{Name: poolsCSVFile, Kind: "csv"})
		wrote = append(wrote, p)
		labels = append(labels, p)
	}
	sp := filepath.Join(f.out, summaryFile)
	if b, err := export.MarshalSummary(sum, outputs); err != nil {
		return err
	} else if err := set.WriteFile(sp, b); err != nil {
		return err
	}
	wrote = append(wrote, sp)
	labels = append(labels, sp)
	if p, err := extra.writeReport(set, sum, outputs); err != nil {
		return err
	} else if p != "" {
		wrote = append(wrote, p)
		labels = append(labels, p)
	}
	defer catchSIGPIPE()() // printing to a closed pipe fails, not kills
	finish, err := replaceRunFiles(set, f.out, kindSimulate, wrote, intr)
	if err != nil {
		return err
	}

	note := stdout
	if f.format == "json" {
		note = stderr
		if err := export.EncodeSummary(stdout, sum, outputs); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(stdout, "fleetsim %s: %d requests, %s workload, seed %d, %s timing, simulated %.1f s\n\n",
			version, sum.Requests, workloadName(cfg.Workload), cfg.Seed, cfg.TimingLabel(), sum.SimTimeS)
		if err := export.WriteTable(stdout, sum); err != nil {
			return err
		}
		writePoolGPUsNote(stdout, cfg.Pools) // computed TP instances (poolspec.go)
		fmt.Fprintln(stdout)
		if v := export.OSDVerdictLine(sum); v != "" {
			fmt.Fprintf(stdout, "%s\n\n", v)
		}
		if ls := export.ScalingLines(sum); ls != nil {
			fmt.Fprintf(stdout, "%s\n\n", strings.Join(ls, "\n"))
		}
	}
	if sum.OSDStop != nil && f.format == "json" {
		fmt.Fprintln(stderr, export.OSDVerdictLine(sum))
	}
	if _, err = fmt.Fprintf(note, "wrote %s\n", strings.Join(labels, ", ")); err != nil {
		return err // the deferred set.Abort puts the earlier files back
	}
	if err := finish(); err != nil {
		return err
	}
	if st := sum.OSDStop; st != nil {
		who := "pool " + st.By
		if st.By == "fleet" {
			who = "the fleet"
		}
		return &exitStatusError{code: exitOSDStop, msg: fmt.Sprintf(
			"stopped by the over-saturation detector (--osd enforce): %s over-saturated at %.2f s; outputs written (exit status %d)",
			who, st.DetectedAtS, exitOSDStop)}
	}
	return nil
}

// workloadError is a workload error on one line, prefixed "workload".
func workloadError(err error) string {
	msg := oneLine(err)
	if !strings.HasPrefix(msg, "workload") {
		msg = "workload." + msg
	}
	return msg
}

func workloadName(w workload.Spec) string {
	if w.Trace != "" {
		return "trace " + w.Trace
	}
	return w.CDF
}
