package router

import (
	"math"
	"testing"

	"github.com/fleetsim/fleetsim/workload"
)

// TestPCZeroCompressesNothing: p_c = 0 means no compression, as in the
// planner (fleetopt.Config.PC), not "the default 1.0" (issue 7: the same
// zero meant 1.0 here and 0 in pools). A prose request of 4,000 tokens
// with 1,000 output tokens is in the band (4096, 6144] at B = 4096, γ = 1.5
// (TestCompressAndRoute compresses it with p_c = 1); with p_c = 0 it must go
// long, uncompressed, every time.
func TestPCZeroCompressesNothing(t *testing.T) {
	for _, pc := range []float64{0, DefaultPC} {
		tb := calibrated(t, Config{Kind: "cr", BShort: 4096, Gamma: 1.5, PC: pc}, twoPools, 50)
		compressed := 0
		for range 200 {
			r := workload.Request{InputTokens: 4000, OutputTokens: 1000, MaxOutputTokens: 1000,
				Bytes: int(math.Round(trueRatio[workload.Prose] * 4000)), Category: workload.Prose}
			if d := tb.Route(&r, nil); d.Compressed {
				compressed++
			}
		}
		if want := int(pc * 200); compressed != want {
			t.Errorf("p_c = %v: %d of 200 band requests compressed, want %d", pc, compressed, want)
		}
	}
}
