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
	drawableRanges(p)
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

// maxPlotPoints bounds the points a capacity plot draws per series: a
// 9-inch PNG has fewer pixels across, and drawing millions of windows took
// minutes.
const maxPlotPoints = 4000

// timelinePoints returns X_n against time, thinned to at most
// 2·maxPlotPoints points: beyond maxPlotPoints windows, each run of
// consecutive windows is drawn as its lowest and its highest X_n (in time
// order), so every peak stays visible.
func timelinePoints(w *capacity.Windowed) plotter.XYs {
	n := len(w.X)
	if n <= maxPlotPoints {
		pts := make(plotter.XYs, n)
		for i, x := range w.X {
			pts[i] = plotter.XY{X: float64(i) * w.DeltaS, Y: x}
		}
		return pts
	}
	chunk := (n + maxPlotPoints - 1) / maxPlotPoints
	pts := make(plotter.XYs, 0, 2*maxPlotPoints+2)
	for start := 0; start < n; start += chunk {
		end := min(start+chunk, n)
		lo, hi := start, start
		for i := start; i < end; i++ {
			if w.X[i] < w.X[lo] {
				lo = i
			}
			if w.X[i] > w.X[hi] {
				hi = i
			}
		}
		a, b := min(lo, hi), max(lo, hi)
		pts = append(pts, plotter.XY{X: float64(a) * w.DeltaS, Y: w.X[a]})
		if b != a {
			pts = append(pts, plotter.XY{X: float64(b) * w.DeltaS, Y: w.X[b]})
		}
	}
	return pts
}

// distributionPoints returns the share of windows with X_n > x at each
// distinct value x of the ascending xs (shares > 0 only), thinned to a
// bounded number of points: a point is kept when x has moved by 1/1000 of
// the range or the share has fallen by 1% since the last point kept (the
// plot's resolution on its linear x and logarithmic y axes), and the last
// point is always kept.
func distributionPoints(xs []float64) plotter.XYs {
	n := float64(len(xs))
	var pts plotter.XYs
	if len(xs) == 0 {
		return pts
	}
	step := (xs[len(xs)-1] - xs[0]) / 1000
	var pending *plotter.XY
	for k, x := range xs {
		if k+1 < len(xs) && xs[k+1] == x {
			continue // one point per distinct value
		}
		share := (n - float64(k+1)) / n
		if !(share > 0) {
			continue
		}
		p := plotter.XY{X: x, Y: share}
		if m := len(pts); m == 0 || x-pts[m-1].X >= step || share <= 0.99*pts[m-1].Y {
			pts = append(pts, p)
			pending = nil
		} else {
			pending = &p
		}
	}
	if pending != nil {
		pts = append(pts, *pending)
	}
	return pts
}

// WriteCapacityTimeline writes a PNG of X_n (units needed per window) over
// time for one window length, with the reserved G as a dashed line.
func WriteCapacityTimeline(path string, w *capacity.Windowed, g float64, unit, title string) error {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "time since the first request (s)"
	p.Y.Label.Text = fmt.Sprintf("X_n: %ss needed per %g s window", unit, w.DeltaS)
	l, err := plotter.NewLine(timelinePoints(w))
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
		pts := distributionPoints(xs)
		if len(pts) > 0 {
			lowest = math.Min(lowest, pts[len(pts)-1].Y)
		}
		if len(xs) > 0 {
			highest = math.Max(highest, xs[len(xs)-1])
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
