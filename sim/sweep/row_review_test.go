package sweep

import (
	"math"
	"testing"
)

// TestUSDPerMillionNothingCompleted: docs/sweep.md says the cost per million
// requests is NULL when nothing completed; a run stopped by --osd enforce
// inside the warm-up has completions in the window (of warm-up requests) but
// Completed = 0, and printed a price (20.05) for requests it never measured.
func TestUSDPerMillionNothingCompleted(t *testing.T) {
	r := Row{CostUSDPerHour: 1.01}
	r.Metrics.ThroughputRPS = 14
	if got := r.USDPerMillion(); !math.IsNaN(got) {
		t.Errorf("USDPerMillion with Completed 0 = %v, want NaN", got)
	}
	r.Metrics.Completed = 1
	// 1.01 USD/h / (14 req/s × 3600 s/h) × 1e6, by hand: 20.039682...
	if got, want := r.USDPerMillion(), 1.01/(14*3600.0)*1e6; math.Abs(got-want) > 1e-9 {
		t.Errorf("USDPerMillion = %v, want %v", got, want)
	}
}
