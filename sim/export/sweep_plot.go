package export

import (
	"bytes"
	"fmt"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/fleetsim/fleetsim/sim/sweep"
)

// Size of the sweep plots.
const (
	sweepPlotWidth  = 18 * vg.Centimeter
	sweepPlotHeight = 12 * vg.Centimeter
)

// SweepPlot draws metric m of rows against axis x (sweep.XAxis): one line
// per series (sweep.MakeSeries), a categorical axis labelled with its
// values.
func SweepPlot(rows []sweep.Row, axes []sweep.Axis, x int, m sweep.Metric) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = m.Label + " by " + axes[x].Key
	p.X.Label.Text = sweep.AxisLabel(axes[x].Key)
	p.Y.Label.Text = m.Label
	p.Legend.Top, p.Legend.Left = true, true
	p.Add(plotter.NewGrid())
	if m.Log {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
		p.Y.Label.Text += ", log scale"
	}
	if !axes[x].Numeric() {
		ticks := make([]plot.Tick, len(axes[x].Values))
		for i, v := range axes[x].Values {
			ticks[i] = plot.Tick{Value: float64(i), Label: v}
		}
		p.X.Tick.Marker = plot.ConstantTicks(ticks)
		p.X.Min, p.X.Max = -0.5, float64(len(ticks))-0.5
	}
	for i, s := range sweep.MakeSeries(rows, axes, x, m) {
		if len(s.X) == 0 {
			continue
		}
		xy := make(plotter.XYs, len(s.X))
		for j := range s.X {
			xy[j].X, xy[j].Y = s.X[j], s.Y[j]
		}
		line, points, err := plotter.NewLinePoints(xy)
		if err != nil {
			return nil, err
		}
		c := plotutil.Color(i)
		line.Color, points.Color = c, c
		line.Width = vg.Points(1.5)
		points.Shape = plotutil.Shape(i)
		if s.Fleet {
			line.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		}
		p.Add(line, points)
		p.Legend.Add(s.Name, line, points)
	}
	p.Legend.ThumbnailWidth = vg.Points(20)
	p.Legend.TextStyle.Font.Size = vg.Points(9)
	return p, nil
}

// WriteSweepPlots writes, for each of sweep.PlotMetrics, DIR/NAME.png and
// DIR/NAME.svg, and returns the paths written. Without axes it writes
// nothing.
func WriteSweepPlots(dir string, rows []sweep.Row, axes []sweep.Axis) ([]string, error) {
	x := sweep.XAxis(axes)
	if x < 0 {
		return nil, nil
	}
	var wrote []string
	for _, m := range sweep.PlotMetrics {
		p, err := SweepPlot(rows, axes, x, m)
		if err != nil {
			return wrote, err
		}
		for _, format := range []string{"png", "svg"} {
			wt, err := p.WriterTo(sweepPlotWidth, sweepPlotHeight, format)
			if err != nil {
				return wrote, err
			}
			var b bytes.Buffer
			if _, err := wt.WriteTo(&b); err != nil {
				return wrote, fmt.Errorf("export: drawing %s: %w", m.Name, err)
			}
			path := filepath.Join(dir, m.Name+"."+format)
			if err := WriteFileAtomic(path, b.Bytes()); err != nil {
				return wrote, err
			}
			wrote = append(wrote, path)
		}
	}
	return wrote, nil
}
