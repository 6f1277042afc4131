package catalog

import (
	"math"
	"strings"
	"testing"
)

// TestStartupDelay: provision + weights / bandwidth, by hand.
func TestStartupDelay(t *testing.T) {
	w, err := WeightBytes("a100") // Llama-3-70B fp16: 70.6e9 parameters × 2 bytes
	if err != nil || w != 141.2e9 {
		t.Fatalf("WeightBytes(a100) = %v, %v; want 141.2e9", w, err)
	}
	if got := (Startup{}).DelayS(w); math.Abs(got-(60+70.6)) > 1e-9 {
		t.Errorf("default delay %v s, want 130.6 (60 s + 141.2 GB / 2 GB/s)", got)
	}
	if got := (Startup{ProvisionS: 10, LoadBandwidth: 1e9}).DelayS(16e9); got != 26 {
		t.Errorf("delay %v s, want 26 (10 s + 16 GB / 1 GB/s)", got)
	}
	if w, err := WeightBytes("h100/llama-3.1-8b/tp1"); err != nil || w != 8.03e9*2 {
		t.Errorf("WeightBytes(h100/llama-3.1-8b/tp1) = %v, %v", w, err)
	}
	if _, err := WeightBytes("b300"); err == nil {
		t.Errorf("WeightBytes of an unknown profile: no error")
	}
	for _, s := range []Startup{{ProvisionS: -1}, {ProvisionS: math.NaN()}, {LoadBandwidth: -5}, {LoadBandwidth: math.Inf(1)}} {
		err := s.Validate()
		if err == nil || !(strings.HasPrefix(err.Error(), "provision_s") || strings.HasPrefix(err.Error(), "load_bandwidth")) {
			t.Errorf("%+v: error %v, want one naming the field", s, err)
		}
	}
}
