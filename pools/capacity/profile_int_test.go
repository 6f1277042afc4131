package capacity

import (
	"errors"
	"testing"

	"github.com/fleetsim/fleetsim/workload"
)

// TestParseProfileWholeNumbers: the purchase increment, the minimum and the
// long-context threshold are whole numbers. YAML decodes 2.5 into an int
// field by truncation (gopkg.in/yaml.v3), which silently planned on an
// increment of 2; a fraction is bad input naming the key (review of issue
// 10).
func TestParseProfileWholeNumbers(t *testing.T) {
	for _, c := range []struct{ yaml, field string }{
		{"tau: 10\nincrement: 2.5", "increment"},
		{"tau: 10\nminimum: 7.9", "minimum"},
		{"tau: 10\nlong_context: {threshold: 5.5, input: 2}", "long_context.threshold"},
		{"tau: 10\nincrement: 1e300", "increment"},
		{"tau: 10\nlong_context: {threshold: 1e300, input: 2}", "long_context.threshold"},
	} {
		_, err := ParseProfile("x", []byte(c.yaml))
		var fe *workload.FieldError
		if !errors.As(err, &fe) || fe.Field != c.field {
			t.Errorf("%q: err = %v, want a FieldError on %s", c.yaml, err, c.field)
		}
	}
	// Whole numbers written as floats are whole numbers.
	p, err := ParseProfile("x", []byte("tau: 10\nincrement: 5.0\nminimum: 1e1\nlong_context: {threshold: 4096.0, input: 2}"))
	if err != nil || p.Increment != 5 || p.Minimum != 10 || p.Long.Threshold != 4096 {
		t.Errorf("whole numbers as floats: %+v, %v", p, err)
	}
}
