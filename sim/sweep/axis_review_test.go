package sweep

import (
	"strings"
	"testing"
)

// TestParseAxisErrorsShort: a huge range's size is printed compactly (it
// was a 300-digit number for 10:20:1e-300), and count/b_short fractions
// state their real lower bound (1, not 0).
func TestParseAxisErrorsShort(t *testing.T) {
	for _, tc := range []struct{ key, spec, want string }{
		{"rate", "10:20:1e-300", "expands to 1e+301 values"},
		{"count", "1.5", "must be a whole number >= 1"},
		{"b_short", "0.5", "must be a whole number >= 1"},
		{"seed", "1.5", "not a seed (a whole number 0 to 18446744073709551615"},
	} {
		_, err := ParseAxis(tc.key, tc.spec)
		if err == nil || !strings.Contains(err.Error(), tc.want) || len(err.Error()) > 200 {
			t.Errorf("ParseAxis(%q, %q): %v; want an error containing %q", tc.key, tc.spec, err, tc.want)
		}
	}
}
