package export

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Series is one line of a Panel: points (X[i], Y[i]); non-finite points
// are left out.
type Series struct {
	Name   string
	X, Y   []float64
	Dashed bool
}

// Panel is one chart of a figure.
type Panel struct {
	Title, XLabel, YLabel string
	LogY                  bool
	Series                []Series
}

// palette is a colour per series index (Okabe–Ito, colour-blind safe).
var palette = []color.RGBA{
	{0, 0, 0, 255}, {230, 159, 0, 255}, {86, 180, 233, 255}, {0, 158, 115, 255},
	{213, 94, 0, 255}, {0, 114, 178, 255}, {204, 121, 167, 255},
}

// WritePlot draws panels in a grid of cols columns and writes it to path,
// PNG or SVG by extension, through a temporary file and a rename.
func WritePlot(path string, panels []Panel, cols int, cellW, cellH vg.Length) error {
	if len(panels) == 0 || cols < 1 {
		return fmt.Errorf("plot %s: no panel", path)
	}
	rows := (len(panels) + cols - 1) / cols
	W, H := cellW*vg.Length(cols), cellH*vg.Length(rows)
	var canvas vg.CanvasWriterTo
	switch strings.ToLower(filepath.Ext(path)) {
	case ".png":
		canvas = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(W, H), vgimg.UseDPI(96))}
	case ".svg":
		canvas = vgsvg.New(W, H)
	default:
		return fmt.Errorf("plot %s: extension %q: allowed .png, .svg", path, filepath.Ext(path))
	}
	dc := draw.New(canvas)
	tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Millimeter * 2, PadY: vg.Millimeter * 2,
		PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 2}
	for i, pn := range panels {
		p := plot.New()
		p.Title.Text, p.X.Label.Text, p.Y.Label.Text = pn.Title, pn.XLabel, pn.YLabel
		if pn.LogY {
			p.Y.Scale = plot.LogScale{}
			p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
		}
		p.Legend.Top = true
		p.Legend.Left = true
		for j, s := range pn.Series {
			var xy plotter.XYs
			for k := range s.X {
				if k < len(s.Y) && !math.IsNaN(s.Y[k]) && !math.IsInf(s.Y[k], 0) && !(pn.LogY && s.Y[k] <= 0) {
					xy = append(xy, plotter.XY{X: s.X[k], Y: s.Y[k]})
				}
			}
			if len(xy) == 0 {
				continue
			}
			l, pts, err := plotter.NewLinePoints(xy)
			if err != nil {
				return err
			}
			c := palette[j%len(palette)]
			l.Color, pts.Color = c, c
			if s.Dashed {
				l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
			}
			p.Add(l, pts)
			p.Legend.Add(s.Name, l, pts)
		}
		p.Draw(tiles.At(dc, i%cols, i/cols))
	}
	var buf bytes.Buffer
	if _, err := canvas.WriteTo(&buf); err != nil {
		return err
	}
	return WriteFileAtomic(path, buf.Bytes())
}
