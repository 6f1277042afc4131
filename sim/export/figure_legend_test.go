package export

import (
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// TestLegendAboveData: with the legend in the upper left, the y axis
// leaves room above the highest data point for every legend row, so the
// legend never hides a line (token-budget Figure 6 has six entries and a
// curve at its maximum near the left edge). Checked in canvas units: the
// highest point maps below the legend's lower edge.
func TestLegendAboveData(t *testing.T) {
	p := plot.New()
	p.Title.Text = "t"
	p.Legend.Top, p.Legend.Left = true, true
	xy := plotter.XYs{{X: 0, Y: 10}, {X: 1, Y: 40}, {X: 2, Y: 20}}
	for i := range 6 {
		l, err := plotter.NewLine(xy)
		if err != nil {
			t.Fatal(err)
		}
		p.Add(l)
		p.Legend.Add(string(rune('a'+i))+" a fairly long legend entry", l)
	}
	legendRoom(p)
	dc := p.DataCanvas(draw.Canvas{Rectangle: vg.Rectangle{Max: vg.Point{X: figureWidth, Y: figureHeight}}})
	legendBottom := dc.Max.Y - p.Legend.Rectangle(dc).Size().Y
	top := dc.Min.Y + vg.Length((40-p.Y.Min)/(p.Y.Max-p.Y.Min))*(dc.Max.Y-dc.Min.Y)
	if top >= legendBottom {
		t.Errorf("highest point at %v, legend's lower edge at %v (y axis %v…%v)", top, legendBottom, p.Y.Min, p.Y.Max)
	}
}
