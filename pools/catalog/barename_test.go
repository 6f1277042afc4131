package catalog

import "testing"

// TestBareCatalogGPUNames: a bare name of a catalog GPU specification with
// no hand-written profile of that name is the specification serving
// DefaultModel at the smallest TP that fits (issue 19: h200, b200, l40s
// were refused as pools, and bare h100 was a hand-written estimate unlike
// the catalog's H100, now named h100-est).
func TestBareCatalogGPUNames(t *testing.T) {
	for _, name := range []string{"h100", "h200", "b200", "l40s", "H200"} {
		got, err := LookupGPU(name)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		want, err := LookupGPU(name + "/" + DefaultModel)
		if err != nil {
			t.Fatal(err)
		}
		if got.Name != want.Name || got.W != want.W || got.H != want.H || got.KVBlocks != want.KVBlocks || got.CostPerHour != want.CostPerHour || got.TP != want.TP {
			t.Errorf("%s = %+v, want %s/%s = %+v", name, got, name, DefaultModel, want)
		}
		if got.TP < 1 {
			t.Errorf("%s: TP %d, want a computed profile", name, got.TP)
		}
	}
	// The old hand-written H100 estimate keeps its constants under its
	// explicit name (W = 4.8 ms, H = 0.39 ms, $3.90/h: gpu.go).
	est, err := LookupGPU("h100-est")
	if err != nil || est.W != 0.0048 || est.H != 0.00039 || est.CostPerHour != 3.90 || est.TP != 0 {
		t.Errorf("h100-est = %+v, %v; want the hand-written estimate", est, err)
	}
	// Their weights (instance start-up) are the default model's; the
	// estimate's are Llama-3-70B's, as before.
	for _, c := range [][2]string{{"h200", "h200/llama-3.1-70b/tp2"}, {"h100-est", "a100"}} {
		got, err1 := WeightBytes(c[0])
		want, err2 := WeightBytes(c[1])
		if err1 != nil || err2 != nil || got != want || got <= 0 {
			t.Errorf("WeightBytes(%s) = %g (%v), want WeightBytes(%s) = %g (%v)", c[0], got, err1, c[1], want, err2)
		}
	}
	// The papers' A100 and the other hand-written profiles are unchanged.
	if a, _ := LookupGPU("a100"); a.W != 0.008 || a.H != 0.00065 || a.TP != 0 {
		t.Errorf("a100 = %+v, want the papers' profile", a)
	}
}
