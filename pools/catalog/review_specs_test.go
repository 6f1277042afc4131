package catalog

import "testing"

// TestDatasheetFigures pins every GPU figure to the vendor's datasheet,
// checked independently of hardware.go (review of issue 13). Dense = half
// the 2:4-sparse figure the datasheets print first.
//   - A100 80GB SXM (NVIDIA A100 datasheet): 80 GB, 2,039 GB/s, FP16 tensor
//     312 dense (624 sparse), no FP8, NVLink 600 GB/s, 400 W.
//   - H100 SXM (NVIDIA H100 datasheet): 80 GB, 3.35 TB/s, BF16 1,979 sparse
//     = 989 dense, FP8 3,958 sparse = 1,979 dense, NVLink 900 GB/s, 700 W.
//   - H200 SXM (NVIDIA H200 datasheet): 141 GB, 4.8 TB/s, H100's tensor
//     figures, NVLink 900 GB/s, up to 700 W.
//   - B200 (DGX B200: 1,440 GB and 64 TB/s over 8 GPUs = 180 GB, 8 TB/s;
//     HGX B200: FP16/BF16 36 PFLOPS sparse / 8 = 2.25 PF dense, FP8 72 / 8 /
//     2 = 4.5 PF dense), NVLink 5 1.8 TB/s, 1,000 W.
//   - L40S (NVIDIA L40S datasheet): 48 GB, 864 GB/s, FP16 733 sparse = 362
//     dense, FP8 1,466 sparse = 733 dense, PCIe Gen4 x16 64 GB/s, 350 W.
//   - A10G (A10 datasheet for the silicon): 24 GB, 600 GB/s, 125 dense
//     FP16 (250 sparse), PCIe Gen4, 300 W (the A10G's board limit).
//   - MI300X (AMD data sheet): 192 GB, 5.3 TB/s, FP16 1,307.4 dense, FP8
//     2,614.9 dense, Infinity Fabric 896 GB/s, 750 W.
func TestDatasheetFigures(t *testing.T) {
	type fig struct{ mem, bw, fp16, fp8, link, power float64 }
	want := map[string]fig{
		"a100":   {80, 2039, 312, 0, 600, 400},
		"h100":   {80, 3350, 989, 1979, 900, 700},
		"h200":   {141, 4800, 989, 1979, 900, 700},
		"b200":   {180, 8000, 2250, 4500, 1800, 1000},
		"l40s":   {48, 864, 362, 733, 64, 350},
		"a10g":   {24, 600, 125, 0, 64, 300},
		"mi300x": {192, 5300, 1307, 2615, 896, 750},
	}
	if len(want) != len(HardwareNames()) {
		t.Errorf("catalog has %d GPUs %v, table %d: pin the new one", len(HardwareNames()), HardwareNames(), len(want))
	}
	for n, w := range want {
		h, err := LookupHardware(n)
		if err != nil {
			t.Fatal(err)
		}
		if got := (fig{h.MemGB, h.MemBWGBs, h.FP16TFLOPS, h.FP8TFLOPS, h.LinkGBs, h.PowerW}); got != w {
			t.Errorf("%s: %+v, datasheet %+v", n, got, w)
		}
	}
}

// TestModelConfigs pins every catalog model's architecture to its public
// Hugging Face config.json (num_hidden_layers, hidden_size,
// num_attention_heads, num_key_value_heads, head_dim, vocab_size, experts /
// num_experts_per_tok), checked independently of modelcatalog.go. DeepSeek-V3's
// KV geometry is the MLA equivalent 1 × 288 (kv_lora_rank 512 + rope 64 =
// 576 = 2 · 288), not its config's 128 KV heads.
func TestModelConfigs(t *testing.T) {
	type cfg struct{ layers, hidden, heads, kv, hd, vocab, experts, active int }
	want := map[string]cfg{
		"llama-3-70b":           {80, 8192, 64, 8, 128, 128256, 0, 0},    // meta-llama/Meta-Llama-3-70B
		"llama-3.1-8b":          {32, 4096, 32, 8, 128, 128256, 0, 0},    // meta-llama/Llama-3.1-8B
		"llama-3.1-70b":         {80, 8192, 64, 8, 128, 128256, 0, 0},    // meta-llama/Llama-3.1-70B
		"llama-3.1-405b":        {126, 16384, 128, 8, 128, 128256, 0, 0}, // meta-llama/Llama-3.1-405B
		"qwen3-8b":              {36, 4096, 32, 8, 128, 151936, 0, 0},    // Qwen/Qwen3-8B
		"qwen3-32b":             {64, 5120, 64, 8, 128, 151936, 0, 0},    // Qwen/Qwen3-32B
		"qwen3-235b-a22b":       {94, 4096, 64, 4, 128, 151936, 128, 8},  // Qwen/Qwen3-235B-A22B
		"qwen3-235b-a22b-fp8kv": {94, 4096, 64, 4, 128, 151936, 128, 8},
		"mixtral-8x7b":          {32, 4096, 32, 8, 128, 32000, 8, 2},     // mistralai/Mixtral-8x7B-v0.1
		"deepseek-v3":           {61, 7168, 128, 1, 288, 129280, 256, 8}, // deepseek-ai/DeepSeek-V3 (MLA equivalent)
		"mistral-7b":            {32, 4096, 32, 8, 128, 32768, 0, 0},     // mistralai/Mistral-7B-v0.3
	}
	if len(want) != len(ModelNames()) {
		t.Errorf("catalog has %d models, table %d: pin the new one", len(ModelNames()), len(want))
	}
	for n, w := range want {
		m, err := LookupModel(n)
		if err != nil {
			t.Fatal(err)
		}
		if got := (cfg{m.Layers, m.Hidden, m.Heads, m.KVHeads, m.HeadDim, m.Vocab, m.Experts, m.ActiveExperts}); got != w {
			t.Errorf("%s: %+v, config.json %+v", n, got, w)
		}
	}
}
