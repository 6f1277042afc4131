package catalog

import (
	"strings"
	"testing"
)

// Review of #20 item 6: YAML's decoder truncates a float into an int field,
// so `kv_blocks: 1.5` was accepted as 1 block (slots@8192 = 0) and
// `layers: 32.7` in a model_spec as 32. A count that is not a whole number
// is refused in one line naming the key and the value; whole numbers
// written as floats (1e4, 16.0) stay accepted.
func TestProfileFileWholeNumbers(t *testing.T) {
	for _, tc := range []struct{ yaml, want string }{
		{"constants:\n  w: 0.01\n  h: 0.001\n  kv_blocks: 1.5\n", "constants.kv_blocks = 1.5: must be a whole number"},
		{"constants:\n  w: 0.01\n  h: 0.001\n  kv_blocks: 100\n  max_slots: 2.7\n", "constants.max_slots = 2.7: must be a whole number"},
		{"constants:\n  w: 0.01\n  h: 0.001\n  kv_blocks: 100\n  block_tokens: 16.5\n", "constants.block_tokens = 16.5: must be a whole number"},
		{"gpu: a100\ntp: 1.5\nmodel: llama-3.1-8b\n", "tp = 1.5: must be a whole number"},
		{"gpu: a100\nmodel_spec: {name: m, layers: 32.7, kv_heads: 8, head_dim: 128, kv_bytes: 2, weight_bytes: 16e9}\n", "model_spec.layers = 32.7: must be a whole number"},
	} {
		_, err := ParseProfileFile([]byte(tc.yaml), nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: %v, want one line containing %q", tc.yaml, err, tc.want)
		}
	}
	g, err := ParseProfileFile([]byte("constants:\n  w: 0.01\n  h: 0.001\n  kv_blocks: 1e4\n  block_tokens: 16.0\n"), nil)
	if err != nil || g.KVBlocks != 10000 || g.BlockTokens != 16 {
		t.Errorf("kv_blocks 1e4, block_tokens 16.0: %+v %v", g, err)
	}
}
