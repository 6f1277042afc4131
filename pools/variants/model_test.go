package variants

import (
	"math"
	"testing"
)

// h100 is the H100 reference profile (issue 11, from the upstream
// WVA's float32 queue analyzer).
var h100 = Profile{Alpha: 7.47, Beta: 0.044, Gamma: 15.415, Delta: 0.000337}

func relErr(got, want float64) float64 { return math.Abs(got-want) / math.Abs(want) }

// TestModelReference checks the queue model on the H100 reference of issue
// 11: N = 512, in/out 1,155/211 tokens, SLO ITL 24 ms and TTFT 500 ms. The
// expected values come from the upstream's float32 model; float64 moves them
// by at most 7e-7 relative (TestModelFloat32 emulates float32).
func TestModelReference(t *testing.T) {
	m, err := NewModel(h100, 512, 1155, 211)
	if err != nil {
		t.Fatal(err)
	}
	s, err := m.Size(Targets{TTFT: 500, ITL: 24})
	if err != nil {
		t.Fatal(err)
	}
	// The reference prints the range with %.3f: its "0.001" is
	// 0.001·μ_1 = 0.000627 req/s (μ_1 = 1/1593.7 ms), so check it to
	// three decimals.
	if math.Abs(m.MinRate-0.001) >= 0.0005 || relErr(m.MinRate, 0.001/1.5937) > 1e-3 {
		t.Errorf("min rate = %.6f, want 0.000627 (prints as 0.001)", m.MinRate)
	}
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"max rate", m.MaxRate, 78.518},
		{"rate for TTFT", s.RateTTFT, 77.346},
		{"rate for ITL", s.RateITL, 72.031},
		{"rate", s.Rate, 72.031},
		{"ITL at rate", s.At.ITL, 24.000},
		{"TTFT at rate", s.At.TTFT, 161.669},
	} {
		t.Logf("%-14s %.6f (reference %.3f, rel %.2e)", c.name, c.got, c.want, relErr(c.got, c.want))
		if relErr(c.got, c.want) > 1e-3 {
			t.Errorf("%s = %.6f, want %.3f (1e-3 relative)", c.name, c.got, c.want)
		}
	}
}
