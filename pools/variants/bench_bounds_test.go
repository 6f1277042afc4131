package variants

import (
	"errors"
	"strings"
	"testing"
)

// TestBenchBounds: benchmark values out of any hardware's range are bad
// input naming line and column. itl = 1e308 on two rows fitted α = β = NaN
// and printed NaN with exit status 0; bb = 1e308 fitted a flat line with
// R² = 0; bb = 1.5 is no batch size (review of issue 11).
func TestBenchBounds(t *testing.T) {
	for _, c := range []struct{ name, csv, want string }{
		{"huge itl", "mm,hw,prec,bb,itl\nm,h,p,1,1e308\nm,h,p,64,1e308\n", "line 2: itl"},
		{"huge bb", "mm,hw,prec,bb,itl\nm,h,p,1,7\nm,h,p,1e308,8\n", "line 3: bb"},
		{"fractional bb", "mm,hw,prec,bb,itl\nm,h,p,1.5,7\nm,h,p,64,8\n", "line 2: bb"},
		{"huge prefill", "mm,hw,prec,bb,itl,in,prefill\nm,h,p,1,7,100,5\nm,h,p,2,8,100,1e300\n", "line 3: prefill"},
		{"huge in", "mm,hw,prec,bb,itl,in,prefill\nm,h,p,1,7,1e300,5\nm,h,p,2,8,100,6\n", "line 2: in"},
		{"fractional in", "mm,hw,prec,bb,itl,in,prefill\nm,h,p,1,7,100.5,5\nm,h,p,2,8,100,6\n", "line 2: in"},
	} {
		gs, err := ReadBench(strings.NewReader(c.csv))
		if err == nil {
			_, err = FitGroup(gs[0], "t")
		}
		var fe *FieldError
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.As(err, &fe) {
			t.Errorf("%s: err = %v, want a field error containing %q", c.name, err, c.want)
		}
	}
	// At the bounds the fit is finite and valid.
	gs, err := ReadBench(strings.NewReader("mm,hw,prec,bb,itl\nm,h,p,1,1e6\nm,h,p,65536,1e6\n"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := FitGroup(gs[0], "t")
	if err != nil || p.Validate("") != nil {
		t.Errorf("fit at the bounds: %+v, %v", p, err)
	}
}
