package catalog

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
)

// Model is a transformer's KV-cache geometry and weight size (token-budget
// paper §1.1 eq. 1).
type Model struct {
	Name        string  `json:"name" yaml:"name"`                 // catalog key, lower case
	Layers      int     `json:"layers" yaml:"layers"`             // n_l
	KVHeads     int     `json:"kv_heads" yaml:"kv_heads"`         // n_h (GQA key/value heads)
	HeadDim     int     `json:"head_dim" yaml:"head_dim"`         // d_h
	KVBytes     float64 `json:"kv_bytes" yaml:"kv_bytes"`         // bytes per cached element (2 = fp16/bf16, 1 = fp8)
	WeightBytes float64 `json:"weight_bytes" yaml:"weight_bytes"` // all weights, bytes (split over TP GPUs)
	Source      string  `json:"source,omitempty" yaml:"source,omitempty"`

	// Architecture, used by computed profiles (Instance.Profile); zero
	// when unknown (the KV-only models of a --models file).
	Hidden        int     `json:"hidden,omitempty" yaml:"hidden,omitempty"`                 // hidden size d_model
	Heads         int     `json:"heads,omitempty" yaml:"heads,omitempty"`                   // attention (query) heads
	Vocab         int     `json:"vocab,omitempty" yaml:"vocab,omitempty"`                   // vocabulary size
	Params        float64 `json:"params,omitempty" yaml:"params,omitempty"`                 // all parameters
	ActiveParams  float64 `json:"active_params,omitempty" yaml:"active_params,omitempty"`   // parameters used per token (MoE: shared + active experts); 0 = Params
	Experts       int     `json:"experts,omitempty" yaml:"experts,omitempty"`               // routed experts per MoE layer (0 = dense)
	ActiveExperts int     `json:"active_experts,omitempty" yaml:"active_experts,omitempty"` // experts each token is routed to
	// KVNote explains a KV geometry that is an equivalent rather than the
	// attention's own (DeepSeek's MLA latent cache).
	KVNote string `json:"kv_note,omitempty" yaml:"kv_note,omitempty"`
}

// Active returns the parameters read per token: ActiveParams, or Params for
// a dense model.
func (m Model) Active() float64 {
	if m.ActiveParams > 0 {
		return m.ActiveParams
	}
	return m.Params
}

// KVBytesPerToken returns 2·n_l·n_h·d_h·b (keys and values), bytes per token
// for the whole model (all TP shards together).
func (m Model) KVBytesPerToken() float64 {
	return 2 * float64(m.Layers) * float64(m.KVHeads) * float64(m.HeadDim) * m.KVBytes
}

// SeqBytes returns M_seq = KVBytesPerToken·maxCtx, the KV bytes one sequence
// of maxCtx tokens reserves (token-budget eq. 1).
func (m Model) SeqBytes(maxCtx int) float64 { return m.KVBytesPerToken() * float64(maxCtx) }

// Validate checks the geometry.
func (m Model) Validate() error {
	switch {
	case strings.TrimSpace(m.Name) == "":
		return fmt.Errorf("model: name missing")
	case m.Layers < 1 || m.Layers > MaxLayers:
		return fmt.Errorf("model %q: layers %d must be in [1, %d]", m.Name, m.Layers, MaxLayers)
	case m.KVHeads < 1 || m.KVHeads > MaxKVHeads:
		return fmt.Errorf("model %q: kv_heads %d must be in [1, %d]", m.Name, m.KVHeads, MaxKVHeads)
	case m.HeadDim < 1 || m.HeadDim > MaxHeadDim:
		return fmt.Errorf("model %q: head_dim %d must be in [1, %d]", m.Name, m.HeadDim, MaxHeadDim)
	case !(m.KVBytes > 0 && m.KVBytes <= MaxKVBytes):
		return fmt.Errorf("model %q: kv_bytes %v must be in (0, %g] (2 = fp16, 1 = fp8)", m.Name, m.KVBytes, float64(MaxKVBytes))
	case !(m.WeightBytes >= 0 && m.WeightBytes <= MaxWeightBytes):
		return fmt.Errorf("model %q: weight_bytes %v must be in [0, %g]", m.Name, m.WeightBytes, float64(MaxWeightBytes))
	case m.Hidden < 0 || m.Heads < 0 || m.Vocab < 0 || m.Experts < 0 || m.ActiveExperts < 0:
		return fmt.Errorf("model %q: hidden, heads, vocab, experts and active_experts must be >= 0", m.Name)
	case !(m.Params >= 0) || math.IsInf(m.Params, 0) || !(m.ActiveParams >= 0) || math.IsInf(m.ActiveParams, 0):
		return fmt.Errorf("model %q: params %v and active_params %v must be finite and >= 0", m.Name, m.Params, m.ActiveParams)
	case m.ActiveParams > m.Params:
		return fmt.Errorf("model %q: active_params %v exceeds params %v", m.Name, m.ActiveParams, m.Params)
	case m.ActiveExperts > m.Experts:
		return fmt.Errorf("model %q: active_experts %d exceeds experts %d", m.Name, m.ActiveExperts, m.Experts)
	}
	return nil
}

// Ranges of a Model's fields (a models file is user input): wide enough
// for any real model, small enough that every product stays finite and
// fits an int.
const (
	MaxLayers      = 1000
	MaxKVHeads     = 1024
	MaxHeadDim     = 4096
	MaxKVBytes     = 8    // bytes per KV element (fp64)
	MaxWeightBytes = 1e15 // 1 PB
)

// LookupModel returns the catalog model of that name (case-insensitive).
func LookupModel(name string) (Model, error) {
	m, ok := models[strings.ToLower(name)]
	if !ok {
		return Model{}, fmt.Errorf("unknown model %q (allowed: %s)", name, strings.Join(ModelNames(), ", "))
	}
	return m, nil
}

// ModelNames lists the catalog's model names in order.
func ModelNames() []string {
	out := make([]string, 0, len(models))
	for n := range models {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// ParseModels reads models from a JSON document: a list of objects with the
// keys of Model (name, layers, kv_heads, head_dim, kv_bytes, weight_bytes,
// optional source). Each is validated; names are lower-cased.
func ParseModels(r io.Reader) ([]Model, error) {
	var ms []Model
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&ms); err != nil {
		return nil, fmt.Errorf("models file: want a JSON list of {name, layers, kv_heads, head_dim, kv_bytes, weight_bytes}: %v", err)
	}
	if len(ms) == 0 {
		return nil, fmt.Errorf("models file: empty list")
	}
	for i := range ms {
		ms[i].Name = strings.ToLower(strings.TrimSpace(ms[i].Name))
		if err := ms[i].Validate(); err != nil {
			return nil, fmt.Errorf("models file: entry %d: %w", i, err)
		}
	}
	return ms, nil
}

// Deployment is how a model is served on one instance: a TP group of GPUs.
type Deployment struct {
	GPUMemBytes     float64 // HBM per GPU, bytes (decimal GB·1e9)
	Util            float64 // usable fraction u of HBM (vLLM gpu_memory_utilization), in (0, 1]
	TP              int     // tensor-parallel GPUs per instance (>= 1)
	ActivationBytes float64 // activation reserve per GPU, bytes
	BlockTokens     int     // KV block size, tokens (16)
}

// Validate checks a deployment.
func (d Deployment) Validate() error {
	switch {
	case !(d.GPUMemBytes > 0):
		return fmt.Errorf("deployment: GPU memory %v bytes must be > 0", d.GPUMemBytes)
	case !(d.Util > 0 && d.Util <= 1):
		return fmt.Errorf("deployment: memory utilization %v must be in (0, 1]", d.Util)
	case d.TP < 1:
		return fmt.Errorf("deployment: tensor parallelism %d must be >= 1", d.TP)
	case !(d.ActivationBytes >= 0):
		return fmt.Errorf("deployment: activation reserve %v bytes must be >= 0", d.ActivationBytes)
	case d.BlockTokens < 1:
		return fmt.Errorf("deployment: block size %d tokens must be >= 1", d.BlockTokens)
	}
	return nil
}

// KVBytesPerGPU returns the KV-cache bytes left on each GPU of the group:
// M_gpu·u − M_model/TP − activations (token-budget eq. 2's numerator, per
// GPU). It may be negative: the weights do not fit.
func (d Deployment) KVBytesPerGPU(m Model) float64 {
	return d.GPUMemBytes*d.Util - m.WeightBytes/float64(d.TP) - d.ActivationBytes
}

// SeqsPerInstance returns N_seq = floor((M_gpu·u − M_model/TP − act) /
// (M_seq/TP)) (token-budget eq. 2 with tensor parallelism: each GPU holds
// 1/TP of every sequence's KV), or 0 when nothing fits.
func (d Deployment) SeqsPerInstance(m Model, maxCtx int) int {
	free := d.KVBytesPerGPU(m)
	if free <= 0 || maxCtx < 1 {
		return 0
	}
	return int(math.Floor(free / (m.SeqBytes(maxCtx) / float64(d.TP))))
}

// KVBlocks returns the 16-token (BlockTokens) KV blocks one instance holds:
// floor(free bytes per GPU / (BlockTokens·KVBytesPerToken/TP)). With it,
// GPU.Slots applies the simulator's block rule
// min(MaxSlots·CalibCtx/ctx, KVBlocks/ceil(ctx/BlockTokens)).
func (d Deployment) KVBlocks(m Model) int {
	free := d.KVBytesPerGPU(m)
	if free <= 0 {
		return 0
	}
	per := float64(d.BlockTokens) * m.KVBytesPerToken() / float64(d.TP)
	return int(math.Floor(free / per))
}

// MI300XQwen3 is the token-budget paper's §4.7 deployment: MI300X 192 GB,
// 90% usable, TP = 8, 10 GB of activations per GPU, 16-token blocks.
var MI300XQwen3 = Deployment{GPUMemBytes: 192e9, Util: 0.9, TP: 8, ActivationBytes: 10e9, BlockTokens: 16}
