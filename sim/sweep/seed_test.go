package sweep

import (
	"strconv"
	"strings"
	"testing"

	"github.com/fleetsim/fleetsim/sim"
)

// Issue #20 item 6: seeds were parsed as float64, so --seeds
// 9007199254740993 (2^53+1) ran seed ...992, and seeds above 2^53 that
// simulate --seed accepts were refused. Seeds are whole numbers 0 to
// 2^64-1 parsed as simulate --seed parses them (strconv.ParseUint base 0).
func TestSeedAxisIntegers(t *testing.T) {
	for _, tc := range []struct {
		spec string
		want []string
	}{
		{"9007199254740993", []string{"9007199254740993"}},
		{"18446744073709551615", []string{"18446744073709551615"}},
		{"0x10,0b11,1_000", []string{"16", "3", "1000"}},
		{"18446744073709551613:18446744073709551615:1", []string{"18446744073709551613", "18446744073709551614", "18446744073709551615"}},
		{"9007199254740993:9007199254740997:2", []string{"9007199254740993", "9007199254740995", "9007199254740997"}},
		{"0:18446744073709551615:18446744073709551615", []string{"0", "18446744073709551615"}},
	} {
		a, err := ParseAxis(KeySeed, tc.spec)
		if err != nil || strings.Join(a.Values, ",") != strings.Join(tc.want, ",") {
			t.Errorf("seed %q: %v %v, want %v", tc.spec, a.Values, err, tc.want)
			continue
		}
		// the run gets exactly that seed
		var c sim.Config
		if err := a.apply(&c, a.Values[0]); err != nil || strconv.FormatUint(c.Seed, 10) != tc.want[0] {
			t.Errorf("seed %q applied as %d (%v), want %s", tc.spec, c.Seed, err, tc.want[0])
		}
	}
	for _, bad := range []string{"18446744073709551616", "-1", "1.5", "1e3", "0:18446744073709551615:1", "5:1:1", "1:2:0", "1:2", ",1"} {
		if a, err := ParseAxis(KeySeed, bad); err == nil || strings.Contains(err.Error(), "\n") {
			t.Errorf("seed %q: accepted as %v (%v)", bad, a.Values, err)
		}
	}
}

// FuzzParseSeeds: any seed axis gives seeds or a one-line error, never a
// panic; an accepted axis holds distinct canonical decimal seeds within
// MaxRangeValues, and a single seed is exactly what simulate --seed
// (strconv.ParseUint base 0, pflag's Uint64) makes of it.
func FuzzParseSeeds(f *testing.F) {
	for _, s := range []string{"1", "9007199254740993", "18446744073709551615", "18446744073709551616", "1:8:1",
		"0:18446744073709551615:18446744073709551615", "0x10,0b11", "1.5", "1e3", "-1", "1,1", " 7 ", "1:2:0", "5:1:1", "1_0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		a, err := ParseAxis(KeySeed, spec)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line error %q", err)
			}
			return
		}
		if len(a.Values) == 0 || len(a.Values) > MaxRangeValues {
			t.Fatalf("%q: %d values", spec, len(a.Values))
		}
		seen := map[string]bool{}
		for _, v := range a.Values {
			s, err := strconv.ParseUint(v, 10, 64)
			if err != nil || strconv.FormatUint(s, 10) != v {
				t.Fatalf("%q: value %q is not a canonical decimal seed", spec, v)
			}
			if seen[v] {
				t.Fatalf("%q: seed %s twice", spec, v)
			}
			seen[v] = true
		}
		if !strings.ContainsAny(spec, ",:") {
			s, err := strconv.ParseUint(strings.TrimSpace(spec), 0, 64)
			if err != nil || a.Values[0] != strconv.FormatUint(s, 10) {
				t.Fatalf("%q: seed %s, simulate --seed gives %d (%v)", spec, a.Values[0], s, err)
			}
		}
	})
}

// Review of #20 item 6: as in simulate --seed (ParseUint base 0), a leading
// 0 makes a seed octal: 010 is seed 8, and 09 is refused. The docs said
// "decimal, or 0x/0o/0b"; the refusal of 09 now says why.
func TestSeedLeadingZeroOctal(t *testing.T) {
	a, err := ParseAxis(KeySeed, "010,07")
	if err != nil || strings.Join(a.Values, ",") != "8,7" {
		t.Errorf("010,07: %v %v, want 8,7 (octal, as simulate --seed)", a.Values, err)
	}
	_, err = ParseAxis(KeySeed, "08,09")
	if err == nil || !strings.Contains(err.Error(), `"08" is not a seed: a leading 0 makes it octal, as in simulate --seed; write 8`) {
		t.Errorf("08: %v", err)
	}
}
