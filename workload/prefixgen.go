package workload

import (
	"math"
	"math/rand/v2"
)

// Defaults and bounds of the shared-prefix keys of a Spec.
const (
	DefaultSessionMaxTokens = 8192 // session_max_tokens default, tokens
	DefaultSessionsActive   = 16   // sessions_active default
	MaxSessionsActive       = 1 << 20
	MaxSessionTurns         = 1e6
	// PrefixBlockTokens is the tokens each hash of a synthetic prefix
	// covers: one hash per 16-token KV block.
	PrefixBlockTokens = 16
)

// StreamSessions draws session choices (continue an open session or start
// one, which one). It is consumed only when Spec.SessionTurns >= 1.
const StreamSessions Stream = 100

// Hash spaces of synthetic prefixes: a category's system-prompt block b is
// sysHashBase·(category+1) + b; every other block gets the next value of a
// counter from freshHashBase, so it is shared with nobody.
const (
	sysHashBase   uint64 = 1 << 48
	freshHashBase uint64 = 1 << 62
)

// prefixGen gives the requests of a CDF source their shared prefixes
// (Spec.SystemPromptTokens, Spec.SessionTurns); see docs/model.md,
// "Requests with prefixes".
type prefixGen struct {
	sys    int     // system prompt tokens
	turns  float64 // mean turns per session (< 1: no sessions)
	maxTok int     // longest L_in + L_out of a continued turn
	active int     // open sessions kept
	r      *rand.Rand
	open   []session
	oldest int    // next slot to replace once open is full
	fresh  uint64 // last fresh hash
}

// session is an open multi-turn conversation: its last turn.
type session struct {
	cat    Category
	prompt int      // last turn's L_in
	out    int      // last turn's L_out
	hashes []uint64 // last turn's block hashes
}

// newPrefixGen returns the generator of a validated spec with defaults
// applied, or nil when it asks for no prefixes.
func newPrefixGen(s Spec, seed uint64) *prefixGen {
	if s.SystemPromptTokens == 0 && s.SessionTurns < 1 {
		return nil
	}
	g := &prefixGen{sys: s.SystemPromptTokens, turns: s.SessionTurns, maxTok: s.SessionMaxTokens,
		active: s.SessionsActive, fresh: freshHashBase}
	if g.turns >= 1 {
		g.r = NewRand(seed, StreamSessions)
	}
	return g
}

// apply turns r, drawn with L_in = the new user tokens, into a session's
// next turn or a new session's first turn, setting its L_in, category,
// bytes and Prefix.
func (g *prefixGen) apply(r *Request) {
	user := r.InputTokens
	if g.turns >= 1 && len(g.open) > 0 && g.r.Float64() >= 1/g.turns {
		k := g.r.IntN(len(g.open))
		s := &g.open[k]
		if prompt := s.prompt + s.out + user; prompt+r.OutputTokens <= g.maxTok {
			// Turn k extends turn k-1: the whole blocks of the previous
			// prompt keep their hashes; the previous answer and the new
			// user text get new ones.
			h := g.hashes(prompt, s.hashes[:s.prompt/PrefixBlockTokens])
			r.Bytes = scaleBytes(r.Bytes, r.Category, user, s.cat, prompt)
			r.InputTokens, r.Category = prompt, s.cat
			*s = session{cat: s.cat, prompt: prompt, out: r.OutputTokens, hashes: h}
			r.Prefix = &Prefix{Hashes: h, Tokens: PrefixBlockTokens}
			return
		}
		// Too long: that session ends and this request starts a new one
		// in its place.
		g.start(r, user, k)
		return
	}
	slot := -1
	if g.turns >= 1 {
		if len(g.open) < g.active {
			g.open = append(g.open, session{})
			slot = len(g.open) - 1
		} else {
			slot = g.oldest
			g.oldest = (g.oldest + 1) % g.active
		}
	}
	g.start(r, user, slot)
}

// start makes r a session's first turn (kept in open[slot] unless slot < 0):
// the category's system prompt followed by the user tokens.
func (g *prefixGen) start(r *Request, user, slot int) {
	prompt := g.sys + user
	n := g.sys / PrefixBlockTokens
	sys := make([]uint64, n)
	for b := range sys {
		sys[b] = sysHashBase*uint64(r.Category+1) + uint64(b)
	}
	h := g.hashes(prompt, sys)
	if g.sys > 0 {
		r.Bytes = scaleBytes(r.Bytes, r.Category, user, r.Category, prompt)
		r.InputTokens = prompt
	}
	r.Prefix = &Prefix{Hashes: h, Tokens: PrefixBlockTokens}
	if slot >= 0 {
		g.open[slot] = session{cat: r.Category, prompt: prompt, out: r.OutputTokens, hashes: h}
	}
}

// scaleBytes returns the byte length of a prompt of tokens tokens in
// category to, from the length b drawn for from tokens of category from:
// the same jitter, scaled by the tokens and the categories' bytes per token
// (no random draw, so the category stream is the one without prefixes).
func scaleBytes(b int, from Category, fromTokens int, to Category, tokens int) int {
	x := float64(b) * float64(tokens) / float64(fromTokens) * to.BytesPerToken() / from.BytesPerToken()
	return max(1, int(math.Round(x)))
}

// hashes returns the block hashes of a prompt of tokens tokens that starts
// with the blocks named by shared: those, then fresh ones (one per block,
// the last partial block included).
func (g *prefixGen) hashes(tokens int, shared []uint64) []uint64 {
	n := (tokens + PrefixBlockTokens - 1) / PrefixBlockTokens
	h := make([]uint64, n)
	copy(h, shared)
	for b := len(shared); b < n; b++ {
		g.fresh++
		h[b] = g.fresh
	}
	return h
}
