package variants

import (
	"testing"

	"github.com/fleetsim/fleetsim/engine"
)

// paperEngine is an instance with the paper timing t_iter = W + H·n.
func paperEngine(w, h float64) engine.Config {
	return engine.Config{MaxSeqs: 128, KVBlocks: 65536, BlockTokens: 16, ChunkTokens: 512, MaxModelLen: 8192,
		Timing: engine.Timing{W: w, HSeq: h}}
}

// TestFromSimRecovers: a sweep of fleetsim's engine under the paper timing
// recovers its constants to 1e-6 relative (issue 11): a100 W = 8 ms, H =
// 0.65 ms; a10g W = 6 ms, H = 0.5 ms (pools' catalog).
func TestFromSimRecovers(t *testing.T) {
	for _, c := range []struct {
		name        string
		w, h        float64 // s
		alpha, beta float64 // ms
	}{
		{"a100", 0.008, 0.00065, 8.000, 0.650},
		{"a10g", 0.006, 0.00050, 6.000, 0.500},
	} {
		cfg := paperEngine(c.w, c.h)
		pts, err := RunSweep(cfg, SimSweep{Batches: []int{1, 2, 4, 8, 16, 32, 64}, In: 128, Out: 64})
		if err != nil {
			t.Fatal(err)
		}
		p, rep, err := FitSweep(pts, 128)
		if err != nil {
			t.Fatal(err)
		}
		if relErr(p.Alpha, c.alpha) > 1e-6 || relErr(p.Beta, c.beta) > 1e-6 {
			t.Errorf("%s: α = %.9f, β = %.9f ms; want %.3f, %.3f", c.name, p.Alpha, p.Beta, c.alpha, c.beta)
		}
		if rep.Decode.R2 < 1-1e-9 {
			t.Errorf("%s: R² = %v, want 1", c.name, rep.Decode.R2)
		}
	}
}
