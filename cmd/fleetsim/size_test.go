package main

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestSizeBadInput(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--seeds", "0"}, "--seeds 0"},
		{[]string{"--slo-ttft-p99", "10ms"}, "unreachable"},
		{[]string{"--slo-ttft-p99", "0"}, "needs a latency target"},
		{[]string{"--method", "spillover"}, "--method"},
		{[]string{"--format", "xml"}, "--format"},
		{[]string{"--util-cap", "2"}, "--util-cap"},
		// --requests 0 used to reach the library, which reads 0 as "default"
		// and ran 50,000 requests per pool (review7).
		{[]string{"--requests", "0"}, "--requests 0"},
		{[]string{"--seeds", "1e9"}, "--seeds"},
		{[]string{"--confirm-seeds", "-1"}, "--confirm-seeds -1"},
		// Issue 20 item 2: at 10⁷ req/s size ran silently for over a
		// minute; now a run longer than size simulates is refused at once
		// (after the occupancy model, whose chains are now bounded).
		{[]string{"--rate", "1e7"}, "--rate 1e+07 requests/s: a run of pool short needs"},
		// Bad input names the flag, not the scenario field of the runs
		// size builds (final review of 2026-11-28: "workload.rate =
		// 1e-06", a pool's share, and "pools[0].max_ctx = 1").
		{[]string{"--rate", "1e-6"}, "--rate 1e-06 requests/s: too low for size's runs (a pool's share 8.98e-07 requests/s: at least 0.0607 requests/s"},
		{[]string{"--rate", "1e-6", "--method", "homo"}, "--rate 1e-06 requests/s: too low for size's runs (a pool's share 1e-06 requests/s: at least 0.0675 requests/s"},
		{[]string{"--b-short", "1", "--method", "retrofit"}, "--b-short 1 tokens: the max context must be at least 2 tokens"},
		{[]string{"--b-short", "1"}, "--b-short 1 tokens: the max context must be at least 2 tokens"},
	} {
		code, _, errs := runCLI(t, append([]string{"size"}, tt.args...)...)
		if code != 2 || !strings.Contains(errs, tt.want) || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
			t.Errorf("%v: exit %d, stderr %q (want one line with %q)", tt.args, code, errs, tt.want)
		}
	}
}

// A reduced run of the JSON contract: the three counts per pool.
func TestSizeJSON(t *testing.T) {
	code, out, errs := runCLI(t, "size", "--workload", "lmsys", "--rate", "60", "--b-short", "1536", "--seeds", "2", "--requests", "2000", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(errs, "size: pool long:") {
		t.Errorf("no progress on stderr: %q", errs)
	}
	var doc struct {
		Pools []map[string]any `json:"pools"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	for _, p := range doc.Pools {
		for _, k := range []string{"gpus_analytic_paper", "gpus_analytic_occupancy", "gpus_simulated", "annual_cost_usd", "margin_ttft"} {
			if _, ok := p[k]; !ok {
				t.Errorf("pool %v lacks %q", p["name"], k)
			}
		}
	}
}
