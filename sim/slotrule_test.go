package sim

import (
	"strings"
	"testing"
)

// TestPoolSlotRule: a pool's slot_rule "capped" gives the token-budget
// paper's N_seq = min(128, 65,536/⌈ctx/16⌉) — 128 at 4,096 tokens on the
// A100 (App. A), where the catalog's scaled rule gives 256 — and an unknown
// rule is one field error.
func TestPoolSlotRule(t *testing.T) {
	for _, c := range []struct {
		rule  string
		slots int
	}{{"", 256}, {"scaled", 256}, {"capped", 128}} {
		g, err := PoolConfig{Name: "s", GPU: "a100", Count: 1, MaxContext: 4096, SlotRule: c.rule}.gpu()
		if err != nil || g.Slots(4096) != c.slots {
			t.Errorf("rule %q: %d slots (%v), want %d", c.rule, g.Slots(4096), err, c.slots)
		}
	}
	cfg := Defaults()
	cfg.Pools[0].SlotRule = "tight"
	err := cfg.Validate()
	if err == nil || !strings.Contains(err.Error(), "slot_rule") || !strings.Contains(err.Error(), "capped") {
		t.Errorf("unknown slot rule: %v", err)
	}
}
