package export

import (
	"bytes"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWriteFigure draws a two-series figure: the PNG decodes, the SVG is
// an SVG document, and drawing twice gives the same bytes.
func TestWriteFigure(t *testing.T) {
	f := Figure{Name: "fig", Title: "t", XLabel: "x", YLabel: "y", LogX: true,
		Series: []FigureSeries{{Name: "ours", X: []float64{1024, 2048, 4096}, Y: []float64{1, 2, 3}},
			{Name: "paper", X: []float64{1024, 4096}, Y: []float64{1.5, 2.5}, Dashed: true}}}
	dir := t.TempDir()
	paths, err := WriteFigure(dir, f)
	if err != nil || len(paths) != 2 {
		t.Fatalf("%v %v", paths, err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "fig.png"))
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil || img.Bounds().Dx() < 100 {
		t.Fatalf("png: %v", err)
	}
	s, _ := os.ReadFile(filepath.Join(dir, "fig.svg"))
	if !strings.Contains(string(s), "<svg") {
		t.Error("svg lacks <svg")
	}
	again, _ := f.Render("png")
	if !bytes.Equal(again, b) {
		t.Error("PNG not byte-identical on a second draw")
	}
	if _, err := (Figure{Name: "empty"}).Render("png"); err == nil {
		t.Error("empty figure accepted")
	}
}

// TestRenderLogNoPositiveData: a log-scale figure whose every value is 0
// (a sweep's ttft_p99 where --osd enforce stopped every point before a
// request completed) draws an empty decade, and one with a single value
// (`sweep --rates 2000 --pool-counts short=1 --osd enforce`) a range
// around it; gonum's log ticks panicked
// ("Values must be greater than 0 for a log scale") and took fleetsim
// sweep down with them.
func TestRenderLogNoPositiveData(t *testing.T) {
	for _, f := range []Figure{
		{Name: "y", LogY: true, Series: []FigureSeries{{Name: "p", X: []float64{1, 2}, Y: []float64{0, 0}}}},
		{Name: "x", LogX: true, Series: []FigureSeries{{Name: "p", X: []float64{0, -1}, Y: []float64{1, 2}}}},
		// One positive value: gonum widens an empty range by ±1, below 0.
		{Name: "one", LogY: true, Series: []FigureSeries{{Name: "p", X: []float64{2000}, Y: []float64{0.14}}}},
		{Name: "xy", LogX: true, LogY: true, Series: []FigureSeries{{Name: "p", X: []float64{0}, Y: []float64{0}}},
			Refs: []FigureRef{{At: 0.5, Label: "SLO"}}},
	} {
		for _, format := range FigureFormats {
			b, err := f.Render(format)
			if err != nil || len(b) == 0 {
				t.Errorf("%s %s: %d bytes, %v", f.Name, format, len(b), err)
			}
		}
	}
}

// TestLogAxisNarrowDistributionLabels: a CDF whose few bins sit within a
// factor of 1.3 (TPOT 6–8 ms, with the 80 ms SLO line widening the axis)
// was labelled at every bin edge, 16-digit numbers printed over one another
// (seen in a report of an overloaded one-pool run). The tick labels must be
// short numbers (1-2-5 steps) that do not collide.
func TestLogAxisNarrowDistributionLabels(t *testing.T) {
	var xs, ys []float64
	for k := 0; k <= 6; k++ {
		xs = append(xs, 0.005*math.Pow(10, float64(k)/50)) // 50 bins per decade
		ys = append(ys, float64(k)/6)
	}
	// One request: its end-to-end latency's two bin edges, 2.63 and
	// 2.75 s, hold no 1-2-5 value; the axis still gets labels.
	one := []float64{2.6302679918953817, 2.7542287033381694}
	for i, refs := range [][]FigureRef{nil, {{Label: "SLO", Vertical: true, At: 0.08}}, nil} {
		f := Figure{Name: "cdf", Title: "t", XLabel: "x", YLabel: "y", LogX: true, NoPoints: true, NoLegend: true,
			Series: []FigureSeries{{Name: "a", X: xs, Y: ys}}, Refs: refs}
		if i == 2 {
			f.Series[0].X, f.Series[0].Y = one, []float64{0, 1}
		}
		b, err := f.Render("svg")
		if err != nil {
			t.Fatal(err)
		}
		labels := svgTickLabels(string(b))
		if len(labels) < 5 { // 0.0, 0.5, 1.0 on y and two on x at least
			t.Fatalf("refs %v: no tick labels: %q", refs, labels)
		}
		for _, l := range labels {
			if len(l) > 8 {
				t.Errorf("refs %v: tick label %q: a long number (labels %q)", refs, l, labels)
			}
		}
	}
}

// svgTickLabels returns the texts of gonum's 10 px SVG labels (the ticks').
func svgTickLabels(svg string) []string {
	var out []string
	const mark = "font-size:10px\">"
	for {
		i := strings.Index(svg, mark)
		if i < 0 {
			return out
		}
		svg = svg[i+len(mark):]
		out = append(out, svg[:strings.Index(svg, "<")])
	}
}

// TestLogYAxisLabels: a sweep report's P99 TTFT (0.04–0.5 s, log y) had
// one label, 0.1 (plot.LogTicks labels powers of ten only); a log y axis
// within two decades gets 1-2-5 labels.
func TestLogYAxisLabels(t *testing.T) {
	f := Figure{Name: "p99", Title: "t", XLabel: "x", YLabel: "y", LogY: true, NoLegend: true,
		Series: []FigureSeries{{Name: "a", X: []float64{20, 40, 60}, Y: []float64{0.04, 0.2, 0.5}}}}
	b, err := f.Render("svg")
	if err != nil {
		t.Fatal(err)
	}
	var y []string
	for _, l := range svgTickLabels(string(b)) {
		if strings.HasPrefix(l, "0.") {
			y = append(y, l)
		}
	}
	if len(y) < 3 {
		t.Errorf("log y axis 0.04–0.5: labels %q, want at least 3", y)
	}
}

// TestLogAxisOneValueOrNone: gonum widens a one-value range by ±1 and
// panics on the values ≤ 0 that gives a log axis ("Values must be greater
// than 0 for a log scale"): `fleetsim sweep --rates 10 --pool a:a10g:1:2048`
// (one pool, one rate: a P99 TTFT of 0.0331 s drawn as −0.97…1.03) panicked.
// A log axis of one value, of no positive value, or asked to start at zero
// must draw; one without a positive value says so in its title.
func TestLogAxisOneValueOrNone(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    Figure
		note bool
	}{
		{"one y", Figure{LogY: true, Series: []FigureSeries{{Name: "a", X: []float64{10}, Y: []float64{0.0331}}}}, false},
		{"equal y", Figure{LogY: true, Series: []FigureSeries{{Name: "a", X: []float64{1, 2}, Y: []float64{0.5, 0.5}}}}, false},
		{"one x", Figure{LogX: true, Series: []FigureSeries{{Name: "a", X: []float64{0.5}, Y: []float64{1}}}}, false},
		{"y all zero", Figure{LogY: true, Series: []FigureSeries{{Name: "a", X: []float64{1, 2}, Y: []float64{0, 0}}}}, true},
		{"x all negative", Figure{LogX: true, Series: []FigureSeries{{Name: "a", X: []float64{-1, 0}, Y: []float64{1, 2}}}}, true},
		{"y from zero", Figure{LogY: true, YFromZero: true, YUnit: true, Series: []FigureSeries{{Name: "a", X: []float64{1, 2}, Y: []float64{0.5, 0.7}}}}, false},
		{"ref only", Figure{LogY: true, Refs: []FigureRef{{Label: "SLO", At: 0.2}}, Series: []FigureSeries{{Name: "a", X: []float64{1}, Y: []float64{0}}}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.f.Name, tc.f.Title = "f", "T"
			b, err := tc.f.Render("svg")
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(string(b), "no positive value"); got != tc.note {
				t.Errorf("note in the title: %v, want %v", got, tc.note)
			}
		})
	}
}

// TestLogYAxisConstant: a sweep whose every point has the same P99 TTFT
// (`fleetsim sweep --config examples/prefix/disagg.yaml --rates 10,20`:
// 99.4 ms at both rates) panicked in gonum's LogTicks ("Values must be
// greater than 0 for a log scale": the flat range was widened by ±1 into
// the negatives). A flat log axis is widened by a factor of 2 each way.
func TestLogYAxisConstant(t *testing.T) {
	for _, v := range []float64{0.0994, 5, 1e-4} {
		f := Figure{Name: "p99", Title: "t", XLabel: "x", YLabel: "y", LogY: true, LogX: true, NoLegend: true,
			Series: []FigureSeries{{Name: "a", X: []float64{20, 20}, Y: []float64{v, v}}}}
		if _, err := f.Render("svg"); err != nil {
			t.Fatal(err)
		}
	}
}
