package engine

// This file holds how the engine uses its prefix cache (cache.go): lookups
// at admission, publishing a prompt's blocks, releasing a sequence's blocks
// and evicting when blocks are taken. docs/model.md, "Prefix cache", states
// the rules.

// usesCache reports whether j's prefix takes part in caching here.
func (e *Engine) usesCache(j *Job) bool { return e.cache != nil && j.Prefix != nil }

// hitLimit returns how many leading blocks of a prompt of p tokens (job j)
// a lookup may match: whole blocks inside the hashes and the original
// prompt, leaving at least the prompt's last token to compute.
func (e *Engine) hitLimit(j *Job, p int) int {
	return min(hashableBlocks(j.Prefix, j.In, e.bt), (p-1)/e.bt)
}

// match returns the number of leading blocks of j's prompt (p tokens) held
// in the cache and, of those, how many are unreferenced (free blocks).
// The entries found are kept in e.found for admitCached, which follows an
// admission check with the cache unchanged.
func (e *Engine) match(j *Job, p int) (hit, unref int) {
	n := e.hitLimit(j, p)
	it := newBlockKeys(j.Prefix, e.bt)
	c := e.cache
	f := &e.found
	f.ents, f.doomed = f.ents[:0], false
	for hit < n {
		i := c.lookup(it.next())
		if i < 0 {
			break
		}
		if c.ents[i].doomed {
			f.doomed = true
			break
		}
		if c.ents[i].ref == 0 {
			unref++
		}
		f.ents = append(f.ents, i)
		hit++
	}
	f.prefix, f.in, f.p, f.version = j.Prefix, j.In, p, c.version
	return hit, unref
}

// found is the last lookup's result: the entries of the longest cached
// prefix of (prefix, in, p) at cache version version (doomed: cut short by
// a lookahead's marks, not to be reused).
type found struct {
	prefix  *Prefix
	in, p   int
	version uint64
	doomed  bool
	ents    []int32
}

// admitNeed returns the free blocks the admission of j with a prompt of p
// tokens takes: ceil(p/b) without the cache; with it, the blocks not found
// in the cache plus the cached ones that are unreferenced (they stop being
// free when touched).
func (e *Engine) admitNeed(j *Job, p int) int {
	if e.cache == nil || j.Prefix == nil {
		return e.blocksFor(p)
	}
	return e.admitNeedCached(j, p)
}

func (e *Engine) admitNeedCached(j *Job, p int) int {
	hit, unref := e.match(j, p)
	return e.blocksFor(p) - hit + unref
}

// admitNeedAfter is admitNeed as it will be once n more blocks have been
// taken (and the cached blocks that take evicts are gone), without changing
// anything.
func (e *Engine) admitNeedAfter(j *Job, p, n int) int {
	if e.cache == nil || j.Prefix == nil {
		return e.blocksFor(p)
	}
	return e.admitNeedAfterCached(j, p, n)
}

func (e *Engine) admitNeedAfterCached(j *Job, p, n int) int {
	// The answer is asked again at every NextEvent while the head waits:
	// remember it until the cache, the free blocks or the question change.
	m := &e.memo
	c := e.cache
	if m.prefix == j.Prefix && m.in == j.In && m.p == p && m.n == n && m.free == e.free && m.version == c.version {
		return m.need
	}
	need := 0
	if ev := c.nLRU - (e.free - n); ev <= 0 {
		need = e.admitNeedCached(j, p)
	} else {
		c.mark(ev, true)
		need = e.admitNeedCached(j, p)
		c.mark(ev, false)
	}
	*m = needMemo{prefix: j.Prefix, in: j.In, p: p, n: n, free: e.free, version: c.version, need: need}
	return need
}

// needMemo is the last answer of admitNeedAfterCached and what it depends
// on (a Prefix is never changed, so its pointer stands for its content).
type needMemo struct {
	prefix         *Prefix
	in, p, n, free int
	version        uint64
	need           int
}

// take removes n blocks from the free ones, evicting the least recently
// released cached blocks when the blocks holding no cached content run out.
func (e *Engine) take(n int) {
	e.free -= n
	if e.cache != nil {
		e.spill()
	}
}

// spill evicts cached blocks until they fit in the free blocks.
//
//go:noinline
func (e *Engine) spill() {
	if c := e.cache; c.nLRU > e.free {
		c.evict(c.nLRU - e.free)
	}
}

// admitBlocks gives the admitted sequence s (prompt s.p tokens) its blocks:
// it references the cached blocks of its longest cached prefix, whose tokens
// it does not prefill, and takes the others from the free blocks.
func (e *Engine) admitBlocks(s *seq) {
	if !e.usesCache(&s.res.Job) {
		e.take(e.blocksFor(s.p))
		s.ctx = 0
		return
	}
	e.admitCached(s)
}

func (e *Engine) admitCached(s *seq) {
	j := &s.res.Job
	c := e.cache
	n := e.hitLimit(j, s.p)
	it := newBlockKeys(j.Prefix, e.bt)
	if s.pc == nil {
		s.pc = new(seqCache)
	}
	pc := s.pc
	pc.ents = pc.ents[:0]
	if f := &e.found; !f.doomed && f.prefix == j.Prefix && f.in == j.In && f.p == s.p && f.version == c.version {
		// The admission check just looked these up.
		pc.ents = append(pc.ents, f.ents...)
		for _, i := range pc.ents {
			if c.touch(i) {
				e.free--
			}
		}
	} else {
		for len(pc.ents) < n {
			i := c.lookup(it.next())
			if i < 0 {
				break
			}
			if c.touch(i) {
				e.free--
			}
			pc.ents = append(pc.ents, i)
		}
	}
	pc.hit = len(pc.ents)
	e.take(e.blocksFor(s.p) - pc.hit)
	s.ctx = pc.hit * e.bt
	if !s.admitt {
		s.res.Cached = s.ctx
		e.cachedTokens += int64(s.ctx)
	}
}

// publish enters the blocks of s's prompt that it computed itself — whole
// blocks inside its hashes, up to ctx tokens — into the cache, unless a block
// with the same key is already there (s's copy then stays its own).
func (e *Engine) publish(s *seq, ctx int) {
	if e.usesCache(&s.res.Job) {
		e.publishCached(s, ctx)
	}
}

func (e *Engine) publishCached(s *seq, ctx int) {
	j := &s.res.Job
	bt := e.bt
	n := min(hashableBlocks(j.Prefix, j.In, bt), ctx/bt)
	pc := s.pc
	if n <= pc.hit {
		return
	}
	c := e.cache
	it := newBlockKeys(j.Prefix, bt)
	for b := 0; b < n; b++ {
		key := it.next()
		if b < pc.hit {
			continue
		}
		if c.lookup(key) < 0 {
			pc.ents = append(pc.ents, c.add(key))
		}
	}
}

// release frees the blocks s holds: its own ones at once, its cached ones
// by dropping a reference, last block first (vLLM frees a request's blocks
// in reverse order, so that a prefix's tail is evicted before its head).
func (e *Engine) release(s *seq, blocks int) {
	if s.pc == nil || len(s.pc.ents) == 0 {
		e.free += blocks
		return
	}
	e.releaseCached(s, blocks)
}

func (e *Engine) releaseCached(s *seq, blocks int) {
	c := e.cache
	pc := s.pc
	e.free += blocks - len(pc.ents)
	for k := len(pc.ents) - 1; k >= 0; k-- {
		if c.release(pc.ents[k]) {
			e.free++
		}
	}
	pc.ents = pc.ents[:0]
	pc.hit = 0
	if c.nLRU > c.limit {
		c.evict(c.nLRU - c.limit)
	}
}

// CachedPrefix returns how many leading tokens of a prompt of in tokens with
// prefix p this instance holds in its prefix cache now (referenced or not):
// a multiple of BlockTokens, at most in-1 (the last token is always
// computed), 0 when caching is off or p is nil or unusable here. An
// admission at this moment would skip exactly these tokens. It costs one
// map lookup per matched block; it does not change the cache.
func (e *Engine) CachedPrefix(p *Prefix, in int) int {
	if e.cache == nil || p == nil || in < 1 || prefixReason(p, e.bt) != "" {
		return 0
	}
	j := Job{In: in, Prefix: p}
	hit, _ := e.match(&j, in)
	return hit * e.bt
}
