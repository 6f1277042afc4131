package main

import (
	"encoding/json"
	"path/filepath"
	"testing"
)

// TestScenarioStrict is issue 7 bug 7: a scenario file is read one
// consistent way, YAML and JSON alike: a fraction in an integer field, an
// unknown key, a second document, a key given twice and a key that does not
// apply to the chosen model (burst settings with Poisson arrivals) are each
// exit 2 with one line naming the key. Before the fix YAML truncated
// `count: 2.9` to 2, read only the first document, JSON kept the last of
// two equal keys, and burst settings with Poisson arrivals were ignored.
func TestScenarioStrict(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	cases := []struct {
		name, body string
		extra      []string
		want       string
	}{
		{"count.yaml", "pools: [{name: x, gpu: a100, count: 2.9, max_ctx: 4096}]\n", nil, "pools[0].count = 2.9: must be an integer"},
		{"count.json", `{"pools": [{"name": "x", "gpu": "a100", "count": 2.9, "max_ctx": 4096}]}`, nil, "pools[0].count = 2.9: must be an integer"},
		{"req.yaml", "workload: {requests: 100.5}\n", nil, "workload.requests = 100.5: must be an integer"},
		{"unknown.yaml", "seed: 1\nworklaod: {rate: 5}\n", nil, `unknown key "worklaod"`},
		{"unknown.json", `{"seed": 1, "worklaod": {"rate": 5}}`, nil, `unknown key "worklaod"`},
		{"docs.yaml", "seed: 1\n---\nseed: 2\n", nil, "more than one document"},
		{"docs.json", `{"seed": 1} {"seed": 2}`, nil, "more than one document"},
		{"dup.yaml", "seed: 1\nseed: 2\n", nil, `key "seed" is given twice`},
		{"dup.json", `{"workload": {"rate": 5, "rate": 6}}`, nil, `key "workload.rate" is given twice`},
		{"burst.yaml", "workload: {burst_ratio: 8}\n", nil, "workload.burst_ratio = 8: applies only to arrival bursty"},
		{"burst2.yaml", "workload: {arrival: bursty, calm_mean_s: 30}\n", []string{"--arrival", "poisson"}, "workload.calm_mean_s = 30: applies only to arrival bursty"},
		{"split.yaml", "workload: {split: normal, input_fraction: 0.7}\n", nil, "workload.input_fraction = 0.7: applies only to split fixed"},
		{"mu.yaml", "workload: {output_mu: 0.2}\n", nil, "workload.output_mu = 0.2: applies only to split normal"},
	}
	for _, c := range cases {
		args := append([]string{"simulate", "--config", writeFile(t, dir, c.name, c.body), "--out", out}, c.extra...)
		code, _, errs := runCLI(t, args...)
		oneErrLine(t, args, code, errs, c.want)
	}
}

// TestSummaryConfigLoadsBack: summary.json's config (defaults spelled out)
// is itself a valid scenario file that gives the same run.
func TestSummaryConfigLoadsBack(t *testing.T) {
	dir := t.TempDir()
	for _, extra := range [][]string{nil, {"--arrival", "bursty"}, {"--router", "cr"}} {
		a := filepath.Join(dir, "a")
		code, _, errs := runCLI(t, smallArgs(a, append([]string{"--no-parquet"}, extra...)...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", extra, code, errs)
		}
		var s struct {
			Config json.RawMessage `json:"config"`
		}
		if err := json.Unmarshal(readBytes(t, filepath.Join(a, summaryFile)), &s); err != nil {
			t.Fatal(err)
		}
		cfg := writeFile(t, dir, "cfg.json", string(s.Config))
		b := filepath.Join(dir, "b")
		code, _, errs = runCLI(t, "simulate", "--config", cfg, "--out", b, "--no-parquet")
		if code != 0 {
			t.Fatalf("%v: summary config as a scenario: exit %d: %s", extra, code, errs)
		}
		if x, y := readBytes(t, filepath.Join(a, summaryFile)), readBytes(t, filepath.Join(b, summaryFile)); string(x) != string(y) {
			t.Errorf("%v: the run from summary.json's config differs from the original", extra)
		}
	}
}
