package export

import (
	"bytes"
	"image/png"
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
