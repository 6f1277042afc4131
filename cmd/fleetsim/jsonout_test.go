package main

import (
	"math"
	"strings"
	"testing"
)

// TestWriteJSONNoNaN: NaN and infinities become null wherever they sit
// (field, list, map, pointer, interface), other numbers are unchanged, and
// the value written is not modified.
func TestWriteJSONNoNaN(t *testing.T) {
	type inner struct{ X float64 }
	nan := math.NaN()
	v := struct {
		A float64
		B []float64
		C map[string]float64
		D *inner
		E any
		F float64
	}{nan, []float64{1, math.Inf(1), 2}, map[string]float64{"k": nan}, &inner{nan}, inner{math.Inf(-1)}, 0.5}
	var b strings.Builder
	if err := writeJSON(&b, v); err != nil {
		t.Fatal(err)
	}
	got := strings.Join(strings.Fields(b.String()), "")
	want := `{"A":null,"B":[1,null,2],"C":{"k":null},"D":{"X":null},"E":{"X":null},"F":0.5}`
	if got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	if !math.IsNaN(v.A) || !math.IsNaN(v.D.X) || !math.IsInf(v.B[1], 1) {
		t.Error("writeJSON modified its argument")
	}
}
