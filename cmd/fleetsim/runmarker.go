package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/fleetsim/fleetsim/sim/export"
)

// runMarker names the file in a run directory that says which kind of run
// wrote it and which files it wrote (docs/cli.md, "Run directories"):
//
//	kind: simulate
//	file: summary.json
//	file: requests.parquet
const runMarker = ".fleetsim-run"

// The kinds of run that write a directory.
const (
	kindSimulate = "simulate"
	kindSweep    = "sweep"
	kindMaxRate  = "find-max-rate"
)

// kindFiles are the names each kind writes at the top of its directory; a
// directory without a marker (written before it existed) is recognised by
// them.
var kindFiles = map[string][]string{
	kindSimulate: {requestsFile, summaryFile, poolsCSVFile},
	kindSweep:    {sweepFile, sweepTable, partsDir, pointsDir},
	kindMaxRate:  {maxRateFile},
}

// kindOf returns the kind of run that wrote dir ("" for none: a missing or
// empty directory, or one holding none of the runs' files), and what tells.
func kindOf(dir string) (kind, why string) {
	if b, err := os.ReadFile(filepath.Join(dir, runMarker)); err == nil {
		if k, _, ok := strings.Cut(string(b), "\n"); ok && strings.HasPrefix(k, "kind: ") {
			return strings.TrimPrefix(k, "kind: "), runMarker
		}
	}
	for _, k := range []string{kindSimulate, kindSweep, kindMaxRate} {
		for _, name := range kindFiles[k] {
			if _, err := os.Lstat(filepath.Join(dir, name)); err == nil {
				return k, name
			}
		}
	}
	return "", ""
}

// checkRunDir refuses (exit 2) to write a run of kind into dir when another
// kind of run wrote it: their files would mix (a maxrate.md beside an older
// sweep's sweep.parquet).
func checkRunDir(dir, kind string) error {
	other, why := kindOf(dir)
	if other == "" || other == kind {
		return nil
	}
	return badInput("--out %q: holds a %s run (%s); a %s run would mix its files with it: give another --out or remove the directory",
		dir, other, filepath.Join(dir, why), kind)
}

// finishRunDir records kind and the files the run wrote (paths inside dir)
// in dir's marker and, when removeStale, removes the regular files the
// previous run of the same kind recorded and this one did not write (a
// pools.csv a run without --csv would leave beside a new summary.json).
func finishRunDir(dir, kind string, wrote []string, removeStale bool) error {
	var names []string
	for _, p := range wrote {
		if rel, err := filepath.Rel(dir, p); err == nil && filepath.IsLocal(rel) {
			names = append(names, filepath.ToSlash(rel))
		}
	}
	if removeStale {
		for _, old := range markerFiles(dir) {
			if slices.Contains(names, old) {
				continue
			}
			p := filepath.Join(dir, filepath.FromSlash(old))
			if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() {
				if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
					return err
				}
			}
		}
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "kind: %s\n", kind)
	for _, n := range names {
		fmt.Fprintf(&b, "file: %s\n", n)
	}
	return export.WriteFileAtomic(filepath.Join(dir, runMarker), b.Bytes())
}

// markerFiles returns the files dir's marker records (local paths only).
func markerFiles(dir string) []string {
	b, err := os.ReadFile(filepath.Join(dir, runMarker))
	if err != nil {
		return nil
	}
	var names []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if n, ok := strings.CutPrefix(sc.Text(), "file: "); ok && filepath.IsLocal(filepath.FromSlash(n)) {
			names = append(names, n)
		}
	}
	return names
}
