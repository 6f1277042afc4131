package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/fleetsim/fleetsim/experiments"
	"github.com/fleetsim/fleetsim/sim/export"
)

// checkOutDir checks --out DIR of experiment before anything runs: an
// existing directory, or a new one (with its missing parents). The new directory
// is created only when the report is written (writeReportDir), so a run
// that fails leaves nothing behind.
func checkOutDir(dir string) error {
	fi, err := os.Stat(dir)
	switch {
	case err == nil && !fi.IsDir():
		return badInput("--out %q: not a directory (want a directory for EXPERIMENTS.md, the CSVs and the figures)", dir)
	case err == nil:
		return nil
	case !errors.Is(err, os.ErrNotExist):
		return badInput("--out %q: %s", dir, oneLine(rootCause(err)))
	}
	return checkCreatableDir("--out", dir, filepath.Dir(dir))
}

// reportFile is one file of the report directory and its contents.
type reportFile struct {
	name string
	data []byte
}

// writeReportDir writes DIR/EXPERIMENTS.md, one CSV per experiment and the
// figures (PNG and SVG), each file atomically. Every file is rendered
// first and every target checked (an existing one must be a regular file:
// outputs replace only regular files) before the first is written; a
// directory this call creates is removed again if a write fails.
func writeReportDir(dir string, tables []experiments.Table, intro string) error {
	var files []reportFile
	for _, g := range experiments.GroupByName(tables) {
		var b bytes.Buffer
		if err := experiments.WriteCSV(&b, g); err != nil {
			return err
		}
		files = append(files, reportFile{g[0].Name + ".csv", b.Bytes()})
		for _, t := range g {
			for _, f := range t.Figures {
				for _, format := range export.FigureFormats {
					img, err := f.Render(format)
					if err != nil {
						return err
					}
					files = append(files, reportFile{f.Name + "." + format, img})
				}
			}
		}
	}
	var b bytes.Buffer
	if err := experiments.WriteReport(&b, tables, intro); err != nil {
		return err
	}
	files = append(files, reportFile{experiments.ReportFile, b.Bytes()})
	for _, f := range files {
		if fi, err := os.Lstat(filepath.Join(dir, f.name)); err == nil && !fi.Mode().IsRegular() {
			return badInput("--out %q: %s exists and is not a regular file", dir, f.name)
		}
	}
	created := false
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		created = true
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return badInput("--out %q: %s", dir, oneLine(rootCause(err)))
	}
	for _, f := range files {
		if err := export.WriteFileAtomic(filepath.Join(dir, f.name), f.data); err != nil {
			if created {
				os.RemoveAll(dir)
			}
			return fmt.Errorf("--out %q: %s: %s", dir, f.name, oneLine(rootCause(err)))
		}
	}
	return nil
}
