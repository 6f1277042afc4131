package catalog

import (
	"fmt"
	"math"
)

// Instance defaults (documented in docs/catalog.md).
const (
	// DefaultUtil is the usable fraction of each GPU's memory: vLLM's
	// default gpu_memory_utilization (0.9). The other 10% is left to the
	// CUDA context, NCCL buffers and fragmentation.
	DefaultUtil = 0.90
	// DefaultReserveGB is the runtime reserve per GPU inside the usable
	// fraction: peak activations of a 512-token chunk batch and CUDA-graph
	// pools, GB. An assumption (vLLM measures it at start-up by a profiling
	// run; 1–4 GB is what it reports for 8B–70B models).
	DefaultReserveGB = 2.0
	// CalibCtx is the context at which a computed profile states H, tokens.
	CalibCtx = 8192
	// DefaultChunkTokens and DefaultBlockTokens are vLLM's prefill chunk and
	// KV block size, tokens.
	DefaultChunkTokens = 512
	DefaultBlockTokens = 16
	// MaxTP bounds the tensor-parallel degree.
	MaxTP = 64
)

// Instance is one serving instance: a tensor-parallel group of TP GPUs of
// one kind serving one model. It is sized and priced as a whole: cost =
// TP × $/GPU-hour, KV budget = TP × usable memory − weights − TP × reserve.
type Instance struct {
	GPU         Hardware
	Model       Model
	TP          int        // GPUs per instance (tensor-parallel degree)
	Util        float64    // usable fraction of each GPU's memory, (0, 1]
	ReserveGB   float64    // runtime reserve per GPU within the usable memory, GB
	BlockTokens int        // tokens per KV block
	Eff         Efficiency // roofline efficiency factors and constants
}

// NewInstance returns the instance of tp GPUs of g serving m with the
// documented defaults.
func NewInstance(g Hardware, m Model, tp int) Instance {
	return Instance{GPU: g, Model: m, TP: tp, Util: DefaultUtil, ReserveGB: DefaultReserveGB,
		BlockTokens: DefaultBlockTokens, Eff: DefaultEfficiency}
}

// Name is the instance's catalog name, GPU/MODEL/tpN.
func (in Instance) Name() string { return InstanceName(in.GPU.Name, in.Model.Name, in.TP) }

// InstanceName builds the name GPU/MODEL/tpN that LookupGPU resolves.
func InstanceName(gpu, model string, tp int) string {
	return fmt.Sprintf("%s/%s/tp%d", gpu, model, tp)
}

// KVShards is how many ways the KV cache is split across the group: the
// KV heads are split over min(TP, KVHeads) ranks and replicated beyond
// (vLLM replicates a KV head when TP exceeds the KV heads; an MLA latent,
// one "head", is on every rank).
func (in Instance) KVShards() int { return min(in.TP, in.Model.KVHeads) }

// KVBytesPerTokenPerGPU returns the KV bytes one token costs on each GPU.
func (in Instance) KVBytesPerTokenPerGPU() float64 {
	return in.Model.KVBytesPerToken() / float64(in.KVShards())
}

// WeightBytesPerGPU returns the weights each GPU holds (all weights split
// TP ways), bytes.
func (in Instance) WeightBytesPerGPU() float64 { return in.Model.WeightBytes / float64(in.TP) }

// UsableBytesPerGPU is memory × Util − reserve, bytes.
func (in Instance) UsableBytesPerGPU() float64 {
	return in.GPU.MemGB*1e9*in.Util - in.ReserveGB*1e9
}

// KVBytesPerGPU is the KV-cache budget of each GPU: usable − weights per GPU.
func (in Instance) KVBytesPerGPU() float64 { return in.UsableBytesPerGPU() - in.WeightBytesPerGPU() }

// KVBlocks is floor(KV budget per GPU / (BlockTokens × KV bytes per token
// per GPU)): the blocks of the whole instance (a block holds BlockTokens
// tokens of every layer across the group).
func (in Instance) KVBlocks() int {
	free := in.KVBytesPerGPU()
	if free <= 0 {
		return 0
	}
	return int(math.Floor(free / (float64(in.BlockTokens) * in.KVBytesPerTokenPerGPU())))
}

// CostPerHour is TP × $/GPU-hour, USD per instance-hour.
func (in Instance) CostPerHour() float64 { return float64(in.TP) * in.GPU.USDPerGPUHour }

// Validate checks the instance: a valid GPU and model, a TP that divides
// the attention heads and divides (or is a multiple of) the KV heads,
// weights that fit the group's usable memory and room for at least one
// KV block. Every error is one line naming the field.
func (in Instance) Validate() error {
	if err := in.GPU.Validate(); err != nil {
		return err
	}
	if err := in.Model.Validate(); err != nil {
		return err
	}
	m := in.Model
	switch {
	case in.TP < 1 || in.TP > MaxTP:
		return fmt.Errorf("tp = %d: must be 1 to %d GPUs per instance", in.TP, MaxTP)
	case m.Heads > 0 && m.Heads%in.TP != 0:
		return fmt.Errorf("tp = %d: does not divide the %d attention heads of %s", in.TP, m.Heads, m.Name)
	case m.KVHeads%in.TP != 0 && in.TP%m.KVHeads != 0:
		return fmt.Errorf("tp = %d: neither divides nor is a multiple of the %d KV heads of %s", in.TP, m.KVHeads, m.Name)
	case !(in.Util > 0 && in.Util <= 1):
		return fmt.Errorf("util = %v: must be in (0, 1]", in.Util)
	case !(in.ReserveGB >= 0 && in.ReserveGB < in.GPU.MemGB):
		return fmt.Errorf("reserve_gb = %g: must be >= 0 and below the %g GB of a %s", in.ReserveGB, in.GPU.MemGB, in.GPU.Name)
	case in.BlockTokens < 1:
		return fmt.Errorf("block_tokens = %d: must be >= 1", in.BlockTokens)
	}
	if err := in.Eff.Validate(); err != nil {
		return err
	}
	if w, u := in.WeightBytesPerGPU(), in.UsableBytesPerGPU(); w >= u {
		return fmt.Errorf("%s: weights %.1f GB per GPU (%.1f GB / tp %d) do not fit the %.1f GB usable per %s (%.0f GB × %.2f − %.1f GB reserve)",
			in.Name(), w/1e9, m.WeightBytes/1e9, in.TP, u/1e9, in.GPU.Name, in.GPU.MemGB, in.Util, in.ReserveGB)
	}
	if in.KVBlocks() < 1 {
		return fmt.Errorf("%s: no room for one KV block of %d tokens", in.Name(), in.BlockTokens)
	}
	return nil
}
