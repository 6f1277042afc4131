package catalog

import (
	"strings"
	"testing"
)

// TestLookupPoolGPUs: the field is named and LookupGPU's own reason is kept
// (sim/sweep.Size and experiments.Validate used to replace it by "unknown").
func TestLookupPoolGPUs(t *testing.T) {
	if s, l, err := LookupPoolGPUs("a100", "a10g"); err != nil || s.Name != "a100" || l.Name != "a10g" {
		t.Fatalf("a100, a10g: %v, %v, %v", s.Name, l.Name, err)
	}
	for _, c := range []struct{ short, long, want string }{
		{"z900", "a100", `gpu "z900": unknown GPU "z900"`},
		{"a100", "q999", `gpu-long "q999": unknown GPU "q999"`},
	} {
		_, _, err := LookupPoolGPUs(c.short, c.long)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s, %s: err = %v, want it to contain %q", c.short, c.long, err, c.want)
		}
	}
}
