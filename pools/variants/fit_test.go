package variants

import (
	"errors"
	"strings"
	"testing"
)

// TestTwoPointFit: batch 1 → 7.0 ms and batch 64 → 8.7 ms give the line
// through both points, β = 1.7/63 = 0.026984 ms and α = 7.0 − β = 6.973016
// ms (issue 11's reference: α = 6.973, β = 0.02698 to 1e-3).
func TestTwoPointFit(t *testing.T) {
	f, err := FitLine([]float64{1, 64}, []float64{7.0, 8.7}, "bb")
	if err != nil {
		t.Fatal(err)
	}
	if relErr(f.Intercept, 6.973) > 1e-3 || relErr(f.Slope, 0.02698) > 1e-3 {
		t.Errorf("α = %v, β = %v; want 6.973, 0.02698", f.Intercept, f.Slope)
	}
	if f.R2 != 1 || f.RMS() > 1e-12 {
		t.Errorf("R² = %v, RMS = %v; want 1 and 0 (two points)", f.R2, f.RMS())
	}
}

func TestReadBenchFit(t *testing.T) {
	const csv = `mm,hw,prec,bb,itl,thp,dp,tp,in,prefill
llama,H100,fp16,1,7.0,140,1,1,1000,16.0
llama,H100,fp16,64,8.7,7300,1,1,1000,79.0
llama,H100,fp16,32,7.85,4000,1,1,1000,47.0
granite,A100,fp16,8,12,,1,2,,
granite,A100,fp16,16,14,,1,2,,
`
	gs, err := ReadBench(strings.NewReader(csv))
	if err != nil {
		t.Fatal(err)
	}
	if len(gs) != 2 || gs[0].Name() != "llama/H100/fp16/tp1" || len(gs[0].Rows) != 3 || gs[1].TP != 2 {
		t.Fatalf("groups %+v", gs)
	}
	p, err := FitGroup(gs[0], "test")
	if err != nil {
		t.Fatal(err)
	}
	// Hand check: prefill at in·bb = 1,000, 32,000, 64,000 is 16, 47, 79
	// ms: exactly 15 + 0.001·x, so γ = 15 and δ = 0.001.
	if relErr(p.Gamma, 15) > 1e-9 || relErr(p.Delta, 0.001) > 1e-9 || p.Fit.Prefill == nil {
		t.Errorf("γ = %v, δ = %v; want 15, 0.001", p.Gamma, p.Delta)
	}
	// Decode, by hand: x = 1, 32, 64, y = 7.0, 7.85, 8.7; x̄ = 32.333,
	// ȳ = 7.85, Sxy = 53.55, Sxx = 1984.667, β = 0.02698186, α = ȳ − β·x̄ =
	// 6.977586.
	if relErr(p.Alpha, 6.977586) > 1e-6 || relErr(p.Beta, 0.02698186) > 1e-6 || p.Fit.Decode.Points != 3 {
		t.Errorf("α = %v (points %d)", p.Alpha, p.Fit.Decode.Points)
	}
	g2, err := FitGroup(gs[1], "test")
	if err != nil || g2.Fit.Prefill != nil || relErr(g2.Beta, 0.25) > 1e-12 {
		t.Errorf("granite: %+v %v", g2, err)
	}
}

func TestBenchErrors(t *testing.T) {
	for _, c := range []struct{ name, csv, want string }{
		{"empty file", "", "no header"},
		{"header only", "mm,hw,prec,bb,itl\n", "no measurements"},
		{"missing column", "mm,hw,bb,itl\n", `missing column "prec"`},
		{"one batch size", "mm,hw,prec,bb,itl\nm,h,p,8,10\nm,h,p,8,11\n", "2 distinct"},
		{"negative slope", "mm,hw,prec,bb,itl\nm,h,p,1,10\nm,h,p,8,9\n", "β < 0"},
		{"bad number", "mm,hw,prec,bb,itl\nm,h,p,x,10\n", "line 2: bb"},
	} {
		gs, err := ReadBench(strings.NewReader(c.csv))
		if err == nil {
			_, err = FitGroup(gs[0], "t")
		}
		var fe *FieldError
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.As(err, &fe) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: err = %v, want a one-line field error containing %q", c.name, err, c.want)
		}
	}
}
