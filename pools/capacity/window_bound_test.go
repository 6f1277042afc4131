package capacity

import (
	"errors"
	"strings"
	"testing"

	"github.com/fleetsim/fleetsim/workload"
)

// TestWindowBounds: a window length is finite and at most MaxWindowS (with
// Δ = 1e308, τ·Δ overflowed to +Inf and every X_n printed as 0), and the
// too-short error prints the window count compactly (it printed 1e-300's
// 2.6e302 windows with %.0f: three hundred digits on one line). Review of
// issue 10.
func TestWindowBounds(t *testing.T) {
	tgt := ThroughputTarget{Percentile: 0.99, Windows: []float64{1e308}, MaxOverloadProb: NoOverloadTarget, MaxUnits: 10}
	var fe *workload.FieldError
	if err := tgt.Validate(); !errors.As(err, &fe) || fe.Field != "windows" {
		t.Errorf("Δ = 1e308: err = %v, want a FieldError on windows", err)
	}
	s := Series{T: []float64{0, 26.4}, B: []float64{1, 1}}
	if _, err := Bucket(s, 1000, 1e308); !errors.As(err, &fe) || fe.Field != "window" {
		t.Errorf("Bucket Δ = 1e308: err = %v, want a FieldError on window", err)
	}
	_, err := Bucket(s, 1000, 1e-300)
	if !errors.As(err, &fe) || len(err.Error()) > 200 || !strings.Contains(err.Error(), "e+301 windows") {
		t.Errorf("Bucket Δ = 1e-300: err = %v (%d bytes), want a short FieldError", err, len(err.Error()))
	}
	if w, err := Bucket(s, 1000, MaxWindowS); err != nil || w.Buckets() != 1 || w.X[0] != 2/(1000*MaxWindowS) {
		t.Errorf("Δ = MaxWindowS: %+v, %v", w, err)
	}
}
