package catalog

// models is the built-in model catalog, keyed by lower-case name. The
// geometry is each model's Hugging Face config.json (named in Source);
// parameter counts are the model cards'. WeightBytes is Params × 2 (bf16)
// unless Source says otherwise. KVBytes is the cached element size: 2
// (bf16/fp16 KV cache, vLLM's default "auto" for bf16 models).
var models = map[string]Model{
	"llama-3-70b": {
		Name: "llama-3-70b", Layers: 80, KVHeads: 8, HeadDim: 128, KVBytes: 2, WeightBytes: 70.6e9 * 2,
		Hidden: 8192, Heads: 64, Vocab: 128256, Params: 70.6e9,
		Source: "Llama-3-70B config (80 layers, 8 KV heads, head dim 128), bf16: 327,680 B/token (FleetOpt §2.2 '320 KB')",
	},
	"llama-3.1-8b": {
		Name: "llama-3.1-8b", Layers: 32, KVHeads: 8, HeadDim: 128, KVBytes: 2, WeightBytes: 8.03e9 * 2,
		Hidden: 4096, Heads: 32, Vocab: 128256, Params: 8.03e9,
		Source: "meta-llama/Llama-3.1-8B config.json (32 layers, hidden 4096, 32 heads, 8 KV heads, vocab 128256); 8.03B params (model card)",
	},
	"llama-3.1-70b": {
		Name: "llama-3.1-70b", Layers: 80, KVHeads: 8, HeadDim: 128, KVBytes: 2, WeightBytes: 70.6e9 * 2,
		Hidden: 8192, Heads: 64, Vocab: 128256, Params: 70.6e9,
		Source: "meta-llama/Llama-3.1-70B config.json (80 layers, hidden 8192, 64 heads, 8 KV heads, vocab 128256); 70.6B params",
	},
	"llama-3.1-405b": {
		Name: "llama-3.1-405b", Layers: 126, KVHeads: 8, HeadDim: 128, KVBytes: 2, WeightBytes: 405.85e9 * 2,
		Hidden: 16384, Heads: 128, Vocab: 128256, Params: 405.85e9,
		Source: "meta-llama/Llama-3.1-405B config.json (126 layers, hidden 16384, 128 heads, 8 KV heads, vocab 128256); 405.85B params (safetensors total), bf16 weights",
	},
	"qwen3-8b": {
		Name: "qwen3-8b", Layers: 36, KVHeads: 8, HeadDim: 128, KVBytes: 2, WeightBytes: 8.2e9 * 2,
		Hidden: 4096, Heads: 32, Vocab: 151936, Params: 8.2e9,
		Source: "Qwen/Qwen3-8B config.json (36 layers, hidden 4096, 32 heads, 8 KV heads, head_dim 128, vocab 151936); 8.2B params (model card)",
	},
	"qwen3-32b": {
		Name: "qwen3-32b", Layers: 64, KVHeads: 8, HeadDim: 128, KVBytes: 2, WeightBytes: 32.8e9 * 2,
		Hidden: 5120, Heads: 64, Vocab: 151936, Params: 32.8e9,
		Source: "Qwen/Qwen3-32B config.json (64 layers, hidden 5120, 64 heads, 8 KV heads, head_dim 128, vocab 151936); 32.8B params (model card)",
	},
	// The token-budget paper (§4.7) states 23.5 KB per token per GPU at TP=8,
	// which is 2·94·4·128·2 B / 8: 2-byte KV elements (fp8 weights). That is
	// the figure behind its 676 sequences at 8K; this entry reproduces it.
	// Architecture: Qwen/Qwen3-235B-A22B config.json (hidden 4096, 64
	// heads, 128 experts, 8 per token, vocab 151936); 22B active.
	"qwen3-235b-a22b": {
		Name: "qwen3-235b-a22b", Layers: 94, KVHeads: 4, HeadDim: 128, KVBytes: 2, WeightBytes: 235e9,
		Hidden: 4096, Heads: 64, Vocab: 151936, Params: 235e9, ActiveParams: 22e9, Experts: 128, ActiveExperts: 8,
		Source: "token-budget paper §4.7: 94 layers, 4 KV heads, d_h 128, fp8 weights (235 GB); 23.5 KB/token/GPU at TP=8 implies 2-byte KV",
	},
	// With an fp8 KV cache (1 byte per element) the same node holds twice as
	// many sequences (1,353 at 8K).
	"qwen3-235b-a22b-fp8kv": {
		Name: "qwen3-235b-a22b-fp8kv", Layers: 94, KVHeads: 4, HeadDim: 128, KVBytes: 1, WeightBytes: 235e9,
		Hidden: 4096, Heads: 64, Vocab: 151936, Params: 235e9, ActiveParams: 22e9, Experts: 128, ActiveExperts: 8,
		Source: "as qwen3-235b-a22b with an fp8 (1-byte) KV cache",
	},
	"mixtral-8x7b": {
		Name: "mixtral-8x7b", Layers: 32, KVHeads: 8, HeadDim: 128, KVBytes: 2, WeightBytes: 46.7e9 * 2,
		Hidden: 4096, Heads: 32, Vocab: 32000, Params: 46.7e9, ActiveParams: 12.9e9, Experts: 8, ActiveExperts: 2,
		Source: "mistralai/Mixtral-8x7B-v0.1 config.json (32 layers, hidden 4096, 32 heads, 8 KV heads, 8 experts, 2 per token, vocab 32000); 46.7B params, 12.9B active (Mistral AI announcement)",
	},
	// DeepSeek-V3 caches one compressed latent per token and layer (MLA):
	// kv_lora_rank 512 + qk_rope_head_dim 64 = 576 elements, shared by all
	// 128 heads. The catalog writes it as the equivalent geometry
	// kv_heads = 1, head_dim = 288 so that 2·layers·kv_heads·head_dim·bytes
	// = 61·576·2 = 70,272 B/token holds; a single latent "head" is
	// replicated, not split, across TP ranks (as vLLM does for MLA).
	"deepseek-v3": {
		Name: "deepseek-v3", Layers: 61, KVHeads: 1, HeadDim: 288, KVBytes: 2, WeightBytes: 671e9,
		Hidden: 7168, Heads: 128, Vocab: 129280, Params: 671e9, ActiveParams: 37e9, Experts: 256, ActiveExperts: 8,
		KVNote: "MLA: 576 latent elements (kv_lora_rank 512 + rope 64) per token and layer, written as 1 KV head × 288 × 2 (K and V); replicated on every TP rank",
		Source: "deepseek-ai/DeepSeek-V3 config.json (61 layers, hidden 7168, 128 heads, kv_lora_rank 512, qk_rope_head_dim 64, 256 routed experts, 8 per token, vocab 129280); 671B params, 37B active, fp8 weights (1 byte/param) as released",
	},
	"mistral-7b": {
		Name: "mistral-7b", Layers: 32, KVHeads: 8, HeadDim: 128, KVBytes: 2, WeightBytes: 7.25e9 * 2,
		Hidden: 4096, Heads: 32, Vocab: 32768, Params: 7.25e9,
		Source: "mistralai/Mistral-7B-v0.3 config.json (32 layers, hidden 4096, 32 heads, 8 KV heads, vocab 32768); 7.25B params",
	},
}
