package export

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"slices"

	"github.com/fleetsim/fleetsim/pools/capacity"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// Plot size of the capacity plots. Unit names are pluralized with "s"
// ("units", "GSUs").
const (
	plotWidth  = 9 * vg.Inch
	plotHeight = 4.5 * vg.Inch
)

// savePNG renders p as a PNG file written atomically.
func savePNG(p *plot.Plot, path string) error {
	wt, err := p.WriterTo(plotWidth, plotHeight, "png")
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if _, err := wt.WriteTo(&b); err != nil {
		return err
	}
	return WriteFileAtomic(path, b.Bytes())
}

// gLine is a dashed horizontal (or vertical) line at the reserved G.
func gLine(pts plotter.XYs) (*plotter.Line, error) {
	l, err := plotter.NewLine(pts)
	if err != nil {
		return nil, err
	}
	l.Color = color.RGBA{R: 200, A: 255}
	l.Dashes = []vg.Length{vg.Points(6), vg.Points(3)}
	l.Width = vg.Points(1.5)
	return l, nil
}

// WriteCapacityTimeline writes a PNG of X_n (units needed per window) over
// time for one window length, with the reserved G as a dashed line.
func WriteCapacityTimeline(path string, w *capacity.Windowed, g float64, unit, title string) error {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "time since the first request (s)"
	p.Y.Label.Text = fmt.Sprintf("X_n: %ss needed per %g s window", unit, w.DeltaS)
	pts := make(plotter.XYs, len(w.X))
	for i, x := range w.X {
		pts[i] = plotter.XY{X: float64(i) * w.DeltaS, Y: x}
	}
	l, err := plotter.NewLine(pts)
	if err != nil {
		return err
	}
	l.Color = plotutil.Color(2)
	gl, err := gLine(plotter.XYs{{X: 0, Y: g}, {X: float64(len(w.X)) * w.DeltaS, Y: g}})
	if err != nil {
		return err
	}
	p.Add(l, gl)
	p.Legend.Add(fmt.Sprintf("X_n (Δ = %g s)", w.DeltaS), l)
	p.Legend.Add(fmt.Sprintf("G = %g %ss", g, unit), gl)
	p.Legend.Top, p.Legend.Left = true, true
	return savePNG(p, path)
}

// WriteCapacityDistribution writes a PNG of the distribution of X_n for
// each window length: the share of windows needing more than x units
// (log scale), so the overload probability P(X_n > G) is read off at the
// dashed line G.
func WriteCapacityDistribution(path string, ws []capacity.Windowed, g float64, unit, title string) error {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = fmt.Sprintf("x (%ss)", unit)
	p.Y.Label.Text = "share of windows with X_n > x"
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	lowest, highest := 1.0, g
	for i := range ws {
		xs := slices.Clone(ws[i].X)
		slices.Sort(xs)
		n := float64(len(xs))
		var pts plotter.XYs
		for k, x := range xs {
			if k+1 < len(xs) && xs[k+1] == x {
				continue // one point per distinct value
			}
			if share := (n - float64(k+1)) / n; share > 0 {
				pts = append(pts, plotter.XY{X: x, Y: share})
				lowest = math.Min(lowest, share)
			}
			highest = math.Max(highest, x)
		}
		if len(pts) == 0 {
			continue
		}
		l, err := plotter.NewLine(pts)
		if err != nil {
			return err
		}
		l.Color = plotutil.Color(i)
		l.Width = vg.Points(1.5)
		p.Add(l)
		p.Legend.Add(fmt.Sprintf("Δ = %g s (%d windows)", ws[i].DeltaS, len(ws[i].X)), l)
	}
	gl, err := gLine(plotter.XYs{{X: g, Y: lowest}, {X: g, Y: 1}})
	if err != nil {
		return err
	}
	p.Add(gl)
	p.Legend.Add(fmt.Sprintf("G = %g %ss", g, unit), gl)
	p.X.Max = math.Max(p.X.Max, highest)
	p.Legend.Top = true
	return savePNG(p, path)
}
