package variants

import (
	"strings"
	"testing"
)

// TestReadProfilesDuplicateKeys: a key given twice in one object of a
// profile file is bad input naming it; encoding/json kept the last value
// silently ({"alpha_ms": 7, "alpha_ms": 8} read as α = 8). Review of issue
// 11.
func TestReadProfilesDuplicateKeys(t *testing.T) {
	for _, c := range []struct{ json, want string }{
		{`{"profiles": [{"alpha_ms": 7, "beta_ms": 0.1, "gamma_ms": 0, "delta_ms": 0, "alpha_ms": 8}]}`, `"alpha_ms" given twice`},
		{`{"profiles": [], "profiles": [{"alpha_ms": 7}]}`, `"profiles" given twice`},
		{`{"profiles": [{"alpha_ms": 7, "fit": {"source": "a", "source": "b", "decode": {}}}]}`, `"source" given twice`},
	} {
		_, err := ReadProfiles(strings.NewReader(c.json))
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: err = %v, want one line containing %s", c.json, err, c.want)
		}
	}
	// The same key in different objects is fine.
	if _, err := ReadProfiles(strings.NewReader(`{"profiles": [{"name": "a", "alpha_ms": 7}, {"name": "b", "alpha_ms": 8}]}`)); err != nil {
		t.Errorf("two profiles: %v", err)
	}
}
