package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fleetsim/fleetsim/pools/autoscale"
	"github.com/fleetsim/fleetsim/pools/variants"
)

// TestWVAMatchesOptimize: on a recorded interval (short: 100 req/s of
// 1155/211 tokens; long: 20 req/s of 3000/120), the wva autoscaler's count
// for each pool equals the replicas `fleetsim optimize` prints for a
// variants file holding that measured load.
func TestWVAMatchesOptimize(t *testing.T) {
	const head = `mode: unlimited
variants:
  - {name: s-h100, model: m-short, accelerator: H100, unit_cost: 3.90,
     profile: {alpha_ms: 7.47, beta_ms: 0.044, gamma_ms: 15.415, delta_ms: 0.000337, max_batch: 512, at_tokens: 211}}
  - {name: l-h100, model: m-long, accelerator: H100, unit_cost: 3.90,
     profile: {alpha_ms: 7.47, beta_ms: 0.044, gamma_ms: 15.415, delta_ms: 0.000337, max_batch: 512, at_tokens: 211}}
workloads:
`
	dir := t.TempDir()
	recorded := writeFile(t, dir, "recorded.yaml", head+
		"  - {name: short, model: m-short, rate_rpm: 6000, in_tokens: 1155, out_tokens: 211, slo: {ttft_ms: 500, itl_ms: 24}}\n"+
		"  - {name: long, model: m-long, rate_rpm: 1200, in_tokens: 3000, out_tokens: 120, slo: {ttft_ms: 500, itl_ms: 24}}\n")
	code, stdout, stderr := runCLI(t, "optimize", "--config", recorded, "--format", "json")
	if code != 0 {
		t.Fatalf("fleetsim optimize: exit %d: %s", code, stderr)
	}
	var res variants.Result
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatal(err)
	}
	// The autoscaler starts from a file with another load and measures the
	// interval's.
	cfg, err := variants.ParseConfig([]byte(head +
		"  - {name: short, model: m-short, rate_rpm: 1, in_tokens: 10, out_tokens: 10, slo: {ttft_ms: 500, itl_ms: 24}}\n" +
		"  - {name: long, model: m-long, rate_rpm: 1, in_tokens: 10, out_tokens: 10, slo: {ttft_ms: 500, itl_ms: 24}}\n"))
	if err != nil {
		t.Fatal(err)
	}
	a, err := autoscale.New(autoscale.Config{Policy: autoscale.PolicyWVA, Variants: filepath.Base(recorded)}, []string{"short", "long"}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	got := a.Decide([]autoscale.Observation{
		{TimeS: 60, Current: 1, Serving: 1, RateRPS: 100, MeanIn: 1155, MeanOut: 211, Arrivals: 6000},
		{TimeS: 60, Current: 1, Serving: 1, RateRPS: 20, MeanIn: 3000, MeanOut: 120, Arrivals: 1200},
	})
	if want := []int{res.Allocations[0].Replicas, res.Allocations[1].Replicas}; got[0] != want[0] || got[1] != want[1] {
		t.Errorf("wva %v, fleetsim optimize %v", got, want)
	}
	if !strings.Contains(stdout, `"replicas"`) {
		t.Errorf("optimize JSON has no replicas: %s", stdout)
	}
	t.Logf("wva %v replicas = fleetsim optimize's", got)
}
