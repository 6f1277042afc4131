package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunDirKinds: a run directory says which command wrote it
// (.fleetsim-run); a run of another kind refuses it with one line and exit
// 2 instead of mixing its files with the older run's (issue 19: a maxrate.md
// ended up beside an older sweep's sweep.parquet), also for a directory
// written before the marker existed; a run of the same kind replaces it
// and removes the files it no longer writes.
func TestRunDirKinds(t *testing.T) {
	dir := t.TempDir()
	d := filepath.Join(dir, "run")
	exists := func(name string) bool {
		_, err := os.Stat(filepath.Join(d, name))
		return err == nil
	}
	sim := func(extra ...string) (int, string) {
		code, _, errOut := runCLI(t, append([]string{"simulate", "--requests", "300", "--out", d}, extra...)...)
		return code, errOut
	}
	if code, errOut := sim("--csv"); code != 0 {
		t.Fatalf("simulate: exit %d: %s", code, errOut)
	}
	if b, err := os.ReadFile(filepath.Join(d, runMarker)); err != nil || !strings.HasPrefix(string(b), "kind: simulate\n") {
		t.Fatalf("marker %q, %v; want kind: simulate", b, err)
	}
	// Same kind: replaced; the files this run does not write are removed.
	if code, errOut := sim("--no-parquet"); code != 0 {
		t.Fatalf("simulate again: exit %d: %s", code, errOut)
	}
	if exists(requestsFile) || exists(poolsCSVFile) || !exists(summaryFile) {
		t.Errorf("after a --no-parquet run without --csv: requests.parquet %v, pools.csv %v, summary.json %v; want only summary.json",
			exists(requestsFile), exists(poolsCSVFile), exists(summaryFile))
	}
	// Another kind: refused, nothing changed.
	for _, args := range [][]string{
		{"sweep", "--rates", "100", "--duration", "5", "--out", d},
		{"sweep", "--find-max-rate", "--pool", "a:a10g:1:2048", "--duration", "60", "--out", d},
	} {
		code, out, errOut := runCLI(t, args...)
		if code != 2 || out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "simulate run") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and one line naming the simulate run", args, code, out, errOut)
		}
	}
	if exists(sweepFile) || exists(maxRateFile) {
		t.Error("a refused run wrote into the directory")
	}
	// A directory written before the marker: recognised by its files.
	old := filepath.Join(dir, "old")
	if err := os.MkdirAll(old, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, old, sweepFile, "x")
	code, _, errOut := runCLI(t, "simulate", "--requests", "300", "--out", old)
	if code != 2 || !strings.Contains(errOut, "sweep run") {
		t.Errorf("simulate into an old sweep directory: exit %d, stderr %q; want 2 naming the sweep run", code, errOut)
	}
}

// TestFindMaxRateDefaultOut: --find-max-rate writes to ./maxrate by
// default, not into the grid sweep's ./sweep.
func TestFindMaxRateDefaultOut(t *testing.T) {
	f := newSweepFlags()
	if err := f.fs.Parse([]string{"--find-max-rate"}); err != nil {
		t.Fatal(err)
	}
	if got := f.outDir(); got != "maxrate" {
		t.Errorf("--find-max-rate out = %q, want maxrate", got)
	}
	g := newSweepFlags()
	if got := g.outDir(); got != "sweep" {
		t.Errorf("grid out = %q, want sweep", got)
	}
}

// TestRunMarkerKeepsUserFiles: "a run of the same kind removes the files
// the previous one recorded" deletes only files fleetsim wrote and nobody
// changed since. A marker listing a user's file (copied, corrupt or
// hand-written: the old code deleted notes.txt) and an output the user
// rewrote after the run leave both files in place; an output left as the
// run wrote it is still removed.
func TestRunMarkerKeepsUserFiles(t *testing.T) {
	d := filepath.Join(t.TempDir(), "run")
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, d, "notes.txt", "mine")
	writeFile(t, d, runMarker, "kind: simulate\nfile: notes.txt\nfile: 4 0 notes.txt\n")
	sim := func(extra ...string) {
		t.Helper()
		if code, _, errOut := runCLI(t, append([]string{"simulate", "--requests", "300", "--out", d}, extra...)...); code != 0 {
			t.Fatalf("simulate %v: exit %d: %s", extra, code, errOut)
		}
	}
	sim("--csv")
	if b, err := os.ReadFile(filepath.Join(d, "notes.txt")); err != nil || string(b) != "mine" {
		t.Fatalf("notes.txt after a run whose marker listed it: %q, %v; want it kept", b, err)
	}
	// The user rewrites pools.csv after the run: it is theirs now.
	writeFile(t, d, poolsCSVFile, "edited by hand\n")
	sim()
	if _, err := os.Stat(filepath.Join(d, poolsCSVFile)); err != nil {
		t.Errorf("a pools.csv changed after the run was removed: %v", err)
	}
	// An output as the run left it is removed by a run that no longer writes it.
	sim("--no-parquet")
	if _, err := os.Stat(filepath.Join(d, requestsFile)); err == nil {
		t.Error("requests.parquet of the previous run kept by a --no-parquet run")
	}
}

// TestOutUnderAFile: an --out below a regular file is one line naming the
// file that is in the way (was `lstat afile/x/summary.json: not a
// directory`, or the marker's path for sweep).
func TestOutUnderAFile(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "afile", "x")
	out := filepath.Join(dir, "afile", "x")
	for _, args := range [][]string{
		{"simulate", "--requests", "50", "--out", out},
		{"sweep", "--rates", "10", "--duration", "2", "--out", out},
	} {
		code, _, errOut := runCLI(t, args...)
		want := `"` + filepath.Join(dir, "afile") + `" is not a directory`
		if code != 2 || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, want) {
			t.Errorf("%s: exit %d, stderr %q; want 2 and one line with %s", args[0], code, errOut, want)
		}
	}
}
