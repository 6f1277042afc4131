package variants

import (
	"strings"
	"testing"
)

// Issue #20 item 6: ReadBench silently took the last of two columns of one
// name, dropped the prefill data of rows with in = 0 (the fit then said "no
// in/prefill columns"), and accepted both prefill and ttft (using prefill).
// Each is now a one-line error naming the header or the line.
func TestReadBenchStrict(t *testing.T) {
	for _, tc := range []struct{ csv, want string }{
		{"mm,hw,prec,bb,itl,itl\nm,h,fp16,1,10,99\n", `column "itl" is given twice (columns 5 and 6)`},
		{"mm,hw,prec,BB,itl,bb\nm,h,fp16,1,10,2\n", `column "bb" is given twice (columns 4 and 6)`},
		{"mm,hw,prec,bb,itl,in,prefill\nm,h,fp16,1,10,0,50\nm,h,fp16,2,11,0,60\n", `line 2: in = "0": a row with a prefill time needs a prompt of 1 to 16777216 tokens`},
		{"mm,hw,prec,bb,itl,in,prefill,ttft\nm,h,fp16,1,10,100,50,500\n", "has both prefill and ttft"},
		{"mm,hw,prec,bb,itl,in\nm,h,fp16,1,10,100\n", "needs both an in column and a prefill (or ttft) column"},
		{"mm,hw,prec,bb,itl,ttft\nm,h,fp16,1,10,100\n", "needs both an in column and a prefill (or ttft) column"},
		{"mm,hw,prec,bb,itl,in,ttft\nm,h,fp16,1,10,100,\n", `line 2: in/ttft = "100/": give both`},
	} {
		_, err := ReadBench(strings.NewReader(tc.csv))
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: error %v, want one line containing %q", tc.csv, err, tc.want)
		}
	}
	// rows without prefill values beside rows with them stay allowed
	g, err := ReadBench(strings.NewReader("mm,hw,prec,bb,itl,in,ttft\nm,h,fp16,1,10,,\nm,h,fp16,2,11,100,60\n"))
	if err != nil || len(g) != 1 || g[0].Rows[0].HasPre || !g[0].Rows[1].HasPre || g[0].Rows[1].Prefill != 60 {
		t.Errorf("mixed rows: %+v %v", g, err)
	}
}

// Prefill values that give no line used to leave γ = δ = 0 (no prefill
// cost) and print "prefill: no in/prefill columns": one row, one in·bb, or
// a falling line are errors naming the group.
func TestFitGroupPrefillNotDropped(t *testing.T) {
	for _, tc := range []struct{ csv, want string }{
		{"mm,hw,prec,bb,itl,in,prefill\nm,h,fp16,1,10,100,50\nm,h,fp16,2,11,,\n", "prefill against in*bb = 100: one row only: at least 2 distinct values are needed for a line"},
		{"mm,hw,prec,bb,itl,in,prefill\nm,h,fp16,1,10,200,50\nm,h,fp16,2,11,100,60\n", "m/h/fp16/tp1: prefill against in*bb"},
		// x = 100, 200 with y = 60, 50: δ = −0.1 ms per token
		{"mm,hw,prec,bb,itl,in,prefill\nm,h,fp16,1,10,100,60\nm,h,fp16,2,11,100,50\n", "delta_ms = -0.1: the fitted prefill time falls with in·bb"},
		// x = 100, 200 with y = 10, 30: γ = −10 ms
		{"mm,hw,prec,bb,itl,in,prefill\nm,h,fp16,1,10,100,10\nm,h,fp16,2,11,100,30\n", "gamma_ms = -10: the fitted prefill time at in·bb = 0 is negative"},
	} {
		gs, err := ReadBench(strings.NewReader(tc.csv))
		if err != nil {
			t.Fatal(err)
		}
		_, err = FitGroup(gs[0], "test")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want an error containing %q", tc.csv, err, tc.want)
		}
	}
}
