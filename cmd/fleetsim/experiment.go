package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/fleetsim/fleetsim/experiments"
	"github.com/spf13/pflag"
)

func init() {
	register("experiment", "reproduce the papers' tables (ours beside the paper's numbers)", runExperiment)
}

func experimentUsage(w io.Writer, fs *pflag.FlagSet) {
	fmt.Fprint(w, `Usage: fleetsim experiment [NAME|all|list] [flags]

Reproduces a table of the FleetOpt or token-budget paper: every number we
compute (planner, router, simulator) stands beside the paper's with the
difference, absolute and in percent. docs/experiments.md explains each
difference. With no NAME (or "list") the experiments are listed.

Experiments:
`)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, e := range experiments.All() {
		slow := ""
		if e.Slow {
			slow = " [simulates]"
		}
		fmt.Fprintf(tw, "  %s\t%s%s\n", e.Name, e.Summary, slow)
	}
	tw.Flush()
	fmt.Fprint(w, "\nFlags:\n")
	fmt.Fprint(w, fs.FlagUsagesWrapped(100))
}

func runExperiment(args []string, stdout, stderr io.Writer) error {
	fs := pflag.NewFlagSet("experiment", pflag.ContinueOnError)
	fs.SortFlags = false
	format := fs.String("format", "markdown", "output: markdown, json or csv")
	requests := fs.Int("requests", 0, "requests per simulated fleet (fleetopt-table5) or per routed category (tokenbudget-table4); 0 = the experiment's default")
	seed := fs.Uint64("seed", 0, "seed override (0 = each experiment's default)")
	plotDir := fs.String("plot-dir", "", "directory where experiments that draw figures write them (PNG and SVG); empty = no figures")
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			experimentUsage(stdout, fs)
			return nil
		}
		return badInput("%s (run 'fleetsim experiment --help')", oneLine(err))
	}
	switch *format {
	case "markdown", "json", "csv":
	default:
		return badInput("--format %q: allowed: markdown, json, csv", *format)
	}
	if *requests < 0 {
		return badInput("--requests %d: must be >= 1 (0 = the experiment's default)", *requests)
	}
	if fs.NArg() > 1 {
		return badInput("unexpected argument %q: give one experiment name (allowed: %s, all)", fs.Arg(1), strings.Join(experiments.Names(), ", "))
	}
	name := "list"
	if fs.NArg() == 1 {
		name = fs.Arg(0)
	}
	var list []experiments.Experiment
	switch name {
	case "list":
		experimentUsage(stdout, fs)
		return nil
	case "all":
		list = experiments.All()
	default:
		e, err := experiments.Lookup(name)
		if err != nil {
			return badInput("%s", err)
		}
		list = []experiments.Experiment{e}
	}
	if *plotDir != "" {
		if st, err := os.Stat(*plotDir); err != nil || !st.IsDir() {
			return badInput("--plot-dir %q: not an existing directory", *plotDir)
		}
	}
	opts := experiments.Options{Requests: *requests, Seed: *seed, PlotDir: *plotDir}
	if isTerminal(stderr) {
		opts.Progress = func(msg string) { fmt.Fprintln(stderr, msg) }
	}
	var tables []experiments.Table
	for _, e := range list {
		t, err := e.Run(opts)
		if err != nil {
			return fmt.Errorf("%s: %w", e.Name, err)
		}
		tables = append(tables, t...)
	}
	switch *format {
	case "json":
		return experiments.WriteJSON(stdout, tables)
	case "csv":
		return experiments.WriteCSV(stdout, tables)
	}
	return experiments.WriteMarkdown(stdout, tables)
}
