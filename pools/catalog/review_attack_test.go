package catalog

import (
	"strings"
	"testing"
)

// A model_spec in a YAML profile file uses the keys docs/catalog.md and the
// Model JSON tags name (kv_heads, head_dim, kv_bytes, weight_bytes); before
// the yaml tags, yaml.v3 expected "kvheads" and refused the documented keys.
// Expected figures: Llama-3.1-8B geometry (meta-llama/Llama-3.1-8B
// config.json: 32 layers, 8 KV heads, head dim 128) → 2·32·8·128·2 =
// 131,072 B/token, the catalog's llama-3.1-8b.
func TestProfileFileModelSpecKeys(t *testing.T) {
	doc := `gpu: h100
tp: 1
model_spec:
  name: my-8b
  layers: 32
  kv_heads: 8
  head_dim: 128
  kv_bytes: 2
  weight_bytes: 16.06e9
  hidden: 4096
  heads: 32
  vocab: 128256
  params: 8.03e9
`
	g, in, err := ParseProfileFileInstance([]byte(doc), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := in.Model.KVBytesPerToken(); got != 131072 {
		t.Fatalf("KV bytes/token %v, want 131072", got)
	}
	want, _ := LookupGPU("h100/llama-3.1-8b/tp1")
	if g.KVBlocks != want.KVBlocks || g.W != want.W {
		t.Fatalf("model_spec profile %+v differs from the catalog's %+v", g, want)
	}
}

// Absurd GPU specifications and reserves give one short line naming the
// field, not a 300-digit number or a misleading "no room for one KV block".
func TestAbsurdSpecsOneLine(t *testing.T) {
	h, _ := LookupHardware("h100")
	m, _ := LookupModel("llama-3.1-8b")
	huge := h
	huge.MemGB = 1e300
	slow := h
	slow.MemBWGBs = 1e-300
	dear := h
	dear.USDPerGPUHour = 1e300
	res := NewInstance(h, m, 1)
	res.ReserveGB = 1e300
	for name, in := range map[string]Instance{
		"mem_gb": NewInstance(huge, m, 1), "mem_bw_gbs": NewInstance(slow, m, 1),
		"usd_per_gpu_hour": NewInstance(dear, m, 1), "reserve_gb": res,
	} {
		err := in.Validate()
		if err == nil {
			t.Errorf("%s: accepted", name)
			continue
		}
		if !strings.Contains(err.Error(), name) || len(err.Error()) > 200 {
			t.Errorf("%s: error %q should name the field in one short line", name, err)
		}
	}
}

// tpN must be digits: "tp+4" and "tp04" are not instance names.
func TestInstanceNameStrictTP(t *testing.T) {
	for _, n := range []string{"h100/llama-3.1-70b/tp+4", "h100/llama-3.1-70b/tp04", "h100/llama-3.1-70b/tp 4"} {
		if _, err := ParseInstanceName(n); err == nil {
			t.Errorf("%q accepted", n)
		}
	}
	if _, err := ParseInstanceName("h100/llama-3.1-70b/tp4"); err != nil {
		t.Fatal(err)
	}
}

// A GPU specification that has no hand-written profile (h200, b200, l40s)
// was refused with a hint naming h200/MODEL/tpN; since issue 19 it is the
// specification serving DefaultModel (TestBareCatalogGPUNames), and an
// unknown name still lists the names allowed.
func TestLookupGPUSpecHint(t *testing.T) {
	_, err := LookupGPU("h900")
	if err == nil || !strings.Contains(err.Error(), "GPU/MODEL/tpN") {
		t.Fatalf("LookupGPU(h900) = %v; want the allowed names", err)
	}
}

// A profile file may override one efficiency factor; the others keep
// their defaults (before, `efficiency: {mem: 0.9}` zeroed compute and was
// refused with "efficiency.compute = 0").
func TestProfileFilePartialEfficiency(t *testing.T) {
	_, in, err := ParseProfileFileInstance([]byte("gpu: h100\nmodel: llama-3.1-8b\ntp: 1\nefficiency: {mem: 0.9}\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := DefaultEfficiency
	want.Mem = 0.9
	if in.Eff != want {
		t.Fatalf("efficiency %+v, want %+v", in.Eff, want)
	}
}

// A config.json without num_hidden_layers says the field is missing, not
// "= 0" (which reads as if the file said 0).
func TestHFConfigMissingField(t *testing.T) {
	_, err := ParseHFConfig("x", []byte(`{"hidden_size": 4096, "num_attention_heads": 32, "vocab_size": 1000}`))
	if err == nil || !strings.Contains(err.Error(), "num_hidden_layers missing") {
		t.Fatalf("error %v; want num_hidden_layers missing", err)
	}
}
