package catalog

import (
	"fmt"
	"math"
)

// Efficiency holds the factors and constants of the roofline. The method is
// AIConfigurator's (arXiv 2601.06288) in its speed-of-light form: an
// iteration is decomposed into GEMM, attention (KV reads), communication
// and per-layer overheads, each costed at the hardware's peak rate times an
// efficiency; AIConfigurator replaces these factors with a measured kernel
// database, which fleetsim does not have. The values are assumptions, named
// and overridable in a profile file (docs/catalog.md says why each).
type Efficiency struct {
	Mem           float64 `json:"mem" yaml:"mem"`                                 // achieved / peak memory bandwidth, (0, 1]
	Compute       float64 `json:"compute" yaml:"compute"`                         // achieved / peak dense tensor throughput, (0, 1]
	Link          float64 `json:"link" yaml:"link"`                               // achieved / peak one-direction link bandwidth, (0, 1]
	LayerOverhead float64 `json:"layer_overhead_s" yaml:"layer_overhead_s"`       // fixed non-GEMM cost per layer per iteration (norms, rotary, launch gaps), s
	AllReduceLat  float64 `json:"allreduce_latency_s" yaml:"allreduce_latency_s"` // latency of one small all-reduce in a TP group, s
}

// DefaultEfficiency: 80% of peak HBM bandwidth for the weight and KV reads
// of decode (memory-bound GEMV and paged attention reach 75–90% of peak),
// 70% of dense tensor peak for GEMMs, 70% of the link's one-direction
// bandwidth for all-reduce, 10 µs of non-GEMM work per layer and 8 µs per
// all-reduce (two per layer under TP).
var DefaultEfficiency = Efficiency{Mem: 0.80, Compute: 0.70, Link: 0.70, LayerOverhead: 10e-6, AllReduceLat: 8e-6}

// Validate checks the factors are in (0, 1] and the constants >= 0.
func (e Efficiency) Validate() error {
	for _, f := range []struct {
		n string
		v float64
	}{{"efficiency.mem", e.Mem}, {"efficiency.compute", e.Compute}, {"efficiency.link", e.Link}} {
		if !(f.v > 0 && f.v <= 1) {
			return fmt.Errorf("%s = %v: must be in (0, 1]", f.n, f.v)
		}
	}
	if !(e.LayerOverhead >= 0) || math.IsInf(e.LayerOverhead, 0) || !(e.AllReduceLat >= 0) || math.IsInf(e.AllReduceLat, 0) {
		return fmt.Errorf("efficiency: layer_overhead_s %v and allreduce_latency_s %v must be finite and >= 0", e.LayerOverhead, e.AllReduceLat)
	}
	return nil
}

// Roofline is a computed timing profile with every term of its arithmetic
// (all per GPU of the group, seconds unless stated).
type Roofline struct {
	BW        float64 // effective memory bandwidth, bytes/s (peak × Eff.Mem)
	FLOPS     float64 // effective tensor throughput, FLOP/s (FP16, or FP8 for ≤1-byte weights when the GPU has it)
	FP8       bool    // FLOPS is the FP8 rate
	LinkBW    float64 // effective one-direction link bandwidth, bytes/s (LinkGBs/2 × Eff.Link)
	ReadBytes float64 // weight bytes read per iteration per GPU (MoE: active parameters only)
	WMem      float64 // ReadBytes / BW
	WLayers   float64 // layers × Eff.LayerOverhead
	WComm     float64 // 2 × layers × Eff.AllReduceLat (tp > 1)
	HKV       float64 // KV bytes per token per GPU / BW, s per context token per sequence
	HFlop     float64 // 2 × active params / tp / FLOPS, s per token processed
	HComm     float64 // 2 × layers × 2(tp−1)/tp × hidden × 2 B / LinkBW, s per token processed (tp > 1)
	W         float64 // WMem + WLayers + WComm: fixed iteration cost
	HSeq      float64 // HFlop + HComm: per active sequence
	H         float64 // HSeq + CalibCtx × HKV: per sequence at 8,192 tokens of context
	P         float64 // HFlop + HComm: per prompt token prefilled (attention's quadratic term ignored)
}

// Roofline computes the decode and prefill costs of the instance. Decode is
// memory-bound: every iteration reads the weights on each GPU once (W) and
// each sequence's KV cache (HKV per token); the per-token GEMM work (HFlop)
// and the TP all-reduce traffic (HComm) are added per sequence — an upper
// bound of max(memory, compute) that is within 2× of it at the crossover.
func (in Instance) Roofline() (Roofline, error) {
	m, g, e := in.Model, in.GPU, in.Eff
	if !(m.Params > 0) || m.Hidden < 1 {
		return Roofline{}, fmt.Errorf("model %q: params and hidden are needed for a computed profile (give them in the model spec)", m.Name)
	}
	var r Roofline
	tp := float64(in.TP)
	r.BW = g.MemBWGBs * 1e9 * e.Mem
	bytesPerParam := m.WeightBytes / m.Params
	r.FP8 = bytesPerParam <= 1 && g.FP8TFLOPS > 0
	r.FLOPS = g.FP16TFLOPS * 1e12 * e.Compute
	if r.FP8 {
		r.FLOPS = g.FP8TFLOPS * 1e12 * e.Compute
	}
	r.ReadBytes = m.Active() * bytesPerParam / tp
	r.WMem = r.ReadBytes / r.BW
	r.WLayers = float64(m.Layers) * e.LayerOverhead
	r.HKV = in.KVBytesPerTokenPerGPU() / r.BW
	r.HFlop = 2 * m.Active() / tp / r.FLOPS
	if in.TP > 1 {
		if !(g.LinkGBs > 0) {
			return Roofline{}, fmt.Errorf("gpu %q: link_gbs = %v: tp %d needs a GPU-to-GPU link bandwidth > 0", g.Name, g.LinkGBs, in.TP)
		}
		r.LinkBW = g.LinkGBs / 2 * 1e9 * e.Link
		r.WComm = 2 * float64(m.Layers) * e.AllReduceLat
		r.HComm = 2 * float64(m.Layers) * 2 * (tp - 1) / tp * float64(m.Hidden) * 2 / r.LinkBW
	}
	r.W = r.WMem + r.WLayers + r.WComm
	r.HSeq = r.HFlop + r.HComm
	r.H = r.HSeq + CalibCtx*r.HKV
	r.P = r.HFlop + r.HComm
	return r, nil
}

// Profile validates the instance and returns its computed GPU profile:
// W and H from the roofline, KV blocks from the budget, slots limited by
// KV only (MaxSlots = ceil(KVBlocks·BlockTokens/CalibCtx), so the slot
// rule's batch term never binds), cost TP × $/GPU-hour.
func (in Instance) Profile() (GPU, error) {
	if err := in.Validate(); err != nil {
		return GPU{}, err
	}
	r, err := in.Roofline()
	if err != nil {
		return GPU{}, err
	}
	blocks := in.KVBlocks()
	return GPU{
		Name:        in.Name(),
		Description: fmt.Sprintf("%d × %s serving %s (computed)", in.TP, in.GPU.Description, in.Model.Name),
		W:           r.W, H: r.H, KVBlocks: blocks,
		MaxSlots: (blocks*in.BlockTokens + CalibCtx - 1) / CalibCtx,
		CalibCtx: CalibCtx, ChunkTokens: DefaultChunkTokens, BlockTokens: in.BlockTokens,
		CostPerHour: in.CostPerHour(), TP: in.TP, Inst: &in,
		Source: fmt.Sprintf("computed: roofline (AIConfigurator method) from %s specs and %s config; $%.2f/GPU-h × %d (%s)",
			in.GPU.Name, in.Model.Name, in.GPU.USDPerGPUHour, in.TP, in.GPU.PriceSource),
	}, nil
}
