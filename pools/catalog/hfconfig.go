package catalog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
)

// hfConfig holds the fields of a Hugging Face config.json that a Model
// needs; the others are ignored.
type hfConfig struct {
	ModelType          string   `json:"model_type"`
	Layers             int      `json:"num_hidden_layers"`
	Hidden             int      `json:"hidden_size"`
	Heads              int      `json:"num_attention_heads"`
	KVHeads            *int     `json:"num_key_value_heads"`
	HeadDim            *int     `json:"head_dim"`
	Vocab              int      `json:"vocab_size"`
	Intermediate       int      `json:"intermediate_size"`
	MoEIntermediate    int      `json:"moe_intermediate_size"`
	LocalExperts       int      `json:"num_local_experts"` // Mixtral
	NumExperts         int      `json:"num_experts"`       // Qwen-MoE
	RoutedExperts      int      `json:"n_routed_experts"`  // DeepSeek
	SharedExperts      int      `json:"n_shared_experts"`
	PerTok             int      `json:"num_experts_per_tok"`
	FirstDense         int      `json:"first_k_dense_replace"`
	KVLoraRank         int      `json:"kv_lora_rank"`
	QLoraRank          int      `json:"q_lora_rank"`
	RopeDim            int      `json:"qk_rope_head_dim"`
	NopeDim            int      `json:"qk_nope_head_dim"`
	VHeadDim           int      `json:"v_head_dim"`
	TieEmbeddings      bool     `json:"tie_word_embeddings"`
	TorchDType         string   `json:"torch_dtype"`
	DType              string   `json:"dtype"` // transformers >= 4.56's name for torch_dtype
	Quant              *hfQuant `json:"quantization_config"`
	PositionEmbeddings int      `json:"max_position_embeddings"`
}

type hfQuant struct {
	Method string `json:"quant_method"`
}

// maxHFDim bounds every size read from a config.json, so that a corrupt file
// gives an error rather than overflowing the arithmetic.
const maxHFDim = 1 << 24

// hfDTypeBytes is the bytes per weight of each torch_dtype ParseHFConfig
// knows ("" = absent: 2, the common half precision).
var hfDTypeBytes = map[string]float64{
	"": 2, "float16": 2, "bfloat16": 2, "float32": 4,
	"float8_e4m3fn": 1, "float8_e5m2": 1,
}

func hfDTypeNames() []string {
	var n []string
	for k := range hfDTypeBytes {
		if k != "" {
			n = append(n, k)
		}
	}
	slices.Sort(n)
	return n
}

// ParseHFConfig builds a Model from a Hugging Face config.json: the KV
// geometry (layers, KV heads — num_attention_heads when absent —, head_dim
// — hidden/heads when absent), the architecture, and a parameter count
// estimated from the shapes (embeddings, attention projections, gated MLP
// or MoE experts; norms and biases ignored). Weights are 2 bytes per
// parameter for bfloat16/float16 (or no torch_dtype), 4 for float32, 1 for
// float8_e4m3fn/float8_e5m2 or when the config's quantization_config is
// fp8 (dtype, transformers' newer name, is read as torch_dtype); another
// torch_dtype or quant_method is an error, as are a key given twice and a
// hidden_size not divisible by the heads without head_dim. The KV cache is
// 2 bytes per element. An MLA
// config (kv_lora_rank) gets the equivalent KV geometry kv_heads = 1,
// head_dim = (kv_lora_rank + qk_rope_head_dim)/2, as the catalog's
// deepseek-v3.
func ParseHFConfig(name string, data []byte) (Model, error) {
	if err := CheckDuplicateKeys(data); err != nil {
		return Model{}, fmt.Errorf("config.json %s: %w; give each key once", name, err)
	}
	var c hfConfig
	if err := json.Unmarshal(data, &c); err != nil {
		return Model{}, fmt.Errorf("config.json %s: not a JSON object of a Hugging Face config: %v", name, err)
	}
	for _, f := range []struct {
		n string
		v int
	}{{"num_hidden_layers", c.Layers}, {"hidden_size", c.Hidden}, {"num_attention_heads", c.Heads}, {"vocab_size", c.Vocab}} {
		if f.v == 0 && !bytes.Contains(data, []byte(`"`+f.n+`"`)) {
			return Model{}, fmt.Errorf("config.json %s: %s missing: want an integer 1 to %d", name, f.n, maxHFDim)
		}
		if f.v < 1 || f.v > maxHFDim {
			return Model{}, fmt.Errorf("config.json %s: %s = %d: must be 1 to %d", name, f.n, f.v, maxHFDim)
		}
	}
	for _, f := range []struct {
		n string
		v int
	}{{"intermediate_size", c.Intermediate}, {"moe_intermediate_size", c.MoEIntermediate}, {"experts", c.LocalExperts + c.NumExperts + c.RoutedExperts},
		{"n_shared_experts", c.SharedExperts}, {"num_experts_per_tok", c.PerTok}, {"first_k_dense_replace", c.FirstDense},
		{"kv_lora_rank", c.KVLoraRank}, {"q_lora_rank", c.QLoraRank}, {"qk_rope_head_dim", c.RopeDim}, {"qk_nope_head_dim", c.NopeDim}, {"v_head_dim", c.VHeadDim}} {
		if f.v < 0 || f.v > maxHFDim {
			return Model{}, fmt.Errorf("config.json %s: %s = %d: must be 0 to %d", name, f.n, f.v, maxHFDim)
		}
	}
	m := Model{Name: strings.ToLower(name), Layers: c.Layers, Hidden: c.Hidden, Heads: c.Heads, Vocab: c.Vocab, KVBytes: 2,
		Source: "Hugging Face config.json (" + c.ModelType + "); parameters estimated from the shapes"}
	m.KVHeads = c.Heads
	if c.KVHeads != nil {
		m.KVHeads = *c.KVHeads
	}
	m.HeadDim = c.Hidden / c.Heads
	if c.HeadDim != nil {
		m.HeadDim = *c.HeadDim
	} else if c.Hidden%c.Heads != 0 && c.KVLoraRank == 0 {
		return Model{}, fmt.Errorf("config.json %s: hidden_size = %d: not divisible by num_attention_heads = %d, and head_dim is absent (hidden_size/heads = %.4g); give head_dim",
			name, c.Hidden, c.Heads, float64(c.Hidden)/float64(c.Heads))
	}
	if m.KVHeads < 1 || m.KVHeads > c.Heads || c.Heads%m.KVHeads != 0 {
		return Model{}, fmt.Errorf("config.json %s: num_key_value_heads = %d: must divide num_attention_heads %d", name, m.KVHeads, c.Heads)
	}
	if m.HeadDim < 1 || m.HeadDim > maxHFDim {
		return Model{}, fmt.Errorf("config.json %s: head_dim = %d: must be 1 to %d", name, m.HeadDim, maxHFDim)
	}
	h, L, qd := float64(c.Hidden), float64(c.Layers), float64(c.Heads*m.HeadDim)
	attn := h*qd + 2*h*float64(m.KVHeads*m.HeadDim) + qd*h // q, k, v, o
	if c.KVLoraRank > 0 {
		lat := c.KVLoraRank + c.RopeDim
		if lat%2 != 0 {
			return Model{}, fmt.Errorf("config.json %s: kv_lora_rank + qk_rope_head_dim = %d: must be even", name, lat)
		}
		m.KVHeads, m.HeadDim = 1, lat/2
		m.KVNote = fmt.Sprintf("MLA: %d latent elements per token and layer, written as 1 KV head × %d × 2", lat, lat/2)
		qk := float64(c.Heads * (c.NopeDim + c.RopeDim))
		q := h * qk
		if c.QLoraRank > 0 {
			q = h*float64(c.QLoraRank) + float64(c.QLoraRank)*qk
		}
		attn = q + h*float64(lat) + float64(c.KVLoraRank*c.Heads*(c.NopeDim+c.VHeadDim)) + float64(c.Heads*c.VHeadDim)*h
	}
	embed := float64(c.Vocab) * h
	if !c.TieEmbeddings {
		embed *= 2
	}
	dense := 3 * h * float64(c.Intermediate) // gate, up, down
	m.Experts = c.LocalExperts + c.NumExperts + c.RoutedExperts
	m.ActiveExperts = c.PerTok
	if m.Experts > 0 {
		if m.ActiveExperts < 1 || m.ActiveExperts > m.Experts {
			return Model{}, fmt.Errorf("config.json %s: num_experts_per_tok = %d: must be 1 to the %d experts", name, c.PerTok, m.Experts)
		}
		if c.FirstDense > c.Layers {
			return Model{}, fmt.Errorf("config.json %s: first_k_dense_replace = %d: exceeds the %d layers", name, c.FirstDense, c.Layers)
		}
		inter := float64(c.MoEIntermediate)
		if inter == 0 {
			inter = float64(c.Intermediate)
		}
		expert := 3 * h * inter
		kd, km := float64(c.FirstDense), L-float64(c.FirstDense)
		shared := float64(c.SharedExperts) * expert
		router := h * float64(m.Experts)
		m.Params = embed + L*attn + kd*dense + km*(float64(m.Experts)*expert+shared+router)
		m.ActiveParams = embed + L*attn + kd*dense + km*(float64(m.ActiveExperts)*expert+shared+router)
	} else {
		m.Params = embed + L*(attn+dense)
	}
	dtype, dkey := c.TorchDType, "torch_dtype"
	switch {
	case c.DType != "" && c.TorchDType != "" && !strings.EqualFold(c.DType, c.TorchDType):
		return Model{}, fmt.Errorf("config.json %s: torch_dtype = %q and dtype = %q differ; give one of them", name, c.TorchDType, c.DType)
	case c.DType != "":
		dtype, dkey = c.DType, "dtype"
	}
	bytes, ok := hfDTypeBytes[strings.ToLower(dtype)]
	if !ok {
		return Model{}, fmt.Errorf("config.json %s: %s = %q: unknown (allowed: %s; absent: 2 bytes per parameter)", name, dkey, dtype, strings.Join(hfDTypeNames(), ", "))
	}
	if c.Quant != nil {
		// Only fp8's weight size is known here; another method (AWQ,
		// GPTQ, bitsandbytes: 4 or 8 bits plus scales) would be costed
		// at the dtype's bytes without a word.
		if !strings.EqualFold(c.Quant.Method, "fp8") {
			return Model{}, fmt.Errorf("config.json %s: quantization_config.quant_method = %q: unknown (allowed: fp8, 1 byte per parameter; give a model_spec with weight_bytes for another quantization)", name, c.Quant.Method)
		}
		bytes = 1
	}
	m.WeightBytes = m.Params * bytes
	if math.IsInf(m.WeightBytes, 0) || math.IsNaN(m.WeightBytes) {
		return Model{}, fmt.Errorf("config.json %s: parameter count overflows", name)
	}
	if err := m.Validate(); err != nil {
		return Model{}, fmt.Errorf("config.json %s: %w", name, err)
	}
	return m, nil
}
