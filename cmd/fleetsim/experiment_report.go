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

// checkOutDir checks --out DIR of experiment: an existing directory, or a
// new one whose parent exists (it is created).
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
	parent := filepath.Dir(dir)
	if pi, err := os.Stat(parent); err != nil || !pi.IsDir() {
		return badInput("--out %q: parent directory %q does not exist", dir, parent)
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		return badInput("--out %q: %s", dir, oneLine(rootCause(err)))
	}
	return nil
}

// writeReportDir writes DIR/EXPERIMENTS.md, one CSV per experiment and the
// figures (PNG and SVG), each file atomically.
func writeReportDir(dir string, tables []experiments.Table, intro string) error {
	write := func(name string, b []byte) error {
		if err := export.WriteFileAtomic(filepath.Join(dir, name), b); err != nil {
			return fmt.Errorf("--out %q: %s: %s", dir, name, oneLine(rootCause(err)))
		}
		return nil
	}
	for _, g := range experiments.GroupByName(tables) {
		var b bytes.Buffer
		if err := experiments.WriteCSV(&b, g); err != nil {
			return err
		}
		if err := write(g[0].Name+".csv", b.Bytes()); err != nil {
			return err
		}
		for _, t := range g {
			for _, f := range t.Figures {
				for _, format := range export.FigureFormats {
					img, err := f.Render(format)
					if err != nil {
						return err
					}
					if err := write(f.Name+"."+format, img); err != nil {
						return err
					}
				}
			}
		}
	}
	var b bytes.Buffer
	if err := experiments.WriteReport(&b, tables, intro); err != nil {
		return err
	}
	return write(experiments.ReportFile, b.Bytes())
}
