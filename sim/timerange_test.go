package sim

import (
	"strings"
	"testing"
)

// TestTinyRateRefused: at 1e-5 requests/s, 100 requests span about 10^7 s,
// beyond the engines' range (MaxArrivalS ≈ 4.6e6 s): Validate refuses the
// rate and names the bound, (100 + 10·10 + 50)/MaxArrivalS ≈ 5.4e-5
// (hand computation), instead of the run stopping at an arrival.
func TestTinyRateRefused(t *testing.T) {
	c := Defaults()
	c.Workload.Rate, c.Workload.Requests = 1e-5, 100
	err := c.Validate()
	if err == nil || !strings.Contains(err.Error(), "workload.rate") || !strings.Contains(err.Error(), "5.42e-05") {
		t.Fatalf("got %v, want workload.rate refused with the bound 5.42e-05", err)
	}
	c.Workload.Rate = 6e-5
	if err := c.Validate(); err != nil {
		t.Errorf("rate 6e-5 for 100 requests: %v", err)
	}
	if got := MinRate(100) * MaxArrivalS; got != 250 {
		t.Errorf("MinRate(100)·MaxArrivalS = %v, want 250", got)
	}
}
