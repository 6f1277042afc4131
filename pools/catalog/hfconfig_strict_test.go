package catalog

import (
	"os"
	"strings"
	"testing"
)

// Issue #20 item 6: a config.json with an unknown torch_dtype was costed at
// 2 bytes per weight, hidden_size not divisible by the heads (no head_dim)
// gave a truncated head_dim, and a key given twice took the last value.
// Each is now a one-line error naming the key.
func TestHFConfigStrict(t *testing.T) {
	edit := llamaConfigEdit(t)
	for _, tc := range []struct {
		data []byte
		want string
	}{
		{edit(`"bfloat16"`, `"int4"`), `torch_dtype = "int4": unknown (allowed: bfloat16, float16, float32, float8_e4m3fn, float8_e5m2`},
		{edit(`"hidden_size": 4096`, `"hidden_size": 4100`), "hidden_size = 4100: not divisible by num_attention_heads = 32, and head_dim is absent"},
		{edit(`"num_hidden_layers": 32,`, `"num_hidden_layers": 32, "num_hidden_layers": 2,`), `key "num_hidden_layers" given twice in one object`},
	} {
		_, err := ParseHFConfig("x", tc.data)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("error %v, want one line containing %q", err, tc.want)
		}
	}
	// What stays accepted: an explicit head_dim with an indivisible
	// hidden_size; float32 at 4 bytes and float8 at 1 (8.03e9 parameters,
	// the llama-3.1-8b estimate, 16.06 GB at 2 bytes).
	if _, err := ParseHFConfig("x", edit(`"hidden_size": 4096`, `"hidden_size": 4100, "head_dim": 128`)); err != nil {
		t.Errorf("explicit head_dim: %v", err)
	}
	for dt, b := range map[string]float64{"float32": 4, "FLOAT16": 2, "float8_e4m3fn": 1} {
		m, err := ParseHFConfig("x", edit(`"bfloat16"`, `"`+dt+`"`))
		if err != nil || m.WeightBytes != m.Params*b {
			t.Errorf("torch_dtype %s: %v bytes for %v params (%v), want %v per parameter", dt, m.WeightBytes, m.Params, err, b)
		}
	}
}

// llamaConfigEdit returns a function giving testdata's Llama-3.1-8B
// config.json with its first old replaced by new.
func llamaConfigEdit(t *testing.T) func(old, new string) []byte {
	t.Helper()
	base, err := os.ReadFile("testdata/llama-3.1-8b-config.json")
	if err != nil {
		t.Fatal(err)
	}
	return func(old, new string) []byte {
		if !strings.Contains(string(base), old) {
			t.Fatalf("testdata lacks %q", old)
		}
		return []byte(strings.Replace(string(base), old, new, 1))
	}
}
