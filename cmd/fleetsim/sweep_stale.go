package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/fleetsim/fleetsim/sim/sweep"
)

// removeStaleOutputs removes from out the sweep outputs an earlier sweep
// left there and this one did not write (written): the plots of a run with
// plots before one with --no-plots, the points/point-NNNNNN.parquet of a
// larger grid. Only those names, and only regular files, are removed, so
// the files in out are one run's set. It runs under out's lock.
func removeStaleOutputs(out string, written []string) {
	mine := map[string]bool{}
	for _, p := range written {
		mine[filepath.Clean(p)] = true
	}
	var stale []string
	for _, m := range sweep.PlotMetrics {
		stale = append(stale, filepath.Join(out, m.Name+".png"), filepath.Join(out, m.Name+".svg"))
	}
	points := filepath.Join(out, pointsDir)
	if ents, err := os.ReadDir(points); err == nil {
		for _, e := range ents {
			var i int
			if n, _ := fmt.Sscanf(e.Name(), "point-%d.parquet", &i); n == 1 && e.Name() == fmt.Sprintf("point-%06d.parquet", i) {
				stale = append(stale, filepath.Join(points, e.Name()))
			}
		}
	}
	for _, p := range stale {
		if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() && !mine[filepath.Clean(p)] {
			os.Remove(p)
		}
	}
	os.Remove(points) // when it is left empty
}
