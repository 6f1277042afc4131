package catalog

import (
	"strings"
	"testing"

	"github.com/fleetsim/fleetsim/engine"
)

// Issue #20 item 6: profile constants the engine refuses at run time
// (w: 1e-300, exit 1 from simulate) must be refused by the profile file
// itself, naming the field and the engine's range; kv_blocks beyond its
// bound must state the bound, not ">= 1".
func TestProfileConstantsEngineRanges(t *testing.T) {
	bad := []struct{ yaml, want string }{
		{"w: 1e-300\n  h: 0.001\n  kv_blocks: 10000", "constants.w = 1e-300: must be 1e-12 to 1000 seconds"},
		{"w: 2000\n  h: 0\n  kv_blocks: 10000", "constants.w = 2000: must be 1e-12 to 1000 seconds"},
		// kv timing: 0.01 + 1000 × 10000 × 16 / 8192 s ≈ 1.95e7 s > 1000 s
		{"w: 0.01\n  h: 1000\n  kv_blocks: 10000", "constants.h = 1000: an iteration holding the whole KV cache would take 1.953e+04 s"},
		{"w: 0.01\n  h: 0.001\n  kv_blocks: 1e18", "constants.kv_blocks = 1000000000000000000: must be 1 to 1073741824"},
		// 2^40 blocks were accepted and the run failed (its work past the
		// simulator's time range, exit 1); the bound is sim's pools[].kv_blocks'.
		{"w: 0.01\n  h: 1e-9\n  kv_blocks: 1099511627776", "constants.kv_blocks = 1099511627776: must be 1 to 1073741824"},
		{"w: 0.01\n  h: 0.001\n  kv_blocks: 100\n  block_tokens: 2000000", "constants.block_tokens = 2000000: must be 1 to 1048576"},
		{"w: 0.01\n  h: 0.001\n  kv_blocks: 100\n  calib_ctx: -1", "constants.calib_ctx = -1: must be 1 to"},
	}
	for _, c := range bad {
		_, err := ParseProfileFile([]byte("constants:\n  "+c.yaml+"\n"), nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want it to contain %q", c.yaml, err, c.want)
		}
	}
	// The edges the engine accepts are accepted, and the profile they give
	// passes the engine's own check (timing kv, whole KV budget).
	g, err := ParseProfileFile([]byte("constants:\n  w: 1e-12\n  h: 0\n  kv_blocks: 1\n"), nil)
	if err != nil {
		t.Fatalf("w = 1e-12 (engine.MinIterationS): %v", err)
	}
	ec, err := g.EngineConfig(16, TimingKV)
	if err != nil {
		t.Fatal(err)
	}
	if err := ec.Validate(); err != nil {
		t.Errorf("accepted profile refused by the engine: %v", err)
	}
	if _, err := ParseProfileFile([]byte("constants:\n  w: 1000\n  h: 0\n  kv_blocks: 1\n"), nil); err != nil {
		t.Errorf("w = 1000 (engine.MaxIterationS): %v", err)
	}
	if engine.MinIterationS != 1e-12 {
		t.Errorf("engine.MinIterationS = %g; the messages above quote 1e-12", engine.MinIterationS)
	}
}
