package catalog

import "fmt"

// Slot rules: how many sequences one instance holds at a max context.
const (
	// SlotRuleScaled is GPU.Slots: the batch limit MaxSlots holds at
	// CalibCtx and scales as MaxSlots·CalibCtx/maxCtx (FleetOpt §7.1: 256
	// slots at 4,096, 682 at 1,536), capped by the KV blocks.
	SlotRuleScaled = "scaled"
	// SlotRuleCapped is the token-budget paper's rule (App. A, "dynamic pool
	// configuration"): N_seq = min(MaxSlots, ⌊KVBlocks/⌈maxCtx/16⌉⌋) — the
	// batch limit does not grow below CalibCtx (128 at every B ≤ 8,192 on
	// the A100, 64 at 16,384, 32 at 32,768).
	SlotRuleCapped = "capped"
)

// SlotRules lists the slot rules.
func SlotRules() []string { return []string{SlotRuleScaled, SlotRuleCapped} }

// WithSlotRule returns the profile with its Slots rule set to rule
// ("" = SlotRuleScaled), or an error naming the rules allowed.
func (g GPU) WithSlotRule(rule string) (GPU, error) {
	switch rule {
	case "", SlotRuleScaled:
		g.SlotRule = ""
	case SlotRuleCapped:
		g.SlotRule = SlotRuleCapped
	default:
		return g, fmt.Errorf("slot rule %q: allowed: scaled, capped", rule)
	}
	return g, nil
}

// SlotsByRule is the slot count of one instance at maxCtx under rule
// ("" = SlotRuleScaled), whatever g.SlotRule; 0 when one max-length
// sequence does not fit.
func (g GPU) SlotsByRule(maxCtx int, rule string) (int, error) {
	g, err := g.WithSlotRule(rule)
	if err != nil {
		return 0, err
	}
	return g.Slots(maxCtx), nil
}

// cappedSlots is SlotRuleCapped: min(MaxSlots, ⌊KVBlocks/⌈maxCtx/16⌉⌋).
func (g GPU) cappedSlots(maxCtx int) int {
	return min(g.MaxSlots, g.KVBlocks/((maxCtx+g.BlockTokens-1)/g.BlockTokens))
}
