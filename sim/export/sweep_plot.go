package export

import (
	"github.com/fleetsim/fleetsim/sim/sweep"
)

// SweepFigure is metric m of rows against axis x (sweep.XAxis): one line
// per series (sweep.MakeSeries); a categorical axis is labelled with its
// values. Values ≤ 0 of a log metric are left out, and the title says
// so. It is nil when no series has a point.
func SweepFigure(rows []sweep.Row, axes []sweep.Axis, x int, m sweep.Metric) *Figure {
	f := &Figure{
		Name:   m.Name,
		Title:  m.Label + " by " + axes[x].Key,
		XLabel: sweep.AxisLabel(axes[x].Key),
		YLabel: m.Label,
		LogY:   m.Log,
	}
	if m.Log {
		f.YLabel += ", log scale"
		for i := range rows {
			if m.Value(&rows[i]) <= 0 {
				f.Title += " (values ≤ 0 left out)"
				break
			}
		}
	}
	if !axes[x].Numeric() {
		f.XTicks = axes[x].Values
	}
	for _, s := range sweep.MakeSeries(rows, axes, x, m) {
		if len(s.X) > 0 {
			f.Series = append(f.Series, FigureSeries{Name: s.Name, X: s.X, Y: s.Y})
		}
	}
	if len(f.Series) == 0 {
		return nil
	}
	return f
}

// WriteSweepPlots writes, for each of sweep.PlotMetrics, DIR/NAME.png and
// DIR/NAME.svg, and returns the paths written. Without axes, or for a
// metric with no value at any point, it writes nothing.
func WriteSweepPlots(dir string, rows []sweep.Row, axes []sweep.Axis) ([]string, error) {
	x := sweep.XAxis(axes)
	if x < 0 {
		return nil, nil
	}
	var wrote []string
	for _, m := range sweep.PlotMetrics {
		f := SweepFigure(rows, axes, x, m)
		if f == nil {
			continue
		}
		paths, err := WriteFigure(dir, *f)
		wrote = append(wrote, paths...)
		if err != nil {
			return wrote, err
		}
	}
	return wrote, nil
}
