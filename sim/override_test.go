package sim

import (
	"strings"
	"testing"

	"github.com/fleetsim/fleetsim/engine"
)

// TestEngineOverride: an override replaces exactly the fields it sets, and
// Validate names a bad one.
func TestEngineOverride(t *testing.T) {
	c := engine.Config{MaxSeqs: 128, KVBlocks: 100, BlockTokens: 16, ChunkTokens: 512, MaxModelLen: 8192,
		Timing: engine.Timing{W: 0.008, HSeq: 0.00065}}
	var none *EngineOverride
	none.apply(&c)
	tm := engine.Timing{W: 0.007, HSeq: 0.00004, P: 3e-7}
	(&EngineOverride{Timing: &tm, MaxSeqs: 512}).apply(&c)
	want := engine.Config{MaxSeqs: 512, KVBlocks: 100, BlockTokens: 16, ChunkTokens: 512, MaxModelLen: 8192, Timing: tm}
	if c != want {
		t.Errorf("got %+v, want %+v", c, want)
	}
	base := Defaults()
	for _, tc := range []struct {
		p    PoolConfig
		want string
	}{
		{PoolConfig{Profile: "x.json"}, "pools[0].profile"},
		{PoolConfig{ProfileName: "p"}, "pools[0].profile_name"},
		{PoolConfig{Override: &EngineOverride{MaxSeqs: -1}}, "pools[0].override"},
		{PoolConfig{Profile: "x.json", Override: &EngineOverride{Timing: &engine.Timing{W: 0}}}, "Timing.W"},
	} {
		cfg := base
		p := cfg.Pools[0]
		p.Profile, p.ProfileName, p.Override = tc.p.Profile, tc.p.ProfileName, tc.p.Override
		cfg.Pools = []PoolConfig{p}
		if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: err = %v, want %q", tc.p, err, tc.want)
		}
	}
}
