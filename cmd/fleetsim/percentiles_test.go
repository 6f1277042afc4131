package main

import (
	"encoding/json"
	"math"
	"path/filepath"
	"slices"
	"testing"

	"github.com/fleetsim/fleetsim/sim/export"
)

// TestSummaryPercentilesBound (issue 7 design): summary.json says how its
// percentiles were computed and their relative error bound, and the bound
// holds: the fleet's TTFT and E2E P50/P90/P99 are within it of the exact
// order statistics (rank ceil(q·n)) computed from requests.parquet.
func TestSummaryPercentilesBound(t *testing.T) {
	out := t.TempDir()
	if code, _, errs := runCLI(t, smallArgs(out)...); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var s struct {
		Percentiles struct {
			Method        string  `json:"method"`
			RelativeError float64 `json:"relative_error"`
		} `json:"percentiles"`
		Fleet struct {
			TTFT map[string]float64 `json:"ttft_s"`
			E2E  map[string]float64 `json:"e2e_s"`
		} `json:"fleet"`
	}
	if err := json.Unmarshal(readBytes(t, filepath.Join(out, summaryFile)), &s); err != nil {
		t.Fatal(err)
	}
	// sim/sketch.go: 128 buckets per octave, midpoint answers: 1/256.
	if s.Percentiles.RelativeError != 1.0/256 || s.Percentiles.Method == "" {
		t.Fatalf("percentiles %+v; want a method and relative_error 1/256", s.Percentiles)
	}
	recs, err := export.ReadParquet(filepath.Join(out, requestsFile))
	if err != nil {
		t.Fatal(err)
	}
	var ttft, e2e []float64
	for _, r := range recs {
		if !r.Warmup && !r.Rejected {
			ttft, e2e = append(ttft, r.TTFTS), append(e2e, r.E2ES)
		}
	}
	for _, c := range []struct {
		name string
		vals []float64
		got  map[string]float64
	}{{"ttft_s", ttft, s.Fleet.TTFT}, {"e2e_s", e2e, s.Fleet.E2E}} {
		slices.Sort(c.vals)
		for _, q := range []struct {
			key string
			q   float64
		}{{"p50", 0.5}, {"p90", 0.9}, {"p99", 0.99}} {
			exact := c.vals[int(math.Ceil(q.q*float64(len(c.vals))))-1]
			if rel := math.Abs(c.got[q.key]-exact) / exact; rel > s.Percentiles.RelativeError {
				t.Errorf("%s %s = %v, exact %v: relative error %.3g > %v", c.name, q.key, c.got[q.key], exact, rel, s.Percentiles.RelativeError)
			}
		}
	}
}
