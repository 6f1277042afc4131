package variants

import (
	"bytes"
	"strings"
	"testing"
)

// FuzzReadBench: the benchmark reader never panics, reports errors in one
// line, and every group it returns either fits or fails with an error.
func FuzzReadBench(f *testing.F) {
	f.Add("mm,hw,prec,bb,itl,thp,dp,tp,in,prefill\nllama,H100,fp16,1,7.0,140,1,1,1000,16\nllama,H100,fp16,64,8.7,7300,1,1,1000,79\n")
	f.Add("mm,hw,prec,bb,itl\nm,h,p,8,10\n")
	f.Add("\ufeffMM, HW, PREC, BB, ITL, ttft, in\nm,h,p,1,1,2,3\n")
	f.Add("mm,hw\n\"unterminated\n")
	f.Fuzz(func(t *testing.T, s string) {
		gs, err := ReadBench(strings.NewReader(s))
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("multi-line error %q", err)
			}
			return
		}
		for _, g := range gs {
			p, err := FitGroup(g, "fuzz")
			if err == nil {
				if err := p.Validate(""); err != nil {
					t.Errorf("fitted profile invalid: %v", err)
				}
			}
		}
	})
}

// FuzzReadProfiles: the profile reader never panics and what it accepts
// writes back and reads again to the same profiles.
func FuzzReadProfiles(f *testing.F) {
	f.Add(`{"profiles": [{"name": "a", "alpha_ms": 8, "beta_ms": 0.65, "gamma_ms": 0, "delta_ms": 0}]}`)
	f.Add(`{"profiles": []}`)
	f.Add(`{"profiles": [{"alpha_ms": -1}]}`)
	f.Fuzz(func(t *testing.T, s string) {
		ps, err := ReadProfiles(strings.NewReader(s))
		if err != nil {
			return
		}
		var b bytes.Buffer
		if err := WriteProfiles(&b, ps); err != nil {
			t.Fatal(err)
		}
		again, err := ReadProfiles(&b)
		if err != nil || len(again) != len(ps) {
			t.Fatalf("round trip: %v (%d vs %d profiles)", err, len(again), len(ps))
		}
	})
}
