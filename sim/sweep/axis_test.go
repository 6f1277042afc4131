package sweep

import (
	"slices"
	"strings"
	"testing"
)

func TestParseAxis(t *testing.T) {
	for _, tc := range []struct {
		key, spec string
		want      []string
	}{
		{"rate", "100,200,400", []string{"100", "200", "400"}},
		{"rate", "100:1000:100", []string{"100", "200", "300", "400", "500", "600", "700", "800", "900", "1000"}},
		// Values are START + k·STEP (no running sum), and STOP counts when
		// the steps land on it.
		{"gamma", "1:1.5:0.25", []string{"1", "1.25", "1.5"}},
		{"rate", "5:6:10", []string{"5"}},                // STOP short of one step
		{"rate", " 12.50 , 14 ", []string{"12.5", "14"}}, // canonical numbers
		{"router", "length,cr", []string{"length", "cr"}},
		{"count.short", "1:3:1", []string{"1", "2", "3"}},
		{"gpu.long", "a100,h100", []string{"a100", "h100"}},
		{"seed", "0:2:1", []string{"0", "1", "2"}},
	} {
		a, err := ParseAxis(tc.key, tc.spec)
		if err != nil {
			t.Errorf("ParseAxis(%q, %q): %v", tc.key, tc.spec, err)
			continue
		}
		if !slices.Equal(a.Values, tc.want) {
			t.Errorf("ParseAxis(%q, %q) = %v, want %v", tc.key, tc.spec, a.Values, tc.want)
		}
	}
}

func TestParseAxisErrors(t *testing.T) {
	for _, tc := range []struct{ key, spec, want string }{
		{"rate", "100:1000", "a range is START:STOP:STEP"},
		{"rate", "100:x:10", `"x" is not a finite number`},
		{"rate", "100:50:10", "STOP 50 is below START 100"},
		{"rate", "1:2:0", "STEP must be > 0"},
		{"rate", "1:1e9:1", "expands to"},
		{"rate", "0,1", "value 0: must be > 0"},
		{"rate", "1,,2", "empty item"},
		{"rate", "1,1", "given twice"},
		{"rate", "NaN", "not a finite number"},
		{"colour", "red", `sweep key "colour": unknown`},
		{"rate.short", "1", "only count and gpu take a pool name"},
		{"count.", "1", "empty pool name"},
		{"count", "1.5", "whole number"},
		{"count", "0", "must be >= 1"},
		{"router", "a:b:c", "needs a numeric key"},
		{"rate", "", "no values"},
	} {
		_, err := ParseAxis(tc.key, tc.spec)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("ParseAxis(%q, %q) = %v, want one line containing %q", tc.key, tc.spec, err, tc.want)
		}
	}
}

func TestParseShard(t *testing.T) {
	s, err := ParseShard("2/5")
	if err != nil || s != (Shard{2, 5}) || s.String() != "2/5" {
		t.Fatalf("ParseShard(2/5) = %v, %v", s, err)
	}
	for _, bad := range []string{"3/2", "2/2", "-1/2", "1/0", "1", "a/b", "1/2/3", ""} {
		if _, err := ParseShard(bad); err == nil {
			t.Errorf("ParseShard(%q): no error", bad)
		}
	}
	// The shards of 10 points partition them.
	var all []int
	for i := range 3 {
		all = append(all, Shard{i, 3}.Points(10)...)
	}
	slices.Sort(all)
	if !slices.Equal(all, Shard{}.Points(10)) || len(all) != 10 {
		t.Errorf("the union of 3 shards of 10 points is %v", all)
	}
}
