// Package router decides which pool serves each request: the length
// threshold router, the token-budget router with per-category bytes-per-token
// calibration, load-aware spillover and compress-and-route.
package router

import "github.com/fleetsim/fleetsim/workload"

// Pool is what a router knows of a pool before the run starts.
type Pool struct {
	Name       string // pool name
	MaxContext int    // longest L_in + L_out the pool accepts, tokens
	GPUs       int    // instances in the pool
	Slots      int    // concurrent sequences per instance
}

// Load is a pool's state at the moment of a routing decision.
type Load struct {
	Queued      int     // requests waiting in the pool (central and private queues)
	Running     int     // sequences in the pool's batches
	KVOccupancy float64 // used KV blocks / total KV blocks, in [0, 1]
}

// Decision is a router's answer for one request.
type Decision struct {
	Pool            int     // index into the router's pools
	EstimatedTokens int     // the router's estimate of L_total, tokens
	Compressed      bool    // the prompt was compressed (C&R)
	InputTokens     int     // prompt tokens after compression (== the request's when not compressed)
	DelayS          float64 // added latency before the request reaches the pool (compression), s
	Spilled         bool    // load-aware spillover moved it off its target pool
}

// Router routes requests to pools. Pools are fixed at construction, sorted
// by MaxContext ascending.
//
// Route is called in arrival order with the pools' current loads; it must
// not modify r. Observe is called once per served request, in simulated
// completion order, with the request as it arrived and promptTokens, the
// true token count of the prompt r.Bytes measures: what the serving side
// reports (usage.prompt_tokens) for a prompt sent as is, and for a prompt
// compress-and-route shortened, the count the compressor measured on the
// original before shortening it (not the shorter count served). Routers
// that learn bytes per token use it; it is the only place the true count
// reaches them.
type Router interface {
	Route(r *workload.Request, loads []Load) Decision
	Observe(r *workload.Request, promptTokens int)
}

// Length routes each request to the smallest pool whose max context holds
// L_in + MaxOutputTokens (it reads the true prompt length: an oracle router,
// the baseline of the papers' analysis). Requests longer than every pool go
// to the largest pool, which rejects them.
type Length struct {
	pools []Pool
}

// NewLength returns a length-threshold router over pools sorted by
// MaxContext ascending.
func NewLength(pools []Pool) *Length { return &Length{pools: pools} }

// Route implements Router.
func (l *Length) Route(r *workload.Request, _ []Load) Decision {
	need := r.InputTokens + r.MaxOutputTokens
	d := Decision{Pool: len(l.pools) - 1, EstimatedTokens: need, InputTokens: r.InputTokens}
	for i, p := range l.pools {
		if need <= p.MaxContext {
			d.Pool = i
			break
		}
	}
	return d
}

// Observe implements Router; the length router does not learn.
func (*Length) Observe(*workload.Request, int) {}
