package export

import (
	"slices"
	"testing"

	"github.com/fleetsim/fleetsim/pools/capacity"
	"gonum.org/v1/plot/plotter"
)

// TestCapacityPlotPointsBounded: the plots draw a bounded number of points
// whatever the number of windows, and keep what is read off them: the
// timeline keeps every chunk's peak, the distribution its first and last
// points. With --windows 0.0001 on the conversation trace (35 million
// windows) --plot-dir ran for minutes drawing every window (review of
// issue 10).
func TestCapacityPlotPointsBounded(t *testing.T) {
	n := 1_000_003
	x := make([]float64, n)
	for i := range x {
		x[i] = float64((i * 7919) % 1009)
	}
	x[123_457] = 5000 // a lone peak
	w := capacity.Windowed{DeltaS: 0.5, X: x}
	pts := timelinePoints(&w)
	if len(pts) > 2*maxPlotPoints+2 {
		t.Errorf("timeline: %d points, want at most %d", len(pts), 2*maxPlotPoints+2)
	}
	peak := slices.MaxFunc(pts, func(a, b plotter.XY) int { return cmpF(a.Y, b.Y) })
	if peak.Y != 5000 {
		t.Errorf("timeline lost the peak: max %v", peak.Y)
	}
	if last := pts[len(pts)-1]; last.X > float64(n-1)*0.5 || last.X < float64(n-1)*0.5-float64(n/maxPlotPoints+1)*0.5 {
		t.Errorf("timeline ends at t = %v, want the last chunk (t <= %v)", last.X, float64(n-1)*0.5)
	}
	// A short series is drawn as it is.
	short := capacity.Windowed{DeltaS: 1, X: []float64{1, 3, 2}}
	if got := timelinePoints(&short); len(got) != 3 || got[1].Y != 3 || got[2].X != 2 {
		t.Errorf("short timeline %v", got)
	}
	sorted := slices.Clone(x)
	for i := range sorted {
		sorted[i] = float64(i) // a million distinct values
	}
	d := distributionPoints(sorted)
	if len(d) > 4*maxPlotPoints {
		t.Errorf("distribution: %d points, want at most %d", len(d), 4*maxPlotPoints)
	}
	if d[0].X != 0 || d[0].Y != float64(n-1)/float64(n) || d[len(d)-1].X != float64(n-2) || d[len(d)-1].Y != 1/float64(n) {
		t.Errorf("distribution ends: first %v, last %v", d[0], d[len(d)-1])
	}
	if got := distributionPoints([]float64{1, 1, 2, 3}); len(got) != 2 || got[0].X != 1 || got[0].Y != 0.5 || got[1].X != 2 || got[1].Y != 0.25 {
		t.Errorf("small distribution %v", got)
	}
}

func cmpF(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// TestCapacityDistributionOneValue: windows that all need the same X_n (one
// window, or a constant load) leave the log y axis one value (the share 1
// at G), which gonum widened to −0…2 and panicked on; it must draw.
func TestCapacityDistributionOneValue(t *testing.T) {
	ws := []capacity.Windowed{{DeltaS: 1, X: []float64{3, 3}}}
	if err := WriteCapacityDistribution(t.TempDir()+"/d.png", ws, 3, "unit", "t"); err != nil {
		t.Fatal(err)
	}
}
