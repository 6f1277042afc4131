package sim

import (
	"encoding/binary"
	"hash/fnv"

	"github.com/fleetsim/fleetsim/engine"
)

// Cache-aware routing inside a pool (issue 18, docs/prefix.md). A pool with
// a prefix cache and routing prefix-affinity or weighted dispatches to its
// instances' private queues (like jsq) and chooses the instance from a
// bounded candidate set, so that a request costs a few cache lookups
// whatever the pool's size:
//
//   - the prompt's homes: the Candidates instances that jump consistent
//     hashing maps the prompt's hash unit at homeTokens (2,048 tokens) to
//     (one per seed, in seed order), so that requests sharing their first
//     2,048 tokens (the turns of a conversation) meet on the same
//     instances;
//   - the least-loaded instance (fewest queued + running, lowest index).
//
// Each candidate is advanced to the arrival and asked engine.CachedPrefix:
// the exact tokens an admission now would skip.
//
// prefix-affinity (consistent hashing with bounded loads, plus the cache)
// picks, among the candidates holding fewer than LoadCap requests, the one
// with the longest cached prefix (ties: the lower load, then the lower
// index); when none holds any of the prompt, the first home under the cap;
// when every home is at the cap, the least-loaded instance.
// weighted picks the candidate with the highest
// w·cached/L_in − (1−w)·load/slots (ties: the lower index).
// A request without a prefix goes to the least-loaded instance.
type prefixRoute struct {
	policy  string
	loadCap int
	weight  float64
	cands   int
	seen    []int // scratch: candidates of one request

	// What the router saw: requests with a prefix it routed, those sent
	// to an instance holding part of their prompt, and the tokens it
	// expected from the cache there.
	routed, hits, expected int64
}

// newPrefixRoute returns the routing state of a pool with cache-aware
// routing, nil for least-loaded (or no prefix cache).
func newPrefixRoute(c *PrefixCacheConfig, slots int) *prefixRoute {
	if c.routing() == RouteLeastLoaded {
		return nil
	}
	r := &prefixRoute{policy: c.routing(), loadCap: c.LoadCap, weight: c.Weight, cands: c.Candidates}
	if r.loadCap == 0 {
		r.loadCap = slots
	}
	if r.weight == 0 {
		r.weight = DefaultRouteWeight
	}
	if r.cands == 0 {
		r.cands = DefaultRouteCandidates
	}
	return r
}

// jumpHash maps key to a bucket in [0, n): Lamping and Veach's jump
// consistent hash ("A Fast, Minimal Memory, Consistent Hash Algorithm",
// 2014), which moves only 1/n of the keys when a bucket is added.
func jumpHash(key uint64, n int) int {
	b, j := int64(-1), int64(0)
	for j < int64(n) {
		b = j
		key = key*2862933555777941757 + 1
		j = int64(float64(b+1) * (float64(int64(1)<<31) / float64((key>>33)+1)))
	}
	return int(b)
}

// homeTokens is the depth of the prompt that chooses its homes, tokens:
// the hash unit covering token homeTokens−1 (or the prompt's last unit) is
// the key, so that prompts sharing only a short common start (a system
// prompt shorter than this) spread over the pool while the turns of one
// conversation, which share it, meet on the same homes.
const homeTokens = 2048

// homeKey returns the consistent-hash key of a prefix: its hash unit at
// homeTokens, with its position.
func homeKey(p *engine.Prefix) uint64 {
	k := min(len(p.Hashes), (homeTokens+p.Tokens-1)/p.Tokens) - 1
	return p.Hashes[k] ^ mix64(uint64(k))
}

// routeSeed separates the consistent-hash seeds of the candidates.
const routeSeed = 0x9e3779b97f4a7c15

// routePrefix chooses the instance for j at time t (the pool advanced to
// t), advancing the candidates it looks at to t.
func (p *pool) routePrefix(j *engine.Job, t engine.Time, out []engine.Result) (int, []engine.Result) {
	r := p.pr
	if j.Prefix == nil || len(j.Prefix.Hashes) == 0 {
		i, _ := p.disp.top()
		return i, out
	}
	n := len(p.eng)
	r.seen = r.seen[:0]
	add := func(i int) {
		for _, k := range r.seen {
			if k == i {
				return
			}
		}
		r.seen = append(r.seen, i)
	}
	h := homeKey(j.Prefix)
	for s := range r.cands {
		add(jumpHash(mix64(h+uint64(s)*routeSeed), n))
	}
	homes := len(r.seen)
	ll, _ := p.disp.top()
	add(ll)
	best, bestCached, home := -1, 0, -1
	bestScore := 0.0
	for k, i := range r.seen {
		out = p.adv(i, t, out)
		p.refresh(i)
		cached := p.eng[i].CachedPrefix(j.Prefix, j.In)
		load := p.load(i)
		switch r.policy {
		case RoutePrefixAffinity:
			if load >= r.loadCap {
				continue
			}
			if home < 0 && k < homes {
				home = i
			}
			if cached == 0 {
				continue
			}
			if best < 0 || cached > bestCached || cached == bestCached && (load < p.load(best) || load == p.load(best) && i < best) {
				best, bestCached = i, cached
			}
		default: // weighted
			sc := r.weight*float64(cached)/float64(j.In) - (1-r.weight)*float64(load)/float64(p.ecfg.MaxSeqs)
			if best < 0 || sc > bestScore || sc == bestScore && i < best {
				best, bestCached, bestScore = i, cached, sc
			}
		}
	}
	if best < 0 {
		best = home
	}
	if best < 0 {
		best, _ = p.disp.top()
	}
	r.routed++
	if bestCached > 0 {
		r.hits++
		r.expected += int64(bestCached)
	}
	return best, out
}

// load is instance i's queued + running requests (cached counts).
func (p *pool) load(i int) int { return int(p.eRun[i]) + int(p.eQueued[i]) }

// mix64 spreads a hash's bits before the consistent hash uses them
// (64-bit FNV-1a of its bytes, little-endian).
func mix64(x uint64) uint64 {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], x)
	h := fnv.New64a()
	h.Write(b[:])
	return h.Sum64()
}
