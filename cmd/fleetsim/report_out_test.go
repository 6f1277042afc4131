package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExperimentOutNonRegular: a report file name inside --out DIR that
// exists and is not a regular file (a symlink, a directory) is refused
// with one line and exit 2 before anything is written — outputs may
// replace only regular files — and the symlink is left as it was.
func TestExperimentOutNonRegular(t *testing.T) {
	for _, tt := range []struct {
		name, want string
		make       func(t *testing.T, dir string)
	}{
		{"symlink", "EXPERIMENTS.md exists and is not a regular file", func(t *testing.T, dir string) {
			victim := writeFile(t, t.TempDir(), "victim", "keep")
			if err := os.Symlink(victim, filepath.Join(dir, "EXPERIMENTS.md")); err != nil {
				t.Fatal(err)
			}
		}},
		{"directory", "fleetopt-table1.csv exists and is not a regular file", func(t *testing.T, dir string) {
			if err := os.Mkdir(filepath.Join(dir, "fleetopt-table1.csv"), 0o755); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			tt.make(t, dir)
			before, _ := os.ReadDir(dir)
			code, out, errs := runCLI(t, "experiment", "fleetopt-table1", "--out", dir)
			if code != 2 || !strings.Contains(errs, tt.want) || strings.Count(errs, "\n") != 1 || out != "" {
				t.Errorf("exit %d, stderr %q, stdout %q; want exit 2 and one line containing %q", code, errs, out, tt.want)
			}
			after, _ := os.ReadDir(dir)
			if len(after) != len(before) {
				t.Errorf("files written despite the error: %v", after)
			}
			if fi, err := os.Lstat(filepath.Join(dir, "EXPERIMENTS.md")); tt.name == "symlink" && (err != nil || fi.Mode()&os.ModeSymlink == 0) {
				t.Errorf("the symlink EXPERIMENTS.md was replaced (%v)", err)
			}
		})
	}
}
