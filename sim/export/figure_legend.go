package export

import (
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// legendGap is the space kept between the legend and the highest data
// point.
const legendGap = 4 * vg.Millimeter

// legendRoom raises the y axis maximum of p, whose data are already added,
// so that a legend drawn at the top of the figure sits above every data
// point instead of over a line: the data keep the lower part of the data
// area and the legend's rows (plus legendGap) the upper part. A legend at
// the bottom, or one taller than half the data area, is left as it is.
func legendRoom(p *plot.Plot) {
	if !p.Legend.Top || !(p.Y.Max > p.Y.Min) {
		return
	}
	dc := p.DataCanvas(draw.Canvas{Rectangle: vg.Rectangle{Max: vg.Point{X: figureWidth, Y: figureHeight}}})
	h := dc.Max.Y - dc.Min.Y
	share := float64((p.Legend.Rectangle(dc).Size().Y + legendGap) / h)
	if h <= 0 || share <= 0 || share >= 0.5 {
		return
	}
	p.Y.Max = p.Y.Min + (p.Y.Max-p.Y.Min)/(1-share)
}
