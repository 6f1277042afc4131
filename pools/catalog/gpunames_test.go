package catalog

import (
	"strings"
	"testing"
)

// TestUnknownGPUNamesBareSpecs: an unknown GPU's message lists every name
// a pool accepts, the bare catalog specifications (h100, h200, b200, l40s:
// the specification serving DefaultModel) included; it listed only the
// hand-written profiles (a100, a10g, h100-est, mi300x), as if a bare h200
// were refused.
func TestUnknownGPUNamesBareSpecs(t *testing.T) {
	_, err := LookupGPU("h200x")
	if err == nil {
		t.Fatal("h200x accepted")
	}
	for _, n := range []string{"a100", "h100-est", "h100", "h200", "b200", "l40s", "mi300x"} {
		if !strings.Contains(err.Error(), " "+n+",") {
			t.Errorf("message %q does not list %s", err, n)
		}
	}
	names := AcceptedGPUNames()
	for i := 1; i < len(names); i++ {
		if names[i-1] >= names[i] {
			t.Errorf("AcceptedGPUNames not sorted and unique: %v", names)
		}
	}
}
