package sim

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
)

// PrefixCacheConfig turns on a pool's prefix cache (engine.Config.CacheBlocks,
// docs/model.md "Prefix cache") and chooses how the pool routes requests to
// its instances with it (docs/prefix.md). In a scenario file it is the
// pool's prefix_cache: mapping.
type PrefixCacheConfig struct {
	// Blocks bounds the unreferenced cached blocks each instance keeps,
	// 16-token blocks, in [1, the instance's KV blocks]; "all" (CacheAll) is
	// the whole KV budget (every free block may keep its content).
	Blocks CacheSize `json:"blocks" yaml:"blocks"`
	// Routing is the pool's choice of instance: RouteLeastLoaded (the
	// default: the pool's dispatch, unchanged), RoutePrefixAffinity or
	// RouteWeighted (both dispatch to the instances' private queues).
	Routing string `json:"routing,omitempty" yaml:"routing,omitempty"`
	// LoadCap (prefix-affinity) is the most requests (queued + running) an
	// instance may hold to be chosen for its cached prefix; 0 = the
	// instance's slots (max_seqs). Above it the least-loaded instance is
	// chosen.
	LoadCap int `json:"load_cap,omitempty" yaml:"load_cap,omitempty"`
	// Weight (weighted) is the weight of the cached fraction of the prompt
	// against the load in the score w·cached/L_in − (1−w)·load/slots, in
	// [0, 1]; default 0.5.
	Weight float64 `json:"weight,omitempty" yaml:"weight,omitempty"`
	// Candidates (prefix-affinity, weighted) is the instances chosen by
	// consistent hashing of the prompt's first hash that are looked up,
	// besides the least-loaded one, in [1, 64]; default 2.
	Candidates int `json:"candidates,omitempty" yaml:"candidates,omitempty"`
}

// Routing policies of a pool with a prefix cache.
const (
	RouteLeastLoaded    = "least-loaded"
	RoutePrefixAffinity = "prefix-affinity"
	RouteWeighted       = "weighted"
)

var routeNames = []string{RouteLeastLoaded, RoutePrefixAffinity, RouteWeighted}

// Defaults of PrefixCacheConfig.
const (
	DefaultRouteWeight     = 0.5
	DefaultRouteCandidates = 2
	maxRouteCandidates     = 64
)

// CacheSize is a prefix cache's size in blocks; CacheAll (written "all")
// is the instance's whole KV budget.
type CacheSize int

// CacheAll is the CacheSize "all".
const CacheAll CacheSize = -1

// UnmarshalJSON reads a number of blocks or "all".
func (c *CacheSize) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		if s == "all" {
			*c = CacheAll
			return nil
		}
		return fmt.Errorf("prefix_cache.blocks = %q: want a number of 16-token blocks or \"all\"", s)
	}
	n, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil || n < 1 || n > 1<<40 {
		return fmt.Errorf("prefix_cache.blocks = %s: want a number of 16-token blocks >= 1 or \"all\"", b)
	}
	*c = CacheSize(n)
	return nil
}

// MarshalJSON writes "all" or the number.
func (c CacheSize) MarshalJSON() ([]byte, error) {
	if c == CacheAll {
		return []byte(`"all"`), nil
	}
	return strconv.AppendInt(nil, int64(c), 10), nil
}

// cacheBlocks returns the engine's CacheBlocks for an instance of kvBlocks
// blocks (0 when the pool has no prefix cache).
func (p PoolConfig) cacheBlocks(kvBlocks int) int {
	switch {
	case p.PrefixCache == nil:
		return 0
	case p.PrefixCache.Blocks == CacheAll:
		return kvBlocks
	}
	return int(p.PrefixCache.Blocks)
}

// routing returns the pool's routing policy name (least-loaded when unset).
func (c *PrefixCacheConfig) routing() string {
	if c == nil || c.Routing == "" {
		return RouteLeastLoaded
	}
	return c.Routing
}

// validate checks the prefix cache of pool f (field path) whose instances
// hold kvBlocks KV blocks.
func (c *PrefixCacheConfig) validate(f string, p PoolConfig, kvBlocks int) error {
	if c == nil {
		return nil
	}
	f += ".prefix_cache"
	if c.Blocks != CacheAll && (c.Blocks < 1 || int(c.Blocks) > kvBlocks) {
		return bad(f+".blocks", int(c.Blocks), "must be in [1, %d] (the instance's KV blocks; the cache lives in them) or \"all\"", kvBlocks)
	}
	r := c.routing()
	if !slices.Contains(routeNames, r) {
		return bad(f+".routing", c.Routing, "allowed: least-loaded, prefix-affinity, weighted")
	}
	if r != RouteLeastLoaded && p.Dispatch != "" && p.Dispatch != DispatchJSQ {
		return bad(f+".routing", c.Routing, "routes to the instances' private queues: needs dispatch jsq or none (pool dispatch %q)", p.Dispatch)
	}
	if c.LoadCap < 0 || c.LoadCap > 1<<20 {
		return bad(f+".load_cap", c.LoadCap, "must be in [0, %d] requests (0 = the instance's slots)", 1<<20)
	}
	if !(c.Weight >= 0 && c.Weight <= 1) {
		return bad(f+".weight", c.Weight, "must be in [0, 1] (0 = the default %g)", DefaultRouteWeight)
	}
	if c.Candidates < 0 || c.Candidates > maxRouteCandidates {
		return bad(f+".candidates", c.Candidates, "must be in [1, %d] (0 = the default %d)", maxRouteCandidates, DefaultRouteCandidates)
	}
	return nil
}
