package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/pflag"

	"github.com/fleetsim/fleetsim/sim/export"
)

func init() {
	register("report", "write a self-contained HTML report of a simulate or sweep output directory", runReport)
}

// reportHTMLFile is the report's default name inside the directory.
const reportHTMLFile = "report.html"

func reportUsage(w io.Writer, fs *pflag.FlagSet) {
	fmt.Fprint(w, `Usage: fleetsim report [flags] DIR

Reads the output directory of 'fleetsim simulate' (summary.json, and
requests.parquet and timeseries.parquet when present) or of 'fleetsim sweep'
(sweep.parquet) and writes one self-contained HTML file: the run's metadata,
tables and figures as inline SVG (no script, no network). simulate and sweep
write the same report with --report FILE. docs/report.md describes it.

Flags:
`)
	fmt.Fprint(w, fs.FlagUsagesWrapped(100))
}

func runReport(args []string, stdout, stderr io.Writer) error {
	fs := pflag.NewFlagSet("report", pflag.ContinueOnError)
	out := fs.String("out", "", "HTML `FILE` to write (default DIR/"+reportHTMLFile+")")
	if help, err := parseFlags("report", fs, args, stdout, reportUsage, true); help || err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return badInput("want one output directory DIR (got %d arguments; run 'fleetsim report --help')", fs.NArg())
	}
	dir := fs.Arg(0)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return badInput("DIR %q: not a directory", dir)
	}
	path := *out
	if path == "" {
		path = filepath.Join(dir, reportHTMLFile)
	}
	if err := checkReportPath(path); err != nil {
		return err
	}
	rep, err := export.ReadReportDir(dir, "fleetsim report "+dir)
	if err != nil {
		return badInput("%s", oneLine(err))
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	if err := export.WriteReportFile(path, rep); err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "wrote %s\n", path)
	return err
}
