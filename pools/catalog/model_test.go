package catalog

import (
	"strings"
	"testing"
)

func TestKVBytesPerToken(t *testing.T) {
	tests := []struct {
		model string
		want  float64
		src   string
	}{
		{"llama-3-70b", 327680, "issue #3 / FleetOpt §2.2: 2·80·8·128·2 = 327,680 B (320 KB)"},
		{"qwen3-235b-a22b", 192512, "token-budget §4.7: 23.5 KB per token per GPU at TP=8 → ×8 = 192,512 B"},
		{"qwen3-235b-a22b-fp8kv", 96256, "2·94·4·128·1"},
	}
	for _, tt := range tests {
		m, err := LookupModel(tt.model)
		if err != nil {
			t.Fatal(err)
		}
		if got := m.KVBytesPerToken(); got != tt.want {
			t.Errorf("%s: %v B/token, want %v (%s)", tt.model, got, tt.want, tt.src)
		}
	}
}

func TestSeqsPerInstanceQwen3MI300X(t *testing.T) {
	// Token-budget paper §4.7: 133.4 GB left for KV per GPU; 676 sequences at
	// 8K and 169 at 32K.
	m, _ := LookupModel("qwen3-235b-a22b")
	d := MI300XQwen3
	if free := d.KVBytesPerGPU(m); free < 133.3e9 || free > 133.5e9 {
		t.Errorf("KV bytes per GPU %v, paper 133.4 GB", free)
	}
	for _, tt := range []struct{ ctx, want int }{{8192, 676}, {32768, 169}} {
		if got := d.SeqsPerInstance(m, tt.ctx); got != tt.want {
			t.Errorf("N_seq at %d = %d, paper %d", tt.ctx, got, tt.want)
		}
	}
	// The block rule through a GPU profile gives the same 676 at 8K.
	g := GPU{Name: "x", MaxSlots: 1 << 20, CalibCtx: 8192, BlockTokens: 16, KVBlocks: d.KVBlocks(m)}
	if got := g.Slots(8192); got != 676 {
		t.Errorf("Slots(8192) from KVBlocks %d = %d, want 676", g.KVBlocks, got)
	}
	// The mi300x GPU profile used by the simulator agrees with the deployment.
	mi, _ := LookupGPU("mi300x")
	for _, ctx := range []int{8192, 32768} {
		if got, want := mi.Slots(ctx), d.SeqsPerInstance(m, ctx); got != want {
			t.Errorf("mi300x profile Slots(%d) = %d, deployment N_seq %d", ctx, got, want)
		}
	}
	fp8, _ := LookupModel("qwen3-235b-a22b-fp8kv")
	if got := d.SeqsPerInstance(fp8, 8192); got != 1353 {
		t.Errorf("fp8 KV: N_seq at 8K = %d, want 1353 (twice the bf16 count)", got)
	}
	// Weights that do not fit leave no room.
	if got := (Deployment{GPUMemBytes: 80e9, Util: 0.9, TP: 1, BlockTokens: 16}).SeqsPerInstance(m, 8192); got != 0 {
		t.Errorf("235 GB on one 80 GB GPU: %d sequences, want 0", got)
	}
}

func TestA100SlotRule(t *testing.T) {
	// FleetOpt §7.1: 256 at 4K, 682 at 1.5K, 128 at 8K, 16 at 64K.
	g, _ := LookupGPU("a100")
	for _, tt := range []struct{ ctx, want int }{{4096, 256}, {1536, 682}, {8192, 128}, {65536, 16}, {16384, 64}, {32768, 32}} {
		if got := g.Slots(tt.ctx); got != tt.want {
			t.Errorf("a100 Slots(%d) = %d, want %d", tt.ctx, got, tt.want)
		}
	}
}

func TestParseModels(t *testing.T) {
	ms, err := ParseModels(strings.NewReader(`[{"name":"Tiny","layers":2,"kv_heads":1,"head_dim":64,"kv_bytes":2,"weight_bytes":1e9}]`))
	if err != nil {
		t.Fatal(err)
	}
	if ms[0].Name != "tiny" || ms[0].KVBytesPerToken() != 512 {
		t.Errorf("got %+v (%v B/token), want tiny with 512 B/token", ms[0], ms[0].KVBytesPerToken())
	}
	for _, bad := range []string{
		`[]`, `{}`, `[{"name":"x","layers":0,"kv_heads":1,"head_dim":1,"kv_bytes":1}]`,
		`[{"name":"x","layers":1,"kv_heads":1,"head_dim":1,"kv_bytes":0}]`,
		`[{"name":"x","layers":1,"kv_heads":1,"head_dim":1,"kv_bytes":1,"typo":3}]`,
	} {
		if _, err := ParseModels(strings.NewReader(bad)); err == nil {
			t.Errorf("ParseModels(%s): no error", bad)
		}
	}
}
