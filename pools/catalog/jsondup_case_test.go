package catalog

import (
	"strings"
	"testing"
)

// Review of #20 item 6: encoding/json matches a key to a field without
// regard to case (Unicode simple folding), so {"torch_dtype": "bfloat16",
// "Torch_Dtype": "float32"} passed the duplicate-key check and costed the
// weights at float32's 4 bytes (a Python reader keeps bfloat16). Keys that
// differ only by case are the same key twice.
func TestCheckDuplicateKeysCase(t *testing.T) {
	for _, tc := range []struct{ json, want string }{
		{`{"torch_dtype": "bfloat16", "Torch_Dtype": "float32"}`, `key "Torch_Dtype" given twice in one object (as "torch_dtype"; keys match regardless of case)`},
		{`{"a": {"ks": 1, "Kſ": 2}}`, `key "Kſ" given twice in one object (as "ks"`}, // Kelvin sign and long s fold to k, s
		{`[{"x": 1}, {"y": 1, "Y": 2}]`, `key "Y" given twice`},
	} {
		if err := CheckDuplicateKeys([]byte(tc.json)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.json, err, tc.want)
		}
	}
	if err := CheckDuplicateKeys([]byte(`{"a": 1, "b": {"a": 2}, "c": [{"a": 3}, {"a": 4}]}`)); err != nil {
		t.Errorf("same key in different objects: %v", err)
	}
}
