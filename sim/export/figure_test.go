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
