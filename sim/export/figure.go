package export

import (
	"bytes"
	"errors"
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Figure is a line chart described by its data (package experiments builds
// them; this package draws them). The same Figure always gives the same
// bytes.
type Figure struct {
	Name   string // file stem, e.g. "tokenbudget-figure6"
	Title  string
	XLabel string
	YLabel string
	// LogX draws the x axis on a log scale (all X must be > 0).
	LogX bool
	// LogY draws the y axis on a log scale; points with Y <= 0 are left
	// out.
	LogY bool
	// XTicks, when set, labels the x values 0, 1, … (a categorical axis).
	XTicks []string
	// LegendBottom puts the legend in the lower right corner instead of
	// the upper left.
	LegendBottom bool
	// YFromZero starts the y axis at 0 (room for the legend below data
	// that sits high).
	YFromZero bool
	Series    []FigureSeries
	// Refs are reference lines (an SLO target), drawn dashed in black
	// across the data area.
	Refs []FigureRef
	// NoPoints draws the lines without point markers (dense series such
	// as a distribution or a time series).
	NoPoints bool
	// YUnit fixes the y axis to [0, 1] (a fraction).
	YUnit bool
	// NoLegend leaves the legend out of the drawing: the HTML report
	// prints it beside the figure (Figure.Legend), off the data.
	NoLegend bool
}

// FigureRef is a reference line of a Figure: vertical at X when Vertical,
// else horizontal at Y.
type FigureRef struct {
	Label    string
	Vertical bool
	At       float64
}

// FigureSeries is one line of a Figure.
type FigureSeries struct {
	Name string
	X, Y []float64
	// Dashed draws a reference line (e.g. the paper's values) in the
	// colour of the solid series before it.
	Dashed bool
	// Scatter draws the points only, no line.
	Scatter bool
}

// LegendEntry is one line of a figure's legend: its name, colour (CSS
// #rrggbb) and style.
type LegendEntry struct {
	Name    string
	Color   string
	Dashed  bool
	Scatter bool
}

// Legend returns the entries the legend of f shows, in order: its series
// (with the colours Render gives them), then its reference lines (black,
// dashed).
func (f Figure) Legend() []LegendEntry {
	var out []LegendEntry
	ci := -1
	for _, s := range f.Series {
		if !s.Dashed || ci < 0 {
			ci++
		}
		r, g, b, _ := plotutil.Color(ci).RGBA()
		out = append(out, LegendEntry{Name: s.Name, Color: fmt.Sprintf("#%02x%02x%02x", r>>8, g>>8, b>>8), Dashed: s.Dashed, Scatter: s.Scatter})
	}
	for _, r := range f.Refs {
		out = append(out, LegendEntry{Name: r.Label, Color: "#000000", Dashed: true})
	}
	return out
}

// Figure sizes.
const (
	figureWidth  = 16 * vg.Centimeter
	figureHeight = 10 * vg.Centimeter
)

// FigureFormats are the formats WriteFigure writes.
var FigureFormats = []string{"png", "svg"}

// Render draws f in format "png" or "svg".
func (f Figure) Render(format string) ([]byte, error) {
	if len(f.Series) == 0 {
		return nil, errors.New("export: figure " + f.Name + " has no series")
	}
	p := plot.New()
	p.Title.Text = f.Title
	p.X.Label.Text = f.XLabel
	p.Y.Label.Text = f.YLabel
	p.Legend.Top, p.Legend.Left = !f.LegendBottom, !f.LegendBottom
	p.Add(plotter.NewGrid())
	if f.LogX {
		p.X.Scale = plot.LogScale{}
		// A few points read best labelled at their values; a dense
		// series (a distribution) by decades.
		p.X.Tick.Marker = dataOrLogTicks(dataTicks(f.Series))
	}
	if f.LogY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = logYTicks{}
	}
	if len(f.XTicks) > 0 {
		ticks := make([]plot.Tick, len(f.XTicks))
		for i, l := range f.XTicks {
			ticks[i] = plot.Tick{Value: float64(i), Label: l}
		}
		p.X.Tick.Marker = plot.ConstantTicks(ticks)
		p.X.Min, p.X.Max = -0.5, float64(len(ticks))-0.5
	}
	ci := -1 // colour index: advances with each solid series
	for i, s := range f.Series {
		if !s.Dashed || ci < 0 {
			ci++
		}
		if len(s.X) != len(s.Y) {
			return nil, fmt.Errorf("export: figure %s series %q: %d x and %d y values", f.Name, s.Name, len(s.X), len(s.Y))
		}
		xy := make(plotter.XYs, 0, len(s.X))
		for j := range s.X {
			if math.IsNaN(s.Y[j]) || math.IsInf(s.Y[j], 0) || (f.LogX && !(s.X[j] > 0)) || (f.LogY && !(s.Y[j] > 0)) {
				continue
			}
			xy = append(xy, plotter.XY{X: s.X[j], Y: s.Y[j]})
		}
		if len(xy) == 0 {
			continue
		}
		line, points, err := plotter.NewLinePoints(xy)
		if err != nil {
			return nil, err
		}
		c := plotutil.Color(ci)
		line.Color, points.Color = c, c
		line.Width = vg.Points(1.5)
		points.Shape = plotutil.Shape(i)
		if s.Dashed {
			line.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
			line.Width = vg.Points(1)
		}
		var thumbs []plot.Thumbnailer
		switch {
		case s.Scatter:
			points.Shape = draw.CircleGlyph{}
			points.Radius = vg.Points(3.5)
			p.Add(points)
			thumbs = []plot.Thumbnailer{points}
		case f.NoPoints:
			p.Add(line)
			thumbs = []plot.Thumbnailer{line}
		default:
			p.Add(line, points)
			thumbs = []plot.Thumbnailer{line, points}
		}
		if !f.NoLegend {
			p.Legend.Add(s.Name, thumbs...)
		}
	}
	if f.YFromZero && !f.LogY {
		p.Y.Min = math.Min(p.Y.Min, 0)
		if !(p.Y.Max > p.Y.Min) { // all zero: a unit axis, not [-1, 1]
			p.Y.Max = p.Y.Min + 1
		}
	}
	if f.YUnit && !f.LogY {
		p.Y.Min, p.Y.Max = 0, 1.02 // room for the markers at 1
	}
	if err := addRefs(p, f); err != nil {
		return nil, err
	}
	p.Legend.ThumbnailWidth = vg.Points(20)
	if !f.NoLegend {
		legendRoom(p)
	}
	wt, err := p.WriterTo(figureWidth, figureHeight, format)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if _, err := wt.WriteTo(&b); err != nil {
		return nil, fmt.Errorf("export: drawing %s: %w", f.Name, err)
	}
	return b.Bytes(), nil
}

// WriteFigure writes DIR/NAME.png and DIR/NAME.svg (atomically) and returns
// the paths written.
func WriteFigure(dir string, f Figure) ([]string, error) {
	var wrote []string
	for _, format := range FigureFormats {
		b, err := f.Render(format)
		if err != nil {
			return wrote, err
		}
		path := filepath.Join(dir, f.Name+"."+format)
		if err := WriteFileAtomic(path, b); err != nil {
			return wrote, err
		}
		wrote = append(wrote, path)
	}
	return wrote, nil
}

// maxDataTicks is the most x values a log axis is labelled at (beyond, it
// is labelled by decades).
const maxDataTicks = 16

// dataTicks are ticks at every distinct x value of the series (a log axis
// of a few points reads better labelled at its points): multiples of 1,024
// print as 1K, 2K, …, others as %g.
func dataTicks(series []FigureSeries) []plot.Tick {
	var xs []float64
	for _, s := range series {
		for _, x := range s.X {
			if x > 0 && !slices.Contains(xs, x) {
				xs = append(xs, x)
			}
		}
	}
	slices.Sort(xs)
	ticks := make([]plot.Tick, len(xs))
	for i, x := range xs {
		label := strconv.FormatFloat(x, 'g', -1, 64)
		if x >= 1024 && math.Mod(x, 1024) == 0 {
			label = strconv.FormatFloat(x/1024, 'g', -1, 64) + "K"
		}
		ticks[i] = plot.Tick{Value: x, Label: label}
	}
	return ticks
}

// maxDataLabel is the longest label of a data tick: values a person chose
// (a sweep's rates, 16K) are short, computed ones (a histogram's bin edges,
// 0.006294627058970837) are not.
const maxDataLabel = 8

// dataOrLogTicks labels a log axis at the data's x values when they fit
// (at most maxDataTicks, short labels, none running into the next one on
// the final range, reference lines included), else by logTicks125: a
// narrow distribution's few bins (TPOT all within 5–8 ms) are long numbers
// packed into a corner that, as labels, overprint one another.
type dataOrLogTicks []plot.Tick

// Ticks implements plot.Ticker.
func (d dataOrLogTicks) Ticks(lo, hi float64) []plot.Tick {
	if len(d) > maxDataTicks || !(lo > 0) || !(hi > lo) {
		return logTicks125{}.Ticks(lo, hi)
	}
	// The x axis of a figure is about 13 cm (370 pt) of its 16; a tick
	// label's character is about 6 pt wide (gonum's 10 pt default font),
	// and neighbouring labels keep 6 pt apart.
	const axisPt, charPt, gapPt = 370.0, 6.0, 6.0
	span := math.Log(hi / lo)
	for i := range d {
		if len(d[i].Label) > maxDataLabel {
			return logTicks125{}.Ticks(lo, hi)
		}
		if i == 0 {
			continue
		}
		dist := axisPt * math.Log(d[i].Value/d[i-1].Value) / span
		if dist < charPt*float64(len(d[i].Label)+len(d[i-1].Label))/2+gapPt {
			return logTicks125{}.Ticks(lo, hi)
		}
	}
	return d
}

// addRefs draws f's reference lines across the data range of p (widened to
// hold them).
func addRefs(p *plot.Plot, f Figure) error {
	drawn := func(r FigureRef) bool {
		return !math.IsNaN(r.At) && !math.IsInf(r.At, 0) && (!(f.LogX && r.Vertical || f.LogY && !r.Vertical) || r.At > 0)
	}
	// The ranges first, so that every line spans the final data area.
	for _, r := range f.Refs {
		switch {
		case !drawn(r):
		case r.Vertical:
			p.X.Min, p.X.Max = math.Min(p.X.Min, r.At), math.Max(p.X.Max, r.At)
		default:
			p.Y.Min, p.Y.Max = math.Min(p.Y.Min, r.At), math.Max(p.Y.Max, r.At)
		}
	}
	if drawableRanges(p) {
		p.Title.Text += " (no positive value to draw on its log scale)"
	}
	for _, r := range f.Refs {
		if !drawn(r) {
			continue
		}
		xy := plotter.XYs{{X: p.X.Min, Y: r.At}, {X: p.X.Max, Y: r.At}}
		if r.Vertical {
			xy = plotter.XYs{{X: r.At, Y: p.Y.Min}, {X: r.At, Y: p.Y.Max}}
		}
		l, err := plotter.NewLine(xy)
		if err != nil {
			return err
		}
		l.Color = color.Black
		l.Width = vg.Points(1.2)
		l.Dashes = []vg.Length{vg.Points(6), vg.Points(3)}
		p.Add(l)
		if !f.NoLegend {
			p.Legend.Add(r.Label, l)
		}
	}
	return nil
}

// drawableRanges makes the range of each axis of p one gonum can draw
// (and reference lines can span), and reports whether a log axis held no
// positive value. gonum widens an empty or one-value range by ±1 (one point
// at 0.03 s becomes −0.97…1.03) and panics on the values ≤ 0 that gives a
// log axis; so a log axis with one value v gets [v/2, 2v] (a factor of 4,
// labelled by logTicks125), one with no positive value [1, 10], and a
// linear axis with no value [0, 1].
func drawableRanges(p *plot.Plot) bool {
	empty := false
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		if _, ok := a.Scale.(plot.LogScale); !ok {
			if !(a.Min <= a.Max) || math.IsInf(a.Min, 0) || math.IsInf(a.Max, 0) {
				a.Min, a.Max = 0, 1
			}
			continue
		}
		switch {
		case !(a.Max > 0) || !(a.Min <= a.Max) || math.IsInf(a.Max, 0):
			a.Min, a.Max = 1, 10
			empty = true
		case !(a.Min > 0):
			a.Min = a.Max / 1000
		case a.Min == a.Max:
			a.Min, a.Max = a.Min/2, a.Max*2
		}
	}
	return empty
}

// logYTicks labels a log y axis by logTicks125 within two decades (a
// sweep's P99 TTFT, 0.04–0.5 s, got a single label from plot.LogTicks) and
// by powers of ten over wider ranges.
type logYTicks struct{}

// Ticks implements plot.Ticker.
func (logYTicks) Ticks(lo, hi float64) []plot.Tick {
	if lo > 0 && hi/lo < 100 {
		return logTicks125{}.Ticks(lo, hi)
	}
	return plot.LogTicks{Prec: -1}.Ticks(lo, hi)
}

// logTicks125 labels a log axis at 1, 2 and 5 times the powers of ten in
// its range (plot.LogTicks labels the powers only, which leaves a range of
// less than two decades with one label or none), with minor ticks at the
// other integers times the powers.
type logTicks125 struct{}

// Ticks implements plot.Ticker.
func (logTicks125) Ticks(lo, hi float64) []plot.Tick {
	if !(lo > 0) || !(hi > lo) {
		return nil
	}
	var ticks []plot.Tick
	for e := math.Floor(math.Log10(lo)); e <= math.Ceil(math.Log10(hi)); e++ {
		p := math.Pow(10, e)
		for m := 1.0; m <= 9; m++ {
			v := m * p
			if v < lo*(1-1e-9) || v > hi*(1+1e-9) {
				continue
			}
			t := plot.Tick{Value: v}
			if m == 1 || m == 2 || m == 5 {
				t.Label = strconv.FormatFloat(v, 'g', 4, 64)
			}
			ticks = append(ticks, t)
		}
	}
	// A narrow range may hold one of them or none (one request's
	// end-to-end latency, 2.63–2.75 s): its ends are labelled too, but
	// for an end within 5% of the axis of a label.
	var labelled []float64
	for _, t := range ticks {
		if t.Label != "" {
			labelled = append(labelled, t.Value)
		}
	}
	if len(labelled) < 2 {
		span := math.Log(hi / lo)
		for _, end := range []float64{lo, hi} {
			if !slices.ContainsFunc(labelled, func(v float64) bool { return math.Abs(math.Log(v/end)) < 0.05*span }) {
				ticks = append(ticks, plot.Tick{Value: end, Label: strconv.FormatFloat(end, 'g', 3, 64)})
			}
		}
	}
	return ticks
}
