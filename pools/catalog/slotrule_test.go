package catalog

import "testing"

// TestSlotsByRule: the token-budget paper's N_seq = min(128, ⌊65,536/⌈B/16⌉⌋)
// is 128 for B ≤ 8,192, 64 at 16,384 and 32 at 32,768 (App. A, "dynamic
// pool configuration"); the scaled rule gives FleetOpt §7.1's 256 at 4,096
// and 682 at 1,536.
func TestSlotsByRule(t *testing.T) {
	g, _ := LookupGPU("a100")
	for _, c := range []struct {
		ctx            int
		capped, scaled int
	}{{1024, 128, 1024}, {1536, 128, 682}, {4096, 128, 256}, {8192, 128, 128}, {16384, 64, 64}, {32768, 32, 32}, {65536, 16, 16}} {
		cp, err1 := g.SlotsByRule(c.ctx, SlotRuleCapped)
		sc, err2 := g.SlotsByRule(c.ctx, "")
		if err1 != nil || err2 != nil || cp != c.capped || sc != c.scaled {
			t.Errorf("ctx %d: capped %d scaled %d, want %d %d", c.ctx, cp, sc, c.capped, c.scaled)
		}
	}
	if _, err := g.SlotsByRule(4096, "bogus"); err == nil {
		t.Error("unknown rule accepted")
	}
	// A profile carrying the capped rule: Slots (and so EngineConfig, the
	// planner and the simulator) follow it.
	c, err := g.WithSlotRule(SlotRuleCapped)
	if err != nil || c.Slots(4096) != 128 || g.Slots(4096) != 256 {
		t.Errorf("WithSlotRule: capped %d, catalog %d (%v)", c.Slots(4096), g.Slots(4096), err)
	}
	if ec, err := c.EngineConfig(1536, ""); err != nil || ec.MaxSeqs != 128 {
		t.Errorf("EngineConfig under the capped rule: %+v %v", ec, err)
	}
}
