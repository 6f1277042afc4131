package variants

import "testing"

// BenchmarkSizeH100 sizes the H100 reference (N = 512: a chain of
// 5,633 states, two bisections).
func BenchmarkSizeH100(b *testing.B) {
	m, err := NewModel(h100, 512, 1155, 211)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := m.Size(Targets{TTFT: 500, ITL: 24}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkOptimizeExample optimizes examples/variants.yaml in limited mode.
func BenchmarkOptimizeExample(b *testing.B) {
	cfg := exampleConfig(b)
	for b.Loop() {
		if _, err := Optimize(cfg, Options{Mode: ModeLimited}); err != nil {
			b.Fatal(err)
		}
	}
}
