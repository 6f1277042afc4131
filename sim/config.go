// Package sim runs a fleet: arrivals on the simgo calendar, the router, the
// pools and their engines (advanced lazily), warm-up discard, metrics and the
// streaming of per-request records to a Sink.
package sim

import "github.com/fleetsim/fleetsim/workload"

// PoolConfig is one pool of identical instances.
type PoolConfig struct {
	Name       string `json:"name" yaml:"name"`
	GPU        string `json:"gpu" yaml:"gpu"`                               // catalog name (pools.LookupGPU)
	Count      int    `json:"count" yaml:"count"`                           // instances
	MaxContext int    `json:"max_ctx" yaml:"max_ctx"`                       // tokens
	Dispatch   string `json:"dispatch,omitempty" yaml:"dispatch,omitempty"` // "central" (default), "jsq", "rr"
	// QueueLimit caps the requests waiting in the pool; arrivals beyond it
	// are rejected and counted. 0 means no limit.
	QueueLimit int `json:"queue_limit,omitempty" yaml:"queue_limit,omitempty"`
}

// RouterConfig selects and tunes the router.
type RouterConfig struct {
	// Kind is "length" (default), "token-budget", "spillover" or "cr".
	Kind string `json:"kind,omitempty" yaml:"kind,omitempty"`
	// Remaining fields belong to the token-budget router (package router).
	BShort           int     `json:"b_short,omitempty" yaml:"b_short,omitempty"`
	Gamma            float64 `json:"gamma,omitempty" yaml:"gamma,omitempty"`
	PC               float64 `json:"p_c,omitempty" yaml:"p_c,omitempty"`
	SpillQueuePerGPU float64 `json:"spill_queue_per_gpu,omitempty" yaml:"spill_queue_per_gpu,omitempty"`
	EMADecay         float64 `json:"ema_decay,omitempty" yaml:"ema_decay,omitempty"`
	// RetryDelayS, when > 0, retries a request rejected by a pool that is too
	// small at the next larger pool after this delay, s.
	RetryDelayS float64 `json:"retry_delay_s,omitempty" yaml:"retry_delay_s,omitempty"`
}

// SLO is the latency target used for SLO attainment.
type SLO struct {
	TTFTS float64 `json:"ttft_s" yaml:"ttft_s"` // P99 TTFT target, s
	TPOTS float64 `json:"tpot_s" yaml:"tpot_s"` // P99 TPOT target, s
}

// Config is a whole run. Defaults are filled by Defaults(); Validate checks it.
type Config struct {
	Seed     uint64        `json:"seed" yaml:"seed"`
	Workload workload.Spec `json:"workload" yaml:"workload"`
	Pools    []PoolConfig  `json:"pools" yaml:"pools"`
	Timing   string        `json:"timing" yaml:"timing"` // "kv" (default) or "paper"
	Router   RouterConfig  `json:"router" yaml:"router"`
	// WarmupFraction of the arrivals (the first ones) is kept in the output
	// with warmup=true and excluded from metrics. Default 0.2.
	WarmupFraction float64 `json:"warmup_fraction" yaml:"warmup_fraction"`
	SLO            SLO     `json:"slo" yaml:"slo"`
}
