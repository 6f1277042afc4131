package workload

import (
	"math"
	"slices"
	"testing"
)

func drawAll(t *testing.T, spec Spec, seed uint64) []Request {
	t.Helper()
	src, err := NewSource(spec, seed)
	if err != nil {
		t.Fatal(err)
	}
	var out []Request
	var r Request
	for src.Next(&r) {
		out = append(out, r)
	}
	return out
}

// TestSystemPrompt: every request starts with its category's system prompt
// (1,000 tokens: 62 whole blocks, hashed per category) followed by the
// drawn prompt, which is what the same spec without prefixes draws.
func TestSystemPrompt(t *testing.T) {
	base := Spec{CDF: "azure", Rate: 10, Requests: 2000, Categories: map[string]float64{"prose": 0.5, "code": 0.5}}
	with := base
	with.SystemPromptTokens = 1000
	plain, got := drawAll(t, base, 3), drawAll(t, with, 3)
	sys := map[Category][]uint64{}
	for i, r := range got {
		p := plain[i]
		if r.InputTokens != p.InputTokens+1000 || r.OutputTokens != p.OutputTokens || r.Category != p.Category || r.Arrival != p.Arrival ||
			r.Bytes != max(1, int(math.Round(float64(p.Bytes)*float64(r.InputTokens)/float64(p.InputTokens)))) {
			t.Fatalf("request %d: %+v, without prefix %+v", i, r, p)
		}
		if r.Prefix == nil || r.Prefix.Tokens != 16 || len(r.Prefix.Hashes) != (r.InputTokens+15)/16 {
			t.Fatalf("request %d: prefix %+v for %d tokens", i, r.Prefix, r.InputTokens)
		}
		head := r.Prefix.Hashes[:62]
		if s, ok := sys[r.Category]; ok && !slices.Equal(s, head) {
			t.Fatalf("request %d: system prompt hashes differ within %s", i, r.Category)
		}
		sys[r.Category] = head
		if p.Prefix != nil {
			t.Fatalf("request %d without prefix keys has a prefix", i)
		}
	}
	if len(sys) != 2 || slices.Equal(sys[Prose], sys[Code]) {
		t.Errorf("want two distinct system prompts, got %d", len(sys))
	}
}

// TestSessions: turn k's prompt is turn k-1's prompt, its output and new
// user tokens; the whole blocks of turn k-1's prompt keep their hashes;
// turns stay within session_max_tokens; the same seed gives the same
// requests.
func TestSessions(t *testing.T) {
	spec := Spec{CDF: "lmsys", Rate: 10, Requests: 5000, SystemPromptTokens: 256, SessionTurns: 4, SessionsActive: 8, SessionMaxTokens: 6000}
	reqs := drawAll(t, spec, 11)
	again := drawAll(t, spec, 11)
	for i := range reqs {
		if reqs[i].InputTokens != again[i].InputTokens || !slices.Equal(reqs[i].Prefix.Hashes, again[i].Prefix.Hashes) {
			t.Fatalf("request %d differs between two draws with seed 11", i)
		}
	}
	// A session is named by its first turn's first block after the system
	// prompt (256 tokens = 16 blocks).
	last := map[uint64]Request{}
	turns := map[uint64]int{}
	for i, r := range reqs {
		h := r.Prefix.Hashes
		key := h[16]
		prev, cont := last[key]
		if cont {
			n := prev.InputTokens / 16
			if !slices.Equal(h[:n], prev.Prefix.Hashes[:n]) || r.InputTokens <= prev.InputTokens+prev.OutputTokens ||
				r.InputTokens+r.OutputTokens > 6000 || r.Category != prev.Category {
				t.Fatalf("request %d (%d+%d tokens) does not extend its session's previous turn (%d+%d)", i,
					r.InputTokens, r.OutputTokens, prev.InputTokens, prev.OutputTokens)
			}
			if slices.Contains(prev.Prefix.Hashes[n:], h[n]) {
				t.Fatalf("request %d: block %d reuses a hash of the previous turn's partial block", i, n)
			}
		}
		last[key] = r
		turns[key]++
	}
	// About one request in four starts a session (mean 4 turns), a few more
	// because sessions reaching 6,000 tokens end early.
	long := 0
	for _, n := range turns {
		if n >= 4 {
			long++
		}
	}
	t.Logf("%d requests, %d sessions, %d with 4 turns or more", len(reqs), len(turns), long)
	if len(turns) < 5000/5 || len(turns) > 5000/2 || long < 100 {
		t.Errorf("%d sessions (%d with >= 4 turns) for 5,000 requests with session_turns 4", len(turns), long)
	}
}

func TestPrefixKeysValidate(t *testing.T) {
	cdf := Spec{CDF: "azure", Rate: 1, Requests: 1}
	tr := Spec{Trace: "x.jsonl", Requests: 1}
	for _, tc := range []struct {
		spec Spec
		want string
	}{
		{func() Spec { s := cdf; s.SystemPromptTokens = -1; return s }(), "system_prompt_tokens = -1: must be in [0, 1073741824] tokens (0 = no system prompt)"},
		{func() Spec { s := cdf; s.SessionTurns = 0.5; return s }(), "session_turns = 0.5: must be 0 (no sessions) or in [1, 1e+06] (mean turns per session)"},
		{func() Spec { s := cdf; s.SessionMaxTokens = 100; return s }(), "session_max_tokens = 100: applies only with session_turns >= 1"},
		{func() Spec { s := cdf; s.SessionTurns = 2; s.SessionsActive = -3; return s }(), "sessions_active = -3: must be in [1, 1048576] (0 = default 16)"},
		{func() Spec { s := tr; s.SystemPromptTokens = 10; return s }(), "system_prompt_tokens = 10: applies only to a CDF workload (a Mooncake trace carries its own hash_ids)"},
	} {
		if err := tc.spec.Validate(); err == nil || err.Error() != tc.want {
			t.Errorf("got %v, want %s", err, tc.want)
		}
	}
}
