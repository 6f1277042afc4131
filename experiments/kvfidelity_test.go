package experiments

import (
	"math"
	"testing"

	"github.com/fleetsim/fleetsim/pools/catalog"
)

// Issue #20 item 6: validate --fidelity kv divided the busy slots by
// --kv-max-seqs (256), a cap, instead of the slots the KV budget holds:
// the A100 long pool (max_ctx 65,536) showed utilization 0.042 beside the
// engine's 0.675 ("+1903%"). By hand: an A100 has 65,536 KV blocks of 16
// tokens; a 65,536-token sequence needs 4,096 blocks, so 16 fit, and
// min(256, 16) = 16 slots; at 4,096 tokens 65,536/256 = 256 fit.
func TestKVFidelityUtilization(t *testing.T) {
	a100, err := catalog.LookupGPU("a100")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ ctx, seqs, want int }{{65536, 256, 16}, {4096, 256, 256}, {4096, 64, 64}, {8192, 256, 128}} {
		if got := kvSlots(a100, c.ctx, c.seqs); got != c.want {
			t.Errorf("kvSlots(a100, %d, %d) = %d, want %d", c.ctx, c.seqs, got, c.want)
		}
	}
	// Neither limit binds in this fleet (no preemption, batches below 16
	// in the long pool), so both fidelities run the same batches: the kv
	// utilization over its 16 slots equals the engine's over the
	// catalog's 16 (a100 at 65,536: min(128·8192/65536, 16) = 16).
	v, err := Validate(ValidateConfig{Workload: "azure", Rate: 1000, BShort: 4096, Requests: 20000, WarmupFraction: 0.5,
		Fidelities: []string{FidelityKV}})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range v.Pools {
		if p.KV == nil || p.KV.Preemptions != 0 {
			t.Fatalf("pool %s: kv measure %+v", p.Name, p.KV)
		}
		if math.Abs(p.KV.Util-p.UtilSim) > 1e-9*p.UtilSim || !(p.UtilSim > 0.2) {
			t.Errorf("pool %s: kv utilization %.4f, engine %.4f; want equal", p.Name, p.KV.Util, p.UtilSim)
		}
	}
}
