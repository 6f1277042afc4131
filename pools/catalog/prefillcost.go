package catalog

import (
	"fmt"
	"strings"
)

// StandsFor names the physical instance a hand-written profile describes,
// so that the default timing (TimingAuto) can charge its prompt tokens at a
// data-grounded cost (PrefillCost) while keeping the profile's own W and H.
type StandsFor struct {
	// Instance is the computed instance GPU/MODEL/tpN whose KV budget and
	// weight read the profile's KVBlocks and W describe.
	Instance string
	// CalibGPU is the GPU whose stored calibration (CalibrationFor) costs
	// the prefill: the instance's own GPU when it has measured data, else
	// another one transferred to it (Estimate).
	CalibGPU string
	// Estimate is true when the calibration is transferred from another
	// GPU (no measured data for the instance's GPU).
	Estimate bool
}

// TimingKVPrefill is what TimingAuto resolves to for a hand-written profile
// that states the instance it stands for: the kv form (the profile's W and
// H/8192 per KV token) plus P = PrefillCost per prompt token. It is not a
// preset a user names (TimingNames); the summary line and the Parquet
// metadata print it as "kv + calibrated prefill".
const TimingKVPrefill = "kv + calibrated prefill"

// PrefillCost returns the per-prompt-token cost P (s per token) a
// hand-written profile is charged under TimingAuto: the calibrated
// roofline (CalibratedRoofline) of the instance it stands for, as the
// marginal cost of one prefill chunk of ChunkTokens (C) tokens from an
// empty context over an iteration with no tokens,
//
//	P = (t_cal(chunk of C tokens) − t_cal(empty iteration)) / C,
//
// which is what a chunk adds to an iteration whose weight read W already
// pays: the layers' GEMM time beyond the weight read (max(memory,
// compute) per layer), the chunk's causal attention and its all-reduce
// traffic. ok is false for a profile that states no instance.
func (g GPU) PrefillCost() (p float64, ok bool, err error) {
	if g.Stands == nil {
		return 0, false, nil
	}
	in, err := ParseInstanceName(g.Stands.Instance)
	if err != nil {
		return 0, true, fmt.Errorf("gpu %q stands for %s: %w", g.Name, g.Stands.Instance, err)
	}
	c, found := CalibrationFor(g.Stands.CalibGPU)
	if !found {
		return 0, true, fmt.Errorf("gpu %q: no calibration for gpu %q", g.Name, g.Stands.CalibGPU)
	}
	r, err := NewCalibratedRoofline(in, c)
	if err != nil {
		return 0, true, fmt.Errorf("gpu %q stands for %s: %w", g.Name, g.Stands.Instance, err)
	}
	chunk := g.ChunkTokens
	if chunk < 1 {
		chunk = DefaultChunkTokens
	}
	return (r.IterTime(PrefillBatch(chunk, 0)) - r.IterTime(Batch{})) / float64(chunk), true, nil
}

// Describe says where a profile's PrefillCost comes from, e.g.
// "calibrated roofline of a100/llama-3-70b/tp8 (a100 calibration)", and
// says "estimate" when the calibration is another GPU's.
func (s StandsFor) Describe() string {
	if s.Estimate {
		gpu, _, _ := strings.Cut(s.Instance, "/")
		return fmt.Sprintf("estimate: calibrated roofline of %s with the %s calibration (no %s data)", s.Instance, s.CalibGPU, gpu)
	}
	return fmt.Sprintf("calibrated roofline of %s (%s calibration)", s.Instance, s.CalibGPU)
}
