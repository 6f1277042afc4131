package main

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// reportDir is the generated report kept in the repository.
var reportDir = filepath.Join("..", "..", "docs", "results")

// reportArgs is the reduced run that generates docs/results (the slow
// experiments at 20,000 requests per fleet).
var reportArgs = []string{"experiment", "all", "--requests", "20000"}

// TestExperimentsReportUpToDate regenerates docs/results (EXPERIMENTS.md,
// the CSVs and the figures) with the reduced run and checks that the
// committed files are byte for byte the same, that every PNG decodes and
// that every figure the report embeds exists. Rewrite the files with
// go test ./cmd/fleetsim -run TestExperimentsReportUpToDate -update.
func TestExperimentsReportUpToDate(t *testing.T) {
	if testing.Short() {
		t.Skip("regenerates every experiment (~8 s)")
	}
	dir := t.TempDir()
	if code, _, errs := runCLI(t, append(reportArgs, "--out", dir)...); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	got, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		old, _ := filepath.Glob(filepath.Join(reportDir, "*"))
		for _, f := range old {
			os.Remove(f)
		}
		if err := os.MkdirAll(reportDir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	var names []string
	for _, e := range got {
		names = append(names, e.Name())
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(e.Name(), ".png") {
			if _, err := png.Decode(bytes.NewReader(b)); err != nil {
				t.Errorf("%s: %v", e.Name(), err)
			}
		}
		path := filepath.Join(reportDir, e.Name())
		if *update {
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil || !bytes.Equal(b, want) {
			t.Errorf("docs/results/%s is out of date (regenerate with -update): %v", e.Name(), err)
		}
	}
	committed, _ := os.ReadDir(reportDir)
	for _, e := range committed {
		if !slices.Contains(names, e.Name()) {
			t.Errorf("docs/results/%s is not generated any more: remove it (-update)", e.Name())
		}
	}
	md, _ := os.ReadFile(filepath.Join(dir, "EXPERIMENTS.md"))
	for _, n := range names {
		if strings.HasSuffix(n, ".png") && !strings.Contains(string(md), "("+n+")") {
			t.Errorf("EXPERIMENTS.md does not embed %s", n)
		}
	}
	if !slices.Contains(names, "tokenbudget-figure6.png") || !slices.Contains(names, "tokenbudget-figure6.svg") {
		t.Errorf("no Figure 6 files among %v", names)
	}
}

// TestExperimentOutBadInput: --out naming a file, or a directory under a
// file, and an unknown --compat are one line and exit 2, and
// nothing is written; a new directory is created with its missing parents.
func TestExperimentOutBadInput(t *testing.T) {
	dir := t.TempDir()
	file := writeFile(t, dir, "f", "x")
	for _, args := range [][]string{
		{"experiment", "fleetopt-table1", "--out", file},
		{"experiment", "fleetopt-table1", "--out", filepath.Join(file, "such")},
		{"experiment", "fleetopt-table1", "--compat", "paper"},
	} {
		code, _, errs := runCLI(t, args...)
		if code != 2 || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
			t.Errorf("%v: exit %d, stderr %q", args, code, errs)
		}
	}
	out := filepath.Join(dir, "new", "er") // missing parents are created (issue 19)
	if code, _, errs := runCLI(t, "experiment", "fleetopt-table1", "--out", out); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, f := range []string{"EXPERIMENTS.md", "fleetopt-table1.csv"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
}
