package sim

import (
	"testing"

	"github.com/fleetsim/fleetsim/engine"
)

// TestTimingLabelVariantProfile: a pool whose timing comes from a variant
// profile (Override.Timing: W = α, H_seq = β, P = δ, docs/variants.md §7)
// runs no preset, so the label says so instead of naming what the preset
// would have resolved to ("kv + calibrated prefill" for a100 under auto,
// or a bare "kv" under --timing kv).
func TestTimingLabelVariantProfile(t *testing.T) {
	prof := PoolConfig{Name: "v", GPU: "a100", Count: 1, MaxContext: 4096, Profile: "a100.json",
		Override: &EngineOverride{Timing: &engine.Timing{W: 0.008, HSeq: 0.00065}}}
	plain := PoolConfig{Name: "p", GPU: "a100", Count: 1, MaxContext: 4096}
	for _, c := range []struct {
		timing string
		pools  []PoolConfig
		want   string
	}{
		{"auto", []PoolConfig{prof}, "auto (variant profile)"},
		{"auto", []PoolConfig{plain, prof}, "auto (kv + calibrated prefill, variant profile)"},
		{"kv", []PoolConfig{prof}, "kv (variant profile)"},
		{"kv", []PoolConfig{plain}, "kv"},
	} {
		if got := (Config{Timing: c.timing, Pools: c.pools}).TimingLabel(); got != c.want {
			t.Errorf("%s %v: %q, want %q", c.timing, c.pools, got, c.want)
		}
	}
}
