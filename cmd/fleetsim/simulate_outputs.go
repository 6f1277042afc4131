package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/fleetsim/fleetsim/sim"
	"github.com/fleetsim/fleetsim/sim/export"
)

// Output files of simulate besides requests.parquet and summary.json.
const (
	seriesFile       = "timeseries.parquet"
	requestsCSVFile  = "requests.csv"
	requestsJSONFile = "requests.jsonl"
)

// simOutputs are simulate's optional outputs: the time series, per-request
// CSV/JSONL and the HTML report (docs/report.md).
type simOutputs struct {
	interval  string   // --timeseries-interval
	formats   []string // --requests-format
	report    string   // --report
	intervalS float64  // parsed interval, s; 0: no time series
}

func (o *simOutputs) register(fs *pflag.FlagSet) {
	fs.StringVar(&o.interval, "timeseries-interval", "1s", "time series interval in simulated time (500ms, 2s, 10): DIR/"+seriesFile+" per pool per interval; 0 or off: none")
	fs.StringSliceVar(&o.formats, "requests-format", []string{"parquet"}, "per-request outputs, comma-separated: parquet (DIR/"+requestsFile+"), csv (DIR/"+requestsCSVFile+"), jsonl (DIR/"+requestsJSONFile+"); the same rows in each")
	fs.StringVar(&o.report, "report", "", "also write a self-contained HTML report to `FILE` (fleetsim report DIR writes one later)")
}

// check parses the flags; errors are bad input.
func (o *simOutputs) check(noParquet bool) error {
	if o.interval == "off" {
		o.intervalS = 0
	} else {
		v, err := parseSeconds(o.interval)
		if err != nil || v != 0 && !(v >= sim.MinSeriesIntervalS && v <= sim.MaxArrivalS) {
			return badInput("--timeseries-interval %q: want a duration from 1ms to %gs such as 1s or 500ms, or 0/off for none", o.interval, sim.MaxArrivalS)
		}
		o.intervalS = v
	}
	if len(o.formats) == 0 {
		return badInput("--requests-format \"\": want one or more of parquet, csv, jsonl (comma-separated; --no-parquet alone writes no per-request file)")
	}
	for i, f := range o.formats {
		if !slices.Contains([]string{"parquet", "csv", "jsonl"}, f) {
			return badInput("--requests-format %q: allowed: parquet, csv, jsonl (comma-separated)", f)
		}
		if slices.Contains(o.formats[:i], f) {
			return badInput("--requests-format %q: %s named twice", strings.Join(o.formats, ","), f)
		}
	}
	if noParquet {
		o.formats = slices.DeleteFunc(o.formats, func(f string) bool { return f == "parquet" })
	}
	return checkReportPath(o.report)
}

// checkReportPath checks a --report FILE (empty: none); errors are bad
// input.
func checkReportPath(p string) error {
	if p == "" {
		return nil
	}
	if err := export.CheckReplaceable(p); err != nil {
		return badInput("--report %q: %s", p, oneLine(err))
	}
	if filepath.Ext(p) != ".html" && filepath.Ext(p) != ".htm" {
		return badInput("--report %q: want an .html file name", p)
	}
	return nil
}

// parquet tells whether requests.parquet is written.
func (o *simOutputs) parquet() bool { return slices.Contains(o.formats, "parquet") }

// names are the files written inside --out (besides summary.json).
func (o *simOutputs) names() []string {
	var n []string
	if o.parquet() {
		n = append(n, requestsFile)
	}
	if slices.Contains(o.formats, "csv") {
		n = append(n, requestsCSVFile)
	}
	if slices.Contains(o.formats, "jsonl") {
		n = append(n, requestsJSONFile)
	}
	if o.intervalS > 0 {
		n = append(n, seriesFile)
	}
	return n
}

// simRun holds the optional sinks of one simulate run.
type simRun struct {
	o      *simOutputs
	dir    string
	text   []*export.TextSink
	series *export.SeriesSink
	coll   *export.RunCollector // for --report
}

// start opens the optional sinks; sink is requests.parquet's (may be nil).
// It returns the sink the run writes to and sets opts.Series.
func (o *simOutputs) start(dir string, info export.FileInfo, sink sim.Sink, opts *sim.Options) (*simRun, sim.Sink, error) {
	r := &simRun{o: o, dir: dir}
	sinks := []sim.Sink{}
	if sink != nil {
		sinks = append(sinks, sink)
	}
	for _, f := range o.formats {
		var name string
		switch f {
		case "csv":
			name = requestsCSVFile
		case "jsonl":
			name = requestsJSONFile
		default:
			continue
		}
		t, err := export.NewTextSinkInfo(filepath.Join(dir, name), f, info)
		if err != nil {
			r.abort()
			return nil, nil, err
		}
		r.text = append(r.text, t)
		sinks = append(sinks, t)
	}
	var series []sim.SeriesSink
	if o.intervalS > 0 {
		s, err := export.NewSeriesSink(filepath.Join(dir, seriesFile), info)
		if err != nil {
			r.abort()
			return nil, nil, err
		}
		r.series = s
		series = append(series, s)
	}
	if o.report != "" {
		r.coll = export.NewRunCollector()
		sinks = append(sinks, r.coll)
		if o.intervalS > 0 {
			series = append(series, r.coll)
		}
	}
	if len(series) > 0 {
		opts.Series = sim.SeriesOptions{Sink: export.TeeSeries(series), IntervalS: o.intervalS}
	}
	switch len(sinks) {
	case 0:
		return r, nil, nil
	case 1:
		return r, sinks[0], nil
	}
	return r, export.TeeSink(sinks), nil
}

// abort discards every optional file (a no-op for those already closed).
func (r *simRun) abort() {
	for _, t := range r.text {
		t.Abort()
	}
	if r.series != nil {
		r.series.Abort()
	}
}

// close commits the optional files; it returns the outputs for summary.json,
// the paths written and how stdout names them.
func (r *simRun) close() (outs []export.OutputFile, paths, labels []string, err error) {
	for _, t := range r.text {
		if err := t.Close(); err != nil {
			return outs, paths, labels, err
		}
		outs = append(outs, export.OutputFile{Name: filepath.Base(t.Path()), Kind: t.Format()})
		paths = append(paths, t.Path())
		labels = append(labels, fmt.Sprintf("%s (%d rows)", t.Path(), t.Rows()))
	}
	if r.series != nil {
		if err := r.series.Close(); err != nil {
			return outs, paths, labels, err
		}
		// Not listed in summary.json's outputs: the summary stays
		// byte-identical with and without a time series.
		paths = append(paths, r.series.Path())
		labels = append(labels, fmt.Sprintf("%s (%d rows)", r.series.Path(), r.series.Rows()))
	}
	return outs, paths, labels, nil
}

// writeReport writes --report from the collected run as a file of set.
func (r *simRun) writeReport(set *export.OutputSet, sum *sim.Summary, outputs []export.OutputFile) (string, error) {
	if r.coll == nil {
		return "", nil
	}
	names := make([]string, len(outputs), len(outputs)+1)
	for i, o := range outputs {
		names[i] = o.Name
	}
	if r.series != nil { // not in summary.json's outputs (see close), but a file of the run
		names = append(names, filepath.Base(r.series.Path()))
	}
	rep := r.coll.Report(sum, "fleetsim simulate", r.dir, strings.Join(names, ", "))
	if d := filepath.Dir(r.o.report); d != "" {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return "", fmt.Errorf("--report %s: %w", r.o.report, err)
		}
	}
	b, err := rep.HTML()
	if err == nil {
		err = set.WriteFile(r.o.report, b)
	}
	if err != nil {
		return "", err
	}
	return r.o.report, nil
}

// testHookReplaced, when set (tests), is called once replaceRunFiles has
// put the files in place, before it checks for a stop signal.
var testHookReplaced func(*interrupter)

// replaceRunFiles puts in place a run whose files are all finished in set
// (wrote their paths): it adds dir's marker to the set and replaces the
// earlier run's files with the set's. A stop signal noticed before the set
// is in place, or while it is put in place, puts the earlier files back:
// the run then wrote nothing. Until the caller calls finish, set.Abort
// still puts the earlier files back (a failure printing the results);
// finish drops them and removes the earlier run's files this run did not
// write (removeUnwritten).
func replaceRunFiles(set *export.OutputSet, dir, kind string, wrote []string, intr *interrupter) (finish func() error, err error) {
	old := markerFiles(dir)
	data, names := markerData(dir, kind, wrote, set.Lstat)
	if err := set.WriteFile(filepath.Join(dir, runMarker), data); err != nil {
		return nil, err
	}
	if err := intr.err("no output written"); err != nil {
		return nil, err // the caller's set.Abort removes the staged files
	}
	if err := set.Replace(); err != nil {
		return nil, err
	}
	if testHookReplaced != nil {
		testHookReplaced(intr)
	}
	if err := intr.err("no output written"); err != nil {
		return nil, err // the caller's set.Abort puts the earlier files back
	}
	return func() error {
		set.Finish()
		return removeUnwritten(dir, old, names)
	}, nil
}
