package experiments

import (
	"github.com/fleetsim/fleetsim/pools/catalog"
	"github.com/fleetsim/fleetsim/pools/fleetopt"
)

// fleetOptTable1Paper is FleetOpt Table 1 (B_short = 8,192, Llama-3-70B on
// A100-80GB, long pool sized for 64K): per L_total, slots per GPU, KV
// utilised (%), GB per slot and the cost ratio.
var fleetOptTable1Paper = []struct {
	Tokens                      int
	Slots, KVPct, GBSlot, Ratio float64
}{
	{8192, 128, 100, 2.5, 1.0},
	{8193, 16, 12.5, 20.0, 8.0},
	{12000, 16, 18.3, 20.0, 8.0},
	{65536, 16, 100, 20.0, 8.0},
}

// gib is 2^30 bytes: the paper's "GB" per slot (8,192 × 327,680 B =
// 2.5·2^30; 65,536 × 327,680 B = 20·2^30).
const gib = 1 << 30

// FleetOptTable1 reproduces FleetOpt Table 1, the cost cliff at B = 8,192:
// a request one token above the boundary moves from a 128-slot pool to a
// 16-slot one, from the slot rule (catalog.GPU.Slots) and the model's KV
// bytes per token (catalog.Model).
func FleetOptTable1(Options) ([]Table, error) {
	t := Table{
		Name:    "fleetopt-table1",
		Title:   "FleetOpt Table 1 — the cost cliff at B_short = 8,192 (Llama-3-70B, A100-80GB, long pool at 65,536 tokens)",
		Source:  "FleetOpt (arXiv 2603.16514) Table 1 and §2.2",
		Columns: append([]string{"L_total", "pool", "quantity"}, CompareColumns...),
	}
	g, err := catalog.LookupGPU("a100")
	if err != nil {
		return nil, err
	}
	m, err := catalog.LookupModel("llama-3-70b")
	if err != nil {
		return nil, err
	}
	const b, long = 8192, fleetopt.DefaultLongCtx
	for _, p := range fleetOptTable1Paper {
		pool, ctx := "short", b
		if p.Tokens > b {
			pool, ctx = "long", long
		}
		slots := g.Slots(ctx)
		k := []any{p.Tokens, pool}
		t.Rows = append(t.Rows,
			row(append(k, "slots per GPU"), Compare(float64(slots), p.Slots, 0)),
			row(append(k, "KV utilised % of the slot"), Compare(100*float64(p.Tokens)/float64(ctx), p.KVPct, 1)),
			row(append(k, "GiB per slot"), Compare(m.SeqBytes(ctx)/gib, p.GBSlot, 2)),
			row(append(k, "cost ratio (short slots / this pool's)"), Compare(float64(g.Slots(b))/float64(slots), p.Ratio, 1)),
		)
	}
	t.Notes = []string{
		"Ours: slots from the A100 slot rule min(⌊128·8192/C⌋, ⌊65,536/⌈C/16⌉⌋) (docs/planner.md §1); KV per slot = C × 327,680 B (Llama-3-70B: 2·80 layers·8 KV heads·128·2 B).",
		"The paper's 'GB' per slot are GiB (2^30 B): 8,192 × 320 KiB = 2.5 GiB (2.68 GB) and 65,536 × 320 KiB = 20.0 GiB (21.5 GB); its §2.2 text's '64,000 × 320 KB ≈ 20.5 GB' mixes decimal and binary units.",
	}
	return []Table{t}, nil
}
