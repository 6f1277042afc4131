package catalog

import (
	"fmt"
	"math"
)

// Batch is one iteration's composition, as the step-time models see it.
type Batch struct {
	Decode      int     // decoding sequences (one token each)
	DecodeKV    float64 // KV tokens the decoding sequences attend to (sum of their contexts)
	Prefill     int     // prompt tokens prefilled this iteration (all chunks)
	PrefillSeqs int     // sequences prefilling a chunk
	// PrefillKV is the KV tokens the prefilling sequences hold at the end
	// of the iteration (Σ p_i + c_i) and PrefillAttn the query-key pairs
	// of their chunks, Σ c_i·(p_i + c_i/2) (causal attention).
	PrefillKV, PrefillAttn float64
}

// Tokens is the tokens the iteration processes (decodes plus prefill).
func (b Batch) Tokens() int { return b.Decode + b.Prefill }

// Active is the sequences processing at least one token.
func (b Batch) Active() int { return b.Decode + b.PrefillSeqs }

// KVTokens is the engine's kv_tokens (docs/model.md): the active
// sequences' KV at the end of the iteration.
func (b Batch) KVTokens() float64 { return b.DecodeKV + float64(b.Decode) + b.PrefillKV }

// DecodeBatch is n sequences decoding at ctx tokens of context each.
func DecodeBatch(n, ctx int) Batch {
	return Batch{Decode: n, DecodeKV: float64(n) * float64(ctx)}
}

// PrefillBatch is one sequence prefilling a chunk of c tokens after p
// tokens already prefilled.
func PrefillBatch(c, p int) Batch {
	return Batch{Prefill: c, PrefillSeqs: 1, PrefillKV: float64(p + c),
		PrefillAttn: float64(c) * (float64(p) + float64(c)/2)}
}

// StepModel predicts one iteration's time, s.
type StepModel interface {
	IterTime(b Batch) float64
}

// MeasuredStepS is the measured model's fixed cost per iteration beyond the
// layers (scheduler, sampling launch, input preparation): 126.02 µs, BLIS's
// trained-physics per-step overhead β₇ fitted to vLLM runs
// (inference-sim/inference-sim defaults.yaml, testdata/measured/SOURCES.md).
// Vidur's tables do not time it.
const MeasuredStepS = 126.02e-6

// unmeasured holds the roofline terms both step models share for what the
// tables do not time: attention over the KV cache (decode reads, prefill
// FLOPs), the TP all-reduces and the LM head, at the instance's default
// efficiencies (DefaultEfficiency).
type unmeasured struct {
	in         Instance
	bw, flops  float64 // effective memory bandwidth B/s, tensor throughput FLOP/s
	kvPerTok   float64 // KV bytes per token per GPU
	attnFlop   float64 // FLOP per query-key pair per GPU: 4 · layers · heads/tp · head_dim
	headBytes  float64 // LM head bytes per GPU
	headFlop   float64 // LM head FLOP per sampled token per GPU
	arLat      float64 // 2 · layers · all-reduce latency (tp > 1), s
	arPerToken float64 // all-reduce time per token processed (tp > 1), s
}

func newUnmeasured(in Instance) (unmeasured, error) {
	m, g, e := in.Model, in.GPU, in.Eff
	if m.Hidden < 1 || m.Heads < 1 || m.Vocab < 1 || m.Layers < 1 {
		return unmeasured{}, fmt.Errorf("model %q: hidden, heads, vocab and layers are needed for a step-time model", m.Name)
	}
	tp := float64(in.TP)
	u := unmeasured{in: in, bw: g.MemBWGBs * 1e9 * e.Mem, flops: g.FP16TFLOPS * 1e12 * e.Compute}
	u.kvPerTok = in.KVBytesPerTokenPerGPU()
	u.attnFlop = 4 * float64(m.Layers) * float64(m.Heads) / tp * float64(m.HeadDim)
	u.headBytes = float64(m.Vocab) * float64(m.Hidden) * 2 / tp
	u.headFlop = 2 * float64(m.Vocab) * float64(m.Hidden) / tp
	if in.TP > 1 {
		if !(g.LinkGBs > 0) {
			return unmeasured{}, fmt.Errorf("gpu %q: link_gbs = %v: tp %d needs a GPU-to-GPU link bandwidth > 0", g.Name, g.LinkGBs, in.TP)
		}
		link := g.LinkGBs / 2 * 1e9 * e.Link
		u.arLat = 2 * float64(m.Layers) * e.AllReduceLat
		u.arPerToken = 2 * float64(m.Layers) * 2 * (tp - 1) / tp * float64(m.Hidden) * 2 / link
	}
	return u, nil
}

// time is the shared terms' time for b, s.
func (u unmeasured) time(b Batch) float64 {
	attn := u.kvPerTok*b.DecodeKV/u.bw + u.attnFlop*b.PrefillAttn/u.flops
	sampled := float64(b.Decode + b.PrefillSeqs)
	head := math.Max(u.headBytes/u.bw, u.headFlop*sampled/u.flops)
	comm := 0.0
	if u.arLat > 0 {
		comm = u.arLat + u.arPerToken*float64(b.Tokens())
	}
	return attn + head + comm
}

// MeasuredModel is the measured-profile step-time model of one instance:
//
//	t_iter = layers · T_layer(tokens) + T_emb(tokens)        (Vidur's tables, interpolated)
//	       + attention + all-reduce + LM head                 (roofline, not in the tables)
//	       + MeasuredStepS
type MeasuredModel struct {
	Table *MeasuredTable
	TP    int
	u     unmeasured
}

// NewMeasuredModel returns the measured model of table t at tensor
// parallelism tp on the table's GPU.
func NewMeasuredModel(t *MeasuredTable, tp int) (*MeasuredModel, error) {
	if _, ok := t.curve[tp]; !ok {
		return nil, fmt.Errorf("measured table %s: no data at tp %d (has %v)", t.Name, tp, t.TPs)
	}
	hw, err := LookupHardware(t.GPU)
	if err != nil {
		return nil, fmt.Errorf("measured table %s: %w", t.Name, err)
	}
	u, err := newUnmeasured(NewInstance(hw, t.Model, tp))
	if err != nil {
		return nil, err
	}
	return &MeasuredModel{Table: t, TP: tp, u: u}, nil
}

// Instance is the catalog instance the model describes (the table's GPU
// and geometry at TP).
func (m *MeasuredModel) Instance() Instance { return m.u.in }

// LinearTime is the tables' part of b's iteration: layers × the per-layer
// operators plus the embedding, s.
func (m *MeasuredModel) LinearTime(b Batch) float64 {
	layer, emb, _ := m.Table.LinearOps(m.TP, float64(max(b.Tokens(), 1)))
	return float64(m.Table.Model.Layers)*layer + emb
}

// IterTime implements StepModel.
func (m *MeasuredModel) IterTime(b Batch) float64 {
	return m.LinearTime(b) + m.u.time(b) + MeasuredStepS
}

// Calibration holds the calibrated roofline's constants for one GPU,
// fitted to the measured tables by least squares (calibrate.go).
type Calibration struct {
	Mem     float64 // achieved / peak memory bandwidth of the layers' weight reads
	Compute float64 // achieved / peak dense FP16 throughput of the layers' GEMMs
	LayerS  float64 // fixed cost per layer per iteration (norms, rotary, launches), s
	StepS   float64 // fixed cost per iteration, s
	Source  string  // the data and the fit
}

// CalibratedRoofline is the roofline with a Calibration: each layer costs
// the larger of its weight read and its GEMM FLOPs (not their sum, as
// Instance.Roofline's printed constants do), plus the calibrated per-layer
// and per-step constants and the same attention, all-reduce and LM-head
// terms as MeasuredModel.
type CalibratedRoofline struct {
	In  Instance
	Cal Calibration
	u   unmeasured
	// per-layer weight bytes per GPU and GEMM FLOP per token per GPU
	layerBytes, layerFlop float64
}

// NewCalibratedRoofline returns the calibrated roofline of instance in.
func NewCalibratedRoofline(in Instance, c Calibration) (*CalibratedRoofline, error) {
	u, err := newUnmeasured(in)
	if err != nil {
		return nil, err
	}
	if !(c.Mem > 0 && c.Compute > 0) || !(c.LayerS >= 0) || !(c.StepS >= 0) {
		return nil, fmt.Errorf("calibration %+v: efficiencies must be > 0 and constants >= 0", c)
	}
	m := in.Model
	layerParams := (m.Active() - 2*float64(m.Vocab)*float64(m.Hidden)) / float64(m.Layers)
	bpp := m.WeightBytes / m.Params
	return &CalibratedRoofline{In: in, Cal: c, u: u,
		layerBytes: layerParams * bpp / float64(in.TP), layerFlop: 2 * layerParams / float64(in.TP)}, nil
}

// layerTerms are the calibrated roofline's per-layer memory and compute
// times at 100% of peak for tokens tokens, s.
func (r *CalibratedRoofline) layerTerms(tokens int) (mem, flop float64) {
	g := r.In.GPU
	return r.layerBytes / (g.MemBWGBs * 1e9), r.layerFlop * float64(max(tokens, 1)) / (g.FP16TFLOPS * 1e12)
}

// LinearTime is the layers' part of b's iteration (what the measured tables
// time), s.
func (r *CalibratedRoofline) LinearTime(b Batch) float64 {
	mem, flop := r.layerTerms(b.Tokens())
	return float64(r.In.Model.Layers) * (math.Max(mem/r.Cal.Mem, flop/r.Cal.Compute) + r.Cal.LayerS)
}

// IterTime implements StepModel.
func (r *CalibratedRoofline) IterTime(b Batch) float64 {
	return r.LinearTime(b) + r.u.time(b) + r.Cal.StepS
}

// RooflineAdd is the catalog's printed roofline (Instance.Roofline) as a
// step model: W + H_seq·decodes + H_kv·KV tokens + P·prefill tokens, the
// per-token FLOP time added to the weight-read time.
type RooflineAdd struct{ R Roofline }

// IterTime implements StepModel.
func (r RooflineAdd) IterTime(b Batch) float64 {
	return r.R.W + r.R.HSeq*float64(b.Decode) + r.R.HKV*b.KVTokens() + r.R.P*float64(b.Prefill)
}

// PresetModel is an engine timing preset as a step model: the engine's
// t_iter = W + H_seq·n_active + H_kv·kv_tokens + P·prefill_tokens.
type PresetModel struct{ W, HSeq, HKV, P float64 }

// IterTime implements StepModel.
func (p PresetModel) IterTime(b Batch) float64 {
	return p.W + p.HSeq*float64(b.Active()) + p.HKV*b.KVTokens() + p.P*float64(b.Prefill)
}
