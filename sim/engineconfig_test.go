package sim

import (
	"strings"
	"testing"

	"github.com/fleetsim/fleetsim/pools/catalog"
)

// Issue #20 item 6: a pool whose engine would be refused when the run
// builds it (exit 1 at run time) is refused by Validate (exit 2 up front).
// Paper timing, max_ctx 16: slots = 19 × 8192 / 16 = 9728, so the longest
// iteration is 0.01 + 1 × 9728 s > engine.MaxIterationS (1000 s).
func TestValidateEngineConfig(t *testing.T) {
	g := catalog.GPU{Name: "custom", W: 0.01, H: 1, KVBlocks: 10000, MaxSlots: 19, CalibCtx: 8192, ChunkTokens: 512, BlockTokens: 16}
	c := Defaults()
	c.Timing = catalog.TimingPaper
	c.Pools = []PoolConfig{{Name: "a", Instance: &g, Count: 1, MaxContext: 16}}
	err := c.Validate()
	if err == nil || !strings.Contains(err.Error(), "pools[0]") || !strings.Contains(err.Error(), "longest iteration takes 9728 s") {
		t.Fatalf("Validate: %v, want pools[0] refused for its longest iteration", err)
	}
	c.Timing = catalog.TimingKV // 0.01 + 1/8192 × 10000 × 16 ≈ 19.5 s: fine
	if err := c.Validate(); err != nil {
		t.Errorf("timing kv: %v", err)
	}
}

// The check uses the pool's own timing (pools[].timing) when it has one:
// the run's kv with the pool's paper timing is refused as paper is.
func TestValidateEngineConfigPoolTiming(t *testing.T) {
	g := catalog.GPU{Name: "custom", W: 0.01, H: 1, KVBlocks: 10000, MaxSlots: 19, CalibCtx: 8192, ChunkTokens: 512, BlockTokens: 16}
	c := Defaults()
	c.Timing = catalog.TimingKV
	c.Pools = []PoolConfig{{Name: "a", Instance: &g, Count: 1, MaxContext: 16, Timing: catalog.TimingPaper}}
	err := c.Validate()
	if err == nil || !strings.Contains(err.Error(), "pools[0]") || !strings.Contains(err.Error(), "longest iteration takes 9728 s") {
		t.Fatalf("Validate: %v, want pools[0] refused for its own (paper) timing's longest iteration", err)
	}
}
