package catalog

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCatalogKVBytes: every catalog model's KV bytes per token equal
// 2·layers·kv_heads·head_dim·bytes, the product written out by hand from
// each model's config.json (issue 13's acceptance).
func TestCatalogKVBytes(t *testing.T) {
	want := map[string]float64{
		"llama-3-70b":           327680, // 2·80·8·128·2
		"llama-3.1-8b":          131072, // 2·32·8·128·2
		"llama-3.1-70b":         327680, // 2·80·8·128·2
		"llama-3.1-405b":        516096, // 2·126·8·128·2
		"qwen3-8b":              147456, // 2·36·8·128·2
		"qwen3-32b":             262144, // 2·64·8·128·2
		"qwen3-235b-a22b":       192512, // 2·94·4·128·2
		"qwen3-235b-a22b-fp8kv": 96256,  // 2·94·4·128·1
		"mixtral-8x7b":          131072, // 2·32·8·128·2
		"deepseek-v3":           70272,  // MLA: 61·(512+64)·2 = 2·61·1·288·2
		"mistral-7b":            131072, // 2·32·8·128·2
	}
	if len(want) != len(ModelNames()) {
		t.Errorf("catalog has %d models %v, table %d: add the new one's value", len(ModelNames()), ModelNames(), len(want))
	}
	for name, w := range want {
		m, err := LookupModel(name)
		if err != nil {
			t.Fatal(err)
		}
		if got := m.KVBytesPerToken(); got != w {
			t.Errorf("%s: %v B/token, want %v", name, got, w)
		}
		if err := m.Validate(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestHardwareValid(t *testing.T) {
	for _, n := range []string{"a100", "h100", "h200", "b200", "l40s", "a10g", "mi300x"} {
		h, err := LookupHardware(n)
		if err != nil {
			t.Fatal(err)
		}
		if err := h.Validate(); err != nil || h.Source == "" || h.PriceSource == "" {
			t.Errorf("%s: %v (source %q, price source %q)", n, err, h.Source, h.PriceSource)
		}
	}
}

// TestA100Llama70BTP8 checks the papers' instance: 8 A100-80GB serving
// Llama-3-70B. Hand computation: usable per GPU 80 GB·0.9 − reserve;
// weights per GPU 141.2 GB/8 = 17.65 GB; a 16-token block costs
// 16·327,680/8 = 655,360 B per GPU.
func TestA100Llama70BTP8(t *testing.T) {
	in, err := ParseInstanceName("a100/llama-3-70b/tp8")
	if err != nil {
		t.Fatal(err)
	}
	// Default reserve 2 GB: (72 − 2 − 17.65) GB / 655,360 B = 79,879.8.
	if got := in.KVBlocks(); got != 79879 || got < 65536 {
		t.Errorf("default KV blocks %d, want 79,879 (>= the papers' 65,536)", got)
	}
	// The papers' 65,536 blocks = a reserve of 11.4 GB per GPU:
	// (72 − 11.4 − 17.65) GB / 655,360 B = 65,536.5.
	in.ReserveGB = 11.4
	g, err := in.Profile()
	if err != nil {
		t.Fatal(err)
	}
	if g.KVBlocks != 65536 || g.Slots(8192) != 128 {
		t.Errorf("reserve 11.4 GB: %d blocks, %d slots at 8,192; papers 65,536 and 128", g.KVBlocks, g.Slots(8192))
	}
	if g.CostPerHour != 8*2.21 || g.GPUsPerInstance() != 8 {
		t.Errorf("cost %v $/h for %d GPUs, want 8 × 2.21", g.CostPerHour, g.GPUsPerInstance())
	}
	// The paper preset is untouched.
	p, _ := LookupGPU("a100")
	if p.W != 0.008 || p.H != 0.00065 || p.KVBlocks != 65536 || p.Slots(8192) != 128 || p.CostPerHour != 2.21 || p.GPUsPerInstance() != 1 {
		t.Errorf("paper a100 profile changed: %+v", p)
	}
}

// TestRooflineByHand compares two computed profiles with the arithmetic
// done by hand (docs/catalog.md shows it).
func TestRooflineByHand(t *testing.T) {
	tests := []struct {
		name         string
		w, h, p      float64
		blocks, slot int
	}{
		// H100: BW 3,350e9·0.8 = 2.68e12 B/s; weights 16.06e9 B.
		// W = 16.06e9/2.68e12 + 32·10 µs = 5.99254 + 0.32 ms = 6.31254 ms
		// H = 2·8.03e9/(989e12·0.7) + 8192·131,072/2.68e12 = 23.198 µs + 400.650 µs
		// blocks = (72e9 − 2e9 − 16.06e9)/(16·131,072) = 25,720.8
		{"h100/llama-3.1-8b/tp1", 6.312537e-3, 423.848e-6, 23.198e-6, 25720, 50},
		// A100 TP8: BW 1.6312e12; weights per GPU 17.65e9 B.
		// W = 17.65e9/1.6312e12 + 80·10 µs + 2·80·8 µs = 10.8203 + 0.8 + 1.28 ms
		// H = 17.65e9/218.4e12 + 2·80·2·(7/8)·8192·2/210e9 + 8192·40,960/1.6312e12
		//   = 80.815 + 21.845 + 205.704 µs
		{"a100/llama-3.1-70b/tp8", 12.900255e-3, 308.364e-6, 102.660e-6, 79879, 156},
	}
	for _, tt := range tests {
		in, err := ParseInstanceName(tt.name)
		if err != nil {
			t.Fatal(err)
		}
		r, err := in.Roofline()
		if err != nil {
			t.Fatal(err)
		}
		g, _ := in.Profile()
		rel := func(a, b float64) bool { return math.Abs(a-b) <= 1e-4*b }
		if !rel(g.W, tt.w) || !rel(g.H, tt.h) || !rel(r.P, tt.p) {
			t.Errorf("%s: W %.6g H %.6g P %.6g; by hand %.6g %.6g %.6g", tt.name, g.W, g.H, r.P, tt.w, tt.h, tt.p)
		}
		if g.KVBlocks != tt.blocks || g.Slots(8192) != tt.slot {
			t.Errorf("%s: %d blocks, %d slots; by hand %d, %d", tt.name, g.KVBlocks, g.Slots(8192), tt.blocks, tt.slot)
		}
	}
}

func TestBadInstances(t *testing.T) {
	zeroBW, _ := LookupHardware("h100")
	zeroBW.MemBWGBs = 0
	m, _ := LookupModel("llama-3.1-8b")
	if _, err := NewInstance(zeroBW, m, 1).Profile(); err == nil || !strings.Contains(err.Error(), "mem_bw_gbs = 0") {
		t.Errorf("zero bandwidth: %v", err)
	}
	for name, frag := range map[string]string{
		"h100/llama-3.1-70b/tp3":     "does not divide the 64 attention heads",
		"a10g/llama-3.1-70b/tp1":     "do not fit",
		"h100/llama-3.1-405b/tp8":    "do not fit",
		"h100/llama-3.1-8b/tp0":      "tp = 0",
		"h100/llama-3.1-8b/x":        "want tpN",
		"h100/nope/tp1":              "unknown model",
		"v100/llama-3.1-8b/tp1":      "unknown GPU",
		"mi300x/qwen3-235b-a22b/tp6": "does not divide",
	} {
		_, err := LookupGPU(name)
		if err == nil || !strings.Contains(err.Error(), frag) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one line with %q", name, err, frag)
		}
	}
	// GPU/MODEL picks the smallest TP that fits: 405B bf16 (812 GB) needs
	// 8 H200s (141 GB·0.9 − 2 = 124.9 GB each; 4 give 500 GB).
	in, err := ParseInstanceName("h200/llama-3.1-405b")
	if err != nil || in.TP != 8 {
		t.Errorf("h200/llama-3.1-405b: tp %d, %v; want 8", in.TP, err)
	}
}

// TestHFConfig loads configs written from the models' published
// config.json values; parameter counts are compared with the model cards.
func TestHFConfig(t *testing.T) {
	tests := []struct {
		file           string
		kv             float64 // B/token, by hand
		params, active float64 // model card
		tol            float64
	}{
		{"phi-3-mini-4k-config.json", 393216, 3.82e9, 3.82e9, 0.01}, // 2·32·32·96·2; Phi-3-mini 3.8B
		{"llama-3.1-8b-config.json", 131072, 8.03e9, 8.03e9, 0.005}, // catalog value
		{"deepseek-v3-config.json", 70272, 671e9, 37e9, 0.02},       // 671B total, 37B active
	}
	for _, tt := range tests {
		data, err := os.ReadFile(filepath.Join("testdata", tt.file))
		if err != nil {
			t.Fatal(err)
		}
		m, err := ParseHFConfig(strings.TrimSuffix(tt.file, "-config.json"), data)
		if err != nil {
			t.Fatal(err)
		}
		if m.KVBytesPerToken() != tt.kv {
			t.Errorf("%s: %v B/token, want %v", tt.file, m.KVBytesPerToken(), tt.kv)
		}
		if math.Abs(m.Params/tt.params-1) > tt.tol || math.Abs(m.Active()/tt.active-1) > tt.tol {
			t.Errorf("%s: params %.4g active %.4g, model card %.4g / %.4g", tt.file, m.Params, m.Active(), tt.params, tt.active)
		}
	}
	for _, bad := range []string{`{}`, `[]`, `{"num_hidden_layers":2,"hidden_size":64,"num_attention_heads":3,"num_key_value_heads":2,"vocab_size":10}`,
		`{"num_hidden_layers":2,"hidden_size":64,"num_attention_heads":4,"vocab_size":10,"num_local_experts":4,"num_experts_per_tok":5}`} {
		if _, err := ParseHFConfig("x", []byte(bad)); err == nil {
			t.Errorf("ParseHFConfig(%s): no error", bad)
		}
	}
}

func TestProfileFile(t *testing.T) {
	read := func(p string) ([]byte, error) { return os.ReadFile(filepath.Join("testdata", p)) }
	g, err := ParseProfileFile([]byte("name: mine\nconstants: {w: 0.01, h: 0.0005, kv_blocks: 4096, cost_per_hour: 2}\n"), nil)
	if err != nil || g.Name != "mine" || g.MaxSlots != 8 || g.Slots(8192) != 8 || g.BlockTokens != 16 {
		t.Errorf("constants: %+v %v", g, err)
	}
	g, err = ParseProfileFile([]byte("gpu: h100\nmodel: llama-3.1-8b\ntp: 1\n"), nil)
	if err != nil || g.Name != "h100/llama-3.1-8b/tp1" || g.KVBlocks != 25720 {
		t.Errorf("specs: %+v %v", g, err)
	}
	g, err = ParseProfileFile([]byte("gpu: l40s\nhf_config: phi-3-mini-4k-config.json\n"), read)
	if err != nil || g.TP != 1 || g.KVBlocks < 1 {
		t.Errorf("hf_config: %+v %v", g, err)
	}
	// The papers' A100 budget through a file: reserve 11.4 GB.
	g, err = ParseProfileFile([]byte("gpu: a100\nmodel: llama-3-70b\ntp: 8\nreserve_gb: 11.4\n"), nil)
	if err != nil || g.KVBlocks != 65536 {
		t.Errorf("reserve: %d blocks, %v", g.KVBlocks, err)
	}
	for _, bad := range []string{"", "constants: {w: 0}\n", "gpu: h100\n", "gpu: h100\nmodel: llama-3.1-8b\nconstants: {w: 1}\n",
		"gpu: h100\nmodel: llama-3.1-8b\ntypo: 1\n", "gpu_spec: {name: z, mem_gb: 80, mem_bw_gbs: 0, fp16_tflops: 1, usd_per_gpu_hour: 1}\nmodel: llama-3.1-8b\n",
		"gpu: h100\nhf_config: x.json\n", "a: 1\n---\nb: 2\n"} {
		if _, err := ParseProfileFile([]byte(bad), nil); err == nil || strings.Contains(err.Error(), "\n") {
			t.Errorf("ParseProfileFile(%q): %v, want a one-line error", bad, err)
		}
	}
}
