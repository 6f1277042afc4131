package catalog

import (
	"math"
	"testing"
)

// TestPrefillCostByHand: the per-prompt-token cost auto charges a
// hand-written profile, P = (t(512-token chunk) − t(empty iteration)) / 512
// on the calibrated roofline of the instance it stands for, computed by
// hand (a calculator; the model configs, datasheets and the stored
// calibrations), for the two cases with and without tensor parallelism.
//
// a100 = a100/llama-3-70b/tp8, A100 calibration (mem 0.7596, compute
// 0.6364; the per-layer and per-step constants and the LM head's weight
// read are in both iterations and cancel):
//
//	layer params   (70.6e9 − 2·128,256·8,192)/80 = 856,233,171.2
//	per GPU        bytes = FLOP/token = 2 · 856,233,171.2 / 8 = 214,058,292.8
//	empty: weights 214,058,292.8 / 2.039e12 / 0.7596     = 138.2070 µs per layer
//	chunk: GEMMs   214,058,292.8 · 512 / 312e12 / 0.6364 = 551.9724 µs per layer
//	layers         80 · (551.9724 − 138.2070)             = 33,101.23 µs
//	attention      4·80·(64/8)·128 · 512·256 / (312e12·0.7) = 196.66 µs
//	all-reduce     512 · 2·80·2·(7/8)·8,192·2 B / (300e9·0.7) = 11,184.76 µs
//	P              (33,101.23 + 196.66 + 11,184.76) / 512 = 86.880 µs/token
//
// a10g = a10g/llama-3.1-8b/tp1 (Llama-3-8B's layers), A100 calibration
// transferred (no A10G data): no all-reduce at tp 1,
//
//	layer params   (8.03e9 − 2·128,256·4,096)/32 = 218,103,964
//	empty: weights 436,207,928 / 600e9 / 0.7596              = 957.100 µs per layer
//	chunk: GEMMs   436,207,928 · 512 / 125e12 / 0.6364       = 2,807.524 µs per layer
//	layers         32 · (2,807.524 − 957.100)                = 59,213.57 µs
//	attention      4·32·32·128 · 512·256 / (125e12·0.7)      = 785.37 µs
//	P              (59,213.57 + 785.37) / 512 = 117.185 µs/token
func TestPrefillCostByHand(t *testing.T) {
	for _, c := range []struct {
		gpu      string
		want     float64 // s per prompt token
		estimate bool
	}{
		{"a100", 86.880e-6, false},
		{"a10g", 117.185e-6, true},
	} {
		g, err := LookupGPU(c.gpu)
		if err != nil {
			t.Fatal(err)
		}
		p, ok, err := g.PrefillCost()
		if err != nil || !ok {
			t.Fatalf("%s: P %v, ok %v, err %v", c.gpu, p, ok, err)
		}
		if math.Abs(p-c.want)/c.want > 1e-4 {
			t.Errorf("%s: P = %.4f µs/token, want %.3f (by hand)", c.gpu, p*1e6, c.want*1e6)
		}
		if g.Stands.Estimate != c.estimate {
			t.Errorf("%s: estimate %v, want %v", c.gpu, g.Stands.Estimate, c.estimate)
		}
		// auto charges it beside the profile's own W and H (kv form)
		ec, err := g.EngineConfig(4096, TimingAuto)
		kv, _ := g.EngineConfig(4096, TimingKV)
		if err != nil || ec.Timing.P != p || ec.Timing.W != kv.Timing.W || ec.Timing.HKV != kv.Timing.HKV || ec.Timing.HSeq != 0 {
			t.Errorf("%s: auto timing %+v (%v), kv %+v", c.gpu, ec.Timing, err, kv.Timing)
		}
	}
}

// TestStandsForDescribesTheProfile: each hand-written profile stands for
// the instance its constants describe. The a100 profile's 65,536 KV blocks
// are a TP8 node's (a100/llama-3-70b/tp8 has 79,879; tp4 26,473, too few)
// and its W = 8 ms is about a TP8 rank's weight read (17.65 GB at 2,039
// GB/s = 8.66 ms); h100-est scales a100 and keeps its TP.
func TestStandsForDescribesTheProfile(t *testing.T) {
	for _, c := range []struct {
		gpu, inst      string
		minBlocks      int
		readMs, wantMs float64
	}{
		{"a100", "a100/llama-3-70b/tp8", 65536, 8.66, 8},
		{"h100-est", "h100/llama-3-70b/tp8", 65536, 5.27, 4.8},
	} {
		g, _ := LookupGPU(c.gpu)
		if g.Stands == nil || g.Stands.Instance != c.inst {
			t.Fatalf("%s stands for %+v, want %s", c.gpu, g.Stands, c.inst)
		}
		in, err := ParseInstanceName(c.inst)
		if err != nil {
			t.Fatal(err)
		}
		if in.KVBlocks() < c.minBlocks {
			t.Errorf("%s: %d KV blocks, fewer than the profile's %d", c.inst, in.KVBlocks(), c.minBlocks)
		}
		half, _ := ParseInstanceName(c.inst[:len(c.inst)-1] + "4")
		if half.KVBlocks() >= c.minBlocks {
			t.Errorf("%s at tp4 holds %d blocks: the profile's %d would not need tp8", c.gpu, half.KVBlocks(), c.minBlocks)
		}
		read := in.WeightBytesPerGPU() / (in.GPU.MemBWGBs * 1e9) * 1e3
		if math.Abs(read-c.readMs) > 0.01 || math.Abs(g.W*1e3-c.wantMs) > 1e-9 {
			t.Errorf("%s: weight read %.2f ms (want %.2f), W %.2f ms", c.gpu, read, c.readMs, g.W*1e3)
		}
	}
	for _, n := range GPUNames() {
		g, _ := LookupGPU(n)
		if p, ok, err := g.PrefillCost(); !ok || err != nil || !(p > 0) {
			t.Errorf("%s: P %v, ok %v, err %v", n, p, ok, err)
		}
	}
}
