package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOutputFlagsCreateDirectories: every output flag creates the missing
// directories of its path, as simulate's and sweep's --out always did
// (issue 19: `capacity --plot-dir` had to exist, `plan --out a/plan.json`
// was refused when a/ was missing).
func TestOutputFlagsCreateDirectories(t *testing.T) {
	// The first 300 requests of the Azure conversation trace: plots of the
	// whole trace take seconds.
	full := readBytes(t, filepath.Join("..", "..", "workload", "testdata", "AzureLLMInferenceTrace_conv.csv"))
	lines := strings.SplitAfterN(string(full), "\n", 302)
	trace := writeFile(t, t.TempDir(), "conv300.csv", strings.Join(lines[:301], ""))
	variantsFile := filepath.Join("..", "..", "examples", "variants.yaml")
	for _, tc := range []struct {
		name  string
		args  func(d string) []string
		files []string // relative to d
	}{
		{"plan --out", func(d string) []string { return []string{"plan", "--out", filepath.Join(d, "a/b/plan.json")} }, []string{"a/b/plan.json"}},
		{"fit --out --plot", func(d string) []string {
			return []string{"fit", "--from-sim", "--gpu", "a100", "--timing", "paper", "--out", filepath.Join(d, "p/prof.json"), "--plot", filepath.Join(d, "q/r/fit.png")}
		}, []string{"p/prof.json", "q/r/fit.png"}},
		{"optimize --out", func(d string) []string {
			return []string{"optimize", "--config", variantsFile, "--out", filepath.Join(d, "o/opt.json")}
		}, []string{"o/opt.json"}},
		{"capacity --out --plot-dir", func(d string) []string {
			return []string{"capacity", "--trace", trace, "--out", filepath.Join(d, "c/cap.txt"), "--plot-dir", filepath.Join(d, "plots/cap")}
		}, []string{"c/cap.txt", "plots/cap/" + capacityPlotNames[0], "plots/cap/" + capacityPlotNames[1]}},
		{"experiment --out", func(d string) []string {
			return []string{"experiment", "fleetopt-table1", "--out", filepath.Join(d, "e/f")}
		}, []string{"e/f/EXPERIMENTS.md"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := t.TempDir()
			code, _, errOut := runCLI(t, tc.args(d)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			for _, f := range tc.files {
				if fi, err := os.Stat(filepath.Join(d, f)); err != nil || !fi.Mode().IsRegular() {
					t.Errorf("%s: not written (%v)", f, err)
				}
			}
		})
	}
	// A path through an existing regular file is still bad input.
	d := t.TempDir()
	if err := os.WriteFile(filepath.Join(d, "file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := runCLI(t, "plan", "--out", filepath.Join(d, "file", "x", "plan.json")); code != 2 {
		t.Errorf("--out through a regular file: exit %d (%s), want 2", code, errOut)
	}
}
