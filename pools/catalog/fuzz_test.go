package catalog

import (
	"strings"
	"testing"
)

// FuzzParseModels: any input gives valid models or an error, never a panic.
func FuzzParseModels(f *testing.F) {
	f.Add(`[{"name":"tiny","layers":2,"kv_heads":1,"head_dim":64,"kv_bytes":2,"weight_bytes":1e9}]`)
	f.Add(`[{"name":"x","layers":-1}]`)
	f.Add(`{}`)
	f.Fuzz(func(t *testing.T, doc string) {
		ms, err := ParseModels(strings.NewReader(doc))
		if err != nil {
			return
		}
		for _, m := range ms {
			if m.Validate() != nil || !(m.KVBytesPerToken() > 0) {
				t.Fatalf("ParseModels accepted an invalid model %+v", m)
			}
		}
	})
}

// FuzzParseHFConfig: any input gives a valid model or an error.
func FuzzParseHFConfig(f *testing.F) {
	f.Add(`{"num_hidden_layers":2,"hidden_size":64,"num_attention_heads":4,"vocab_size":10}`)
	f.Add(`{"num_hidden_layers":2,"hidden_size":64,"num_attention_heads":4,"vocab_size":10,"kv_lora_rank":8,"qk_rope_head_dim":4,"n_routed_experts":4,"num_experts_per_tok":2}`)
	f.Add(`{"num_hidden_layers":-1}`)
	f.Fuzz(func(t *testing.T, doc string) {
		m, err := ParseHFConfig("x", []byte(doc))
		if err != nil {
			return
		}
		if m.Validate() != nil || !(m.KVBytesPerToken() > 0) || !(m.Params > 0) {
			t.Fatalf("accepted an invalid model %+v", m)
		}
	})
}

// FuzzParseProfileFile: any input gives a usable profile or an error.
func FuzzParseProfileFile(f *testing.F) {
	f.Add("constants: {w: 0.01, h: 0.0005, kv_blocks: 4096}\n")
	f.Add("gpu: h100\nmodel: llama-3.1-8b\ntp: 1\n")
	f.Add("gpu_spec: {name: z, mem_gb: 80, mem_bw_gbs: 1000, fp16_tflops: 100, usd_per_gpu_hour: 1}\nmodel_spec: {name: m, layers: 2, kv_heads: 1, head_dim: 64, kv_bytes: 2, weight_bytes: 1e9, params: 5e8, hidden: 64}\n")
	f.Fuzz(func(t *testing.T, doc string) {
		g, err := ParseProfileFile([]byte(doc), nil)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line error %q", err)
			}
			return
		}
		if !(g.W > 0) || g.KVBlocks < 1 || g.BlockTokens < 1 || g.CalibCtx < 1 || g.MaxSlots < 1 {
			t.Fatalf("accepted an unusable profile %+v", g)
		}
		if _, err := g.EngineConfig(g.BlockTokens, TimingKV); err != nil && g.Slots(g.BlockTokens) > 0 {
			t.Fatalf("engine config: %v", err)
		}
	})
}
