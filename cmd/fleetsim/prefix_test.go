package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fleetsim/fleetsim/sim/export"
)

// mooncakeOneInstance is a scenario replaying a Mooncake trace on one
// instance that serves one request at a time with an unbounded prefix cache
// (2^24 blocks: more than either trace fills), so that every request sees
// the blocks of all the earlier ones.
func mooncakeOneInstance(trace string) string {
	abs, _ := filepath.Abs(filepath.Join("..", "..", "workload", "testdata", trace))
	return "workload: {trace: " + abs + "}\n" +
		"pools:\n  - {name: one, gpu: a100, count: 1, max_ctx: 200000, max_seqs: 1, kv_blocks: 16777216, prefix_cache: {blocks: all}}\n" +
		"timing: kv\nwarmup_fraction: 0\n"
}

// TestMooncakePrefixHitFraction: with an unbounded prefix cache on one
// instance, the fleet's prefix_cache.hit_token_fraction of each Mooncake
// trace equals the fraction computed from its hash_ids alone
// (engine.TestMooncakeHitFraction's formula, docs/model.md "Prefix cache"):
// synthetic 39,850,800 / 61,194,628 = 0.65121, conversation
// 54,097,440 / 144,793,823 = 0.37362 (FLEETSIM_LONG=1 only). The
// per-request cached_tokens column sums to the same tokens.
func TestMooncakePrefixHitFraction(t *testing.T) {
	for _, tc := range []struct {
		trace         string
		cached, total int64
		long          bool
	}{
		{"mooncake_synthetic_trace.jsonl", 39850800, 61194628, false},
		{"mooncake_conversation_trace.jsonl", 54097440, 144793823, true},
	} {
		if (tc.long || testing.Short()) && os.Getenv("FLEETSIM_LONG") == "" {
			t.Logf("%s: skipped (set FLEETSIM_LONG=1)", tc.trace)
			continue
		}
		dir := t.TempDir()
		cfg := writeFile(t, dir, "s.yaml", mooncakeOneInstance(tc.trace))
		out := filepath.Join(dir, "out")
		if code, _, stderr := runCLI(t, "simulate", "--config", cfg, "--requests", "100000", "--out", out,
			"--timeseries-interval", "off", "--requests-format", "parquet,csv"); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		var s struct {
			Fleet struct {
				PrefixCache struct {
					HitTokenFraction float64 `json:"hit_token_fraction"`
					CachedTokens     int64   `json:"cached_tokens"`
					PromptTokens     int64   `json:"prompt_tokens"`
					Evictions        int64   `json:"evictions"`
				} `json:"prefix_cache"`
			} `json:"fleet"`
		}
		if err := json.Unmarshal(readBytes(t, filepath.Join(out, "summary.json")), &s); err != nil {
			t.Fatal(err)
		}
		pc := s.Fleet.PrefixCache
		if pc.CachedTokens != tc.cached || pc.PromptTokens != tc.total || pc.Evictions != 0 ||
			pc.HitTokenFraction != float64(tc.cached)/float64(tc.total) {
			t.Errorf("%s: prefix_cache %+v, hash_ids give %d / %d", tc.trace, pc, tc.cached, tc.total)
		}
		recs, err := export.ReadParquetExt(filepath.Join(out, "requests.parquet"))
		if err != nil {
			t.Fatal(err)
		}
		var sum int64
		for _, r := range recs {
			sum += int64(r.Ext.CachedTokens)
			if r.Ext.PrefillInstance != 0 || r.Ext.DecodeInstance != 0 || r.Ext.KVTransferS != 0 {
				t.Fatalf("request %d: %+v, want instance 0 and no transfer", r.ID, r.Ext)
			}
		}
		if sum != tc.cached {
			t.Errorf("%s: cached_tokens sums to %d, want %d", tc.trace, sum, tc.cached)
		}
		head, _, _ := strings.Cut(string(readBytes(t, filepath.Join(out, "requests.csv"))), "\n")
		if want := strings.Join(append(export.RowColumns(), export.ExtColumns()...), ","); head != want {
			t.Errorf("requests.csv header %q, want %q", head, want)
		}
		t.Logf("%s: hit_token_fraction %.5f", tc.trace, pc.HitTokenFraction)
	}
}

// TestPrefixCacheBadInput: a bad prefix_cache is one line naming the
// field, exit status 2, nothing written.
func TestPrefixCacheBadInput(t *testing.T) {
	dir := t.TempDir()
	pool := func(pc string) string {
		return "pools:\n  - {name: p, gpu: a100, count: 2, max_ctx: 4096, kv_blocks: 4096, prefix_cache: " + pc + "}\n"
	}
	for _, tc := range []struct {
		name, pc string
		want     []string
	}{
		{"cache above the KV budget", "{blocks: 5000}", []string{"pools[0].prefix_cache.blocks", "5000", "4096"}},
		{"zero blocks", "{blocks: 0}", []string{"prefix_cache.blocks", "0"}},
		{"blocks not all", "{blocks: some}", []string{"prefix_cache.blocks", "some"}},
		{"unknown routing", "{blocks: all, routing: random}", []string{"pools[0].prefix_cache.routing", "random", "prefix-affinity"}},
		{"weight above 1", "{blocks: all, routing: weighted, weight: 1.5}", []string{"prefix_cache.weight", "1.5"}},
		{"negative weight", "{blocks: all, routing: weighted, weight: -0.1}", []string{"prefix_cache.weight", "-0.1"}},
		{"negative load cap", "{blocks: all, routing: prefix-affinity, load_cap: -1}", []string{"prefix_cache.load_cap", "-1"}},
		{"candidates", "{blocks: all, routing: prefix-affinity, candidates: 65}", []string{"prefix_cache.candidates", "65"}},
		{"routing with central dispatch", "{blocks: all, routing: prefix-affinity}, dispatch: central", []string{"prefix_cache.routing", "jsq"}},
		// Disaggregation (the pool has count 2).
		{"no prefill instance", "{blocks: all}, disaggregated: {prefill: 0, decode: 2}", []string{"pools[0].disaggregated.prefill", "0"}},
		{"no decode instance", "{blocks: all}, disaggregated: {prefill: 2, decode: 0}", []string{"pools[0].disaggregated.decode", "0"}},
		{"stages against count", "{blocks: all}, disaggregated: {prefill: 1, decode: 2}", []string{"pools[0].disaggregated", "count 2"}},
		{"negative bandwidth", "{blocks: all}, disaggregated: {prefill: 1, decode: 1, link: {gb_s: -5}}", []string{"pools[0].disaggregated.link", "gb_s = -5"}},
		{"negative latency", "{blocks: all}, disaggregated: {prefill: 1, decode: 1, link: {gb_s: 5, latency_s: -1}}", []string{"disaggregated.link", "latency_s = -1"}},
		// 4,095 tokens · 327,680 B over 10^-300 GB/s: beyond catalog.MaxTransferS.
		{"link too slow", "{blocks: all}, disaggregated: {prefill: 1, decode: 1, link: {gb_s: 1e-300}}", []string{"pools[0].disaggregated", "gb_s = 1e-300", "4095-token prompt", "1000 s"}},
		{"latency too long", "{blocks: all}, disaggregated: {prefill: 1, decode: 1, link: {gb_s: 5, latency_s: 1e300}}", []string{"pools[0].disaggregated", "latency_s = 1e+300"}},
		{"bytes too many", "{blocks: all}, disaggregated: {prefill: 1, decode: 1, kv_bytes_per_token: 1e12}", []string{"pools[0].disaggregated", "kv_bytes_per_token 1e+12"}},
	} {
		cfg := writeFile(t, dir, "s.yaml", pool(tc.pc))
		out := filepath.Join(dir, "out")
		code, _, stderr := runCLI(t, "simulate", "--config", cfg, "--requests", "100", "--out", out)
		if code != 2 || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%s: exit %d, stderr %q; want 2 and one line", tc.name, code, stderr)
		}
		for _, w := range tc.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("%s: stderr %q lacks %q", tc.name, stderr, w)
			}
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s: %s was created", tc.name, out)
		}
	}
}
