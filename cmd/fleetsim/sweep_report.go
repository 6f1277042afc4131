package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/fleetsim/fleetsim/sim/export"
	"github.com/fleetsim/fleetsim/sim/sweep"
)

// sweepFileInfo is the footer information of sweep.parquet and its parts:
// the version, the base scenario and seed (as in requests.parquet) and the
// grid's axes.
func sweepFileInfo(g *sweep.Grid) (export.FileInfo, error) {
	scen, err := json.Marshal(g.Base)
	if err != nil {
		return export.FileInfo{}, err
	}
	axes, err := json.Marshal(g.Axes)
	if err != nil {
		return export.FileInfo{}, err
	}
	return export.FileInfo{Version: version, Meta: map[string]string{
		export.MetaSeed: strconv.FormatUint(g.Base.Seed, 10), export.MetaScenario: string(scen), export.MetaAxes: string(axes),
	}}, nil
}

// writeSweepReport writes sweep's --report (shared with simulate's flag).
func (f *sweepFlags) writeSweepReport(g *sweep.Grid, rows []sweep.Row) (string, error) {
	path := f.sim.extra.report
	if path == "" {
		return "", nil
	}
	if d := filepath.Dir(path); d != "" {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return "", fmt.Errorf("--report %s: %w", path, err)
		}
	}
	rep := export.SweepReport(rows, g.Axes, export.SweepMeta{Command: "fleetsim sweep", Dir: f.out, Version: version, Base: g.Base})
	if err := export.WriteReportFile(path, rep); err != nil {
		return "", err
	}
	return path, nil
}
