package main

import (
	"fmt"
	"image/color"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/fleetsim/fleetsim/pools/variants"
	"github.com/fleetsim/fleetsim/sim/export"
)

// checkPlotPath validates --plot before any work: a .png or .svg path in a
// directory that exists or can be created.
func checkPlotPath(path string) error {
	ext := strings.ToLower(filepath.Ext(path))
	if ext != ".png" && ext != ".svg" {
		return badInput("--plot %q: the file name must end in .png or .svg", path)
	}
	if err := export.CheckReplaceable(path); err != nil {
		return badInput("--plot: %s", oneLine(err))
	}
	return checkCreatableDir("--plot", path, filepath.Dir(path))
}

// plotFits draws every profile's ITL points and fitted line in one chart
// (ms against batch size) and writes it atomically.
func plotFits(path string, ps []variants.Profile, pts [][]fitPoint) error {
	p := plot.New()
	p.Title.Text = "ITL = α + β·batch (fleetsim fit)"
	p.X.Label.Text = "batch size"
	p.Y.Label.Text = "ITL, ms"
	p.Legend.Top, p.Legend.Left = true, true
	palette := []color.RGBA{{31, 119, 180, 255}, {214, 39, 40, 255}, {44, 160, 44, 255}, {148, 103, 189, 255}, {255, 127, 14, 255}}
	for i, prof := range ps {
		c := palette[i%len(palette)]
		xy := make(plotter.XYs, len(pts[i]))
		for j, q := range pts[i] {
			xy[j].X, xy[j].Y = q.x, q.y
		}
		s, err := plotter.NewScatter(xy)
		if err != nil {
			return err
		}
		s.GlyphStyle.Color = c
		s.GlyphStyle.Radius = vg.Points(3)
		prof := prof
		line := plotter.NewFunction(prof.Decode)
		line.Color = c
		line.Width = vg.Points(1)
		p.Add(s, line)
		p.Legend.Add(fmt.Sprintf("%s: %.4g + %.4g·bb", prof.Name, prof.Alpha, prof.Beta), s, line)
	}
	p.X.Min = 0
	p.Y.Min = 0
	w, err := p.WriterTo(7*vg.Inch, 4.5*vg.Inch, strings.TrimPrefix(strings.ToLower(filepath.Ext(path)), "."))
	if err != nil {
		return err
	}
	var b strings.Builder
	if _, err := w.WriteTo(&b); err != nil {
		return err
	}
	if err := export.WriteFileAtomic(path, []byte(b.String())); err != nil {
		return fmt.Errorf("--plot %q: %s", path, oneLine(rootCause(err)))
	}
	return nil
}
