package sweep

import (
	"strings"
	"testing"
)

// FuzzParseAxis: any input gives an axis or a one-line error, never a
// panic; an accepted axis has distinct values within MaxRangeValues, and
// a numeric axis's values re-parse to themselves.
func FuzzParseAxis(f *testing.F) {
	for _, s := range []string{"100:1000:100", "1,2,3", "a100,h100", "1e308:1e308:1", "0:1e-300:1e-310", "-5:5:1", ",", "1:2:3:4"} {
		f.Add("rate", s)
		f.Add("count.short", s)
		f.Add("router", s)
	}
	f.Fuzz(func(t *testing.T, key, spec string) {
		a, err := ParseAxis(key, spec)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line error %q", err)
			}
			return
		}
		if len(a.Values) == 0 || len(a.Values) > MaxRangeValues {
			t.Fatalf("%d values", len(a.Values))
		}
		seen := map[string]bool{}
		for _, v := range a.Values {
			if seen[v] {
				t.Fatalf("value %q twice", v)
			}
			seen[v] = true
		}
		if a.Numeric() {
			b, err := ParseAxis(key, strings.Join(a.Values, ","))
			if err != nil || strings.Join(b.Values, ",") != strings.Join(a.Values, ",") {
				t.Fatalf("values %v do not re-parse: %v %v", a.Values, b.Values, err)
			}
		}
	})
}

// FuzzParseShard: an accepted shard has 0 <= I < N and prints back.
func FuzzParseShard(f *testing.F) {
	for _, s := range []string{"0/1", "3/2", "7/8", "-1/2", "1/0", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sh, err := ParseShard(s)
		if err != nil {
			return
		}
		if sh.I < 0 || sh.I >= sh.N {
			t.Fatalf("%q gave %+v", s, sh)
		}
		if again, err := ParseShard(sh.String()); err != nil || again != sh {
			t.Fatalf("%q: %v does not print back", s, sh)
		}
	})
}
