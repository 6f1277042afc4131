package sim

import (
	"strings"
	"testing"
)

// TestPoolInstanceProfile: a pool naming model and tp gets the computed
// profile GPU/MODEL/tpN (docs/catalog.md); bad specs fail Validate with one
// line on the pool's gpu field.
func TestPoolInstanceProfile(t *testing.T) {
	p := PoolConfig{Name: "a", GPU: "h100", Model: "llama-3.1-8b", TP: 1, Count: 1, MaxContext: 4096}
	g, err := p.InstanceProfile()
	// 25,720 blocks: (72 − 2 − 16.06) GB / (16 × 131,072 B), by hand in docs/catalog.md.
	if err != nil || g.Name != "h100/llama-3.1-8b/tp1" || g.KVBlocks != 25720 {
		t.Fatalf("profile %+v, %v", g, err)
	}
	if g, err := (PoolConfig{GPU: "h200", Model: "llama-3.1-405b"}).InstanceProfile(); err != nil || g.TP != 8 {
		t.Errorf("auto tp: %d, %v; want 8", g.TP, err)
	}
	if _, err := (PoolConfig{GPU: "a100", TP: 4}).InstanceProfile(); err == nil {
		t.Error("tp without a model: no error")
	}
	for _, bad := range []PoolConfig{
		{Name: "a", GPU: "h100", Model: "llama-3.1-70b", TP: 3, Count: 1, MaxContext: 4096},
		{Name: "a", GPU: "a10g/llama-3.1-70b/tp1", Count: 1, MaxContext: 4096},
	} {
		c := Defaults()
		c.Pools = []PoolConfig{bad}
		err := c.Validate()
		if err == nil || !strings.HasPrefix(err.Error(), "pools[0].gpu") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%+v: %v", bad, err)
		}
	}
}
