package workload

import (
	"math"
	"testing"
)

// TestAzure2023Source: 28,185 requests (testdata/SOURCES.md: 8,819 code +
// 19,366 conversation), in arrival order, rescaled to the asked mean rate,
// with mean L_in + L_out = 1,587.95 tokens (SOURCES.md, code+conv total).
func TestAzure2023Source(t *testing.T) {
	src, err := NewAzure2023Source(100, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	var r Request
	n, code, sum := 0, 0, 0
	prev, last := -1.0, 0.0
	for src.Next(&r) {
		if r.Arrival < prev || r.ID != int64(n) || r.Bytes < 1 {
			t.Fatalf("row %d: %+v", n, r)
		}
		prev, last = r.Arrival, r.Arrival
		if r.Category == Code {
			code++
		}
		sum += r.TotalTokens()
		n++
	}
	if n != Azure2023Requests || code != 8819 {
		t.Errorf("%d requests, %d code; want 28185, 8819", n, code)
	}
	if rate := float64(n) / last; math.Abs(rate-100) > 1e-9 {
		t.Errorf("rate %v, want 100", rate)
	}
	if mean := float64(sum) / float64(n); math.Abs(mean-1587.95) > 0.005 {
		t.Errorf("mean L_total %v, want 1587.95", mean)
	}
	if _, err := NewAzure2023Source(0, 0, 1); err == nil {
		t.Error("rate 0 accepted")
	}
}
