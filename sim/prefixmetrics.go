package sim

// PrefixCacheMetrics are a pool's (or the fleet's) prefix-cache figures in
// summary.json (docs/prefix.md). Token counts are over the completed
// post-warm-up requests; evictions over the whole run.
type PrefixCacheMetrics struct {
	// HitTokenFraction is CachedTokens / PromptTokens: the share of the
	// prompt tokens served from the cache instead of prefilled (0 when no
	// request completed).
	HitTokenFraction float64 `json:"hit_token_fraction"`
	CachedTokens     int64   `json:"cached_tokens"` // Σ engine.Result.Cached, tokens
	PromptTokens     int64   `json:"prompt_tokens"` // Σ L_in as served, tokens
	Evictions        int64   `json:"evictions"`     // cached blocks evicted by the instances
	// Routing is the pool's instance choice (prefixconfig.go); the fleet
	// leaves it out.
	Routing *PrefixRouting `json:"routing,omitempty"`
}

// PrefixRouting is what a pool's cache-aware router saw.
type PrefixRouting struct {
	Policy string `json:"policy"` // least-loaded, prefix-affinity or weighted
	// Routed is the requests with a prefix the router chose an instance
	// for by looking up the candidates (0 for least-loaded, which looks
	// nothing up).
	Routed int64 `json:"routed"`
	// HitRate is the share of Routed sent to an instance that held part of
	// the prompt at that moment; ExpectedTokens the tokens those instances
	// held (an admission may find fewer: evictions before it).
	HitRate        float64 `json:"hit_rate"`
	ExpectedTokens int64   `json:"expected_tokens"`
}

func hitFraction(cached, prompt int64) float64 {
	if prompt == 0 {
		return 0
	}
	return float64(cached) / float64(prompt)
}

// prefixSummary adds the prefix-cache metrics of the pools that have one,
// and the fleet's when any has.
func (f *fleet) prefixSummary(s *Summary) {
	var ev int64
	any := false
	for k, p := range f.pools {
		if !p.cache {
			continue
		}
		any = true
		var pev int64
		for _, e := range p.eng {
			pev += e.Stats().CacheEvictions
		}
		ev += pev
		m := &PrefixCacheMetrics{HitTokenFraction: hitFraction(p.m.cached, p.m.prompt),
			CachedTokens: p.m.cached, PromptTokens: p.m.prompt, Evictions: pev,
			Routing: &PrefixRouting{Policy: p.cfg.PrefixCache.routing()}}
		if r := p.pr; r != nil {
			m.Routing.Routed, m.Routing.ExpectedTokens = r.routed, r.expected
			if r.routed > 0 {
				m.Routing.HitRate = float64(r.hits) / float64(r.routed)
			}
		}
		s.Pools[k].PrefixCache = m
	}
	if any {
		s.Fleet.PrefixCache = &PrefixCacheMetrics{HitTokenFraction: hitFraction(f.fm.cached, f.fm.prompt),
			CachedTokens: f.fm.cached, PromptTokens: f.fm.prompt, Evictions: ev}
	}
}
