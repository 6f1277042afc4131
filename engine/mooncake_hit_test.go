package engine

import (
	"io"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/fleetsim/fleetsim/workload"
)

// traceHitFraction computes, from a Mooncake trace's hash_ids alone, the
// fraction of prompt tokens an unbounded prefix cache with 16-token blocks
// serves when the requests run one after another (docs/model.md, "Prefix
// cache"): request i, whose first m_i hash units (512 tokens each) extend a
// chain of units seen in an earlier request, gets
// hit_i = 16·min(32·m_i, floor((L_i−1)/16)) tokens from the cache, and the
// fraction is Σ hit_i / Σ L_i. It needs len(hash_ids) = ceil(L/512) on every
// row (true of both Mooncake traces), so that an earlier request published
// every block of the units it shares.
func traceHitFraction(t *testing.T, rows []workload.TraceRow) (hit, total int64) {
	seen := map[string]bool{}
	for _, r := range rows {
		if len(r.HashIDs) != (r.Input+511)/512 {
			t.Fatalf("line %d: %d hash_ids for %d tokens", r.Line, len(r.HashIDs), r.Input)
		}
		chain := ""
		m := 0
		for k, h := range r.HashIDs {
			chain += "," + strconv.FormatUint(h, 10)
			if seen[chain] && m == k {
				m = k + 1
			}
			seen[chain] = true
		}
		hit += int64(16 * min(32*m, (r.Input-1)/16))
		total += int64(r.Input)
	}
	return hit, total
}

func readMooncake(t *testing.T, name string) []workload.TraceRow {
	path := filepath.Join("..", "workload", "testdata", name)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rd := workload.NewMooncakeReader(path, f)
	var rows []workload.TraceRow
	for {
		r, err := rd.Next()
		if err == io.EOF {
			return rows
		}
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, r)
	}
}

// TestMooncakeHitFraction: on one instance with a prefix cache larger than
// anything the trace can fill (2^24 blocks), requests run one at a time in
// trace order hit exactly the tokens traceHitFraction counts. Numbers
// (docs/model.md): conversation 54,097,440 / 144,793,823 = 0.37362,
// synthetic 39,850,800 / 61,194,628 = 0.65121. The conversation trace
// (5.8 million cached blocks) runs only with FLEETSIM_LONG=1.
func TestMooncakeHitFraction(t *testing.T) {
	for _, tc := range []struct {
		file       string
		hit, total int64
		long       bool
	}{
		{"mooncake_synthetic_trace.jsonl", 39850800, 61194628, false},
		{"mooncake_conversation_trace.jsonl", 54097440, 144793823, true},
	} {
		if (tc.long || testing.Short()) && os.Getenv("FLEETSIM_LONG") == "" {
			t.Logf("%s: skipped (set FLEETSIM_LONG=1)", tc.file)
			continue
		}
		rows := readMooncake(t, tc.file)
		hit, total := traceHitFraction(t, rows)
		if hit != tc.hit || total != tc.total {
			t.Errorf("%s: from hash_ids %d / %d, pinned %d / %d", tc.file, hit, total, tc.hit, tc.total)
		}
		cfg := Config{MaxSeqs: 1, KVBlocks: 1 << 24, BlockTokens: 16, ChunkTokens: 512, MaxModelLen: 1 << 20,
			Timing: Timing{W: 0.001}, CacheBlocks: 1 << 24}
		e, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		var sum int64
		var at Time
		for i, r := range rows {
			p := &Prefix{Hashes: r.HashIDs, Tokens: workload.MooncakeHashTokens}
			res := runOne(t, e, Job{In: r.Input, Out: r.Output, Tag: i, Prefix: p}, at)
			sum += int64(res.Cached)
			at = res.Finished
		}
		st := e.Stats()
		if sum != hit || st.CachedTokens != hit || st.CacheEvictions != 0 {
			t.Errorf("%s: engine served %d tokens from the cache (stats %d, %d evictions), hash_ids give %d",
				tc.file, sum, st.CachedTokens, st.CacheEvictions, hit)
		}
		t.Logf("%s: hit_token_fraction %d / %d = %.5f (engine %d)", tc.file, hit, total, float64(hit)/float64(total), sum)
	}
}

// TestSyntheticPrefixHits: requests with a 1,024-token system prompt per
// category and multi-turn sessions (mean 3 turns), run one at a time on an
// instance whose cache never evicts, are served from the cache exactly the
// tokens of their longest prefix of whole blocks that an earlier request
// published (its prompt's whole blocks), at most (L_in−1)/16 blocks —
// computed here from the hashes with a rolling polynomial key, not the
// engine's.
func TestSyntheticPrefixHits(t *testing.T) {
	spec := workload.Spec{CDF: "azure", Rate: 10, Requests: 2000, SystemPromptTokens: 1024, SessionTurns: 3,
		Categories: map[string]float64{"prose": 0.5, "code": 0.5}}
	src, err := workload.NewSource(spec, 5)
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{MaxSeqs: 1, KVBlocks: 1 << 22, BlockTokens: 16, ChunkTokens: 512, MaxModelLen: 1 << 20,
		Timing: Timing{W: 0.001}, CacheBlocks: 1 << 22}
	e, _ := New(cfg)
	published := map[uint64]bool{}
	var want, got, total int64
	var at Time
	var r workload.Request
	for i := 0; src.Next(&r); i++ {
		h := r.Prefix.Hashes
		keys := make([]uint64, len(h))
		var k uint64
		for b, x := range h {
			k = k*1_000_003 + x + 1
			keys[b] = k
		}
		hit := 0
		for hit < (r.InputTokens-1)/16 && published[keys[hit]] {
			hit++
		}
		for b := 0; b < r.InputTokens/16; b++ {
			published[keys[b]] = true
		}
		want += int64(16 * hit)
		total += int64(r.InputTokens)
		res := runOne(t, e, Job{In: r.InputTokens, Out: r.OutputTokens, Tag: i, Prefix: (*Prefix)(r.Prefix)}, at)
		got += int64(res.Cached)
		at = res.Finished
	}
	if got != want {
		t.Errorf("engine served %d tokens from the cache, the hashes give %d", got, want)
	}
	t.Logf("hit token fraction %d / %d = %.4f", want, total, float64(want)/float64(total))
	if float64(want)/float64(total) < 0.3 {
		t.Errorf("hit fraction %v: sessions and system prompts should give more", float64(want)/float64(total))
	}
}
