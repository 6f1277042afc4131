package router

import (
	"fmt"
	"strings"

	"github.com/fleetsim/fleetsim/workload"
)

// The router kinds accepted by Config.Kind.
const (
	KindLength      = "length"       // oracle length threshold (Length)
	KindTokenBudget = "token-budget" // byte-length estimate, calibrated per category, thresholds
	KindSpillover   = "spillover"    // token-budget plus load-aware spillover
	KindCR          = "cr"           // token-budget plus compress-and-route (plus spillover if SpillQueuePerGPU > 0)
)

// Defaults of Config. The compression latency default is the distribution
// measured for router/compress on this project's machine (2-CPU AMD EPYC;
// see docs/router.md): p50 and p99 of BenchmarkCompressBand, the Azure band
// (4K–6K-token prompts compressed to 4096 − L_out), rounded.
const (
	DefaultEMADecay         = 0.95   // β, token-budget paper §2.1
	DefaultSigmaWeight      = 1.0    // γ of Eq. 5, token-budget paper §2.1
	DefaultColdStart        = 4.0    // c0, bytes/token, token-budget paper §2.1
	DefaultMinObservations  = 10     // observations before a category's learned ratio is used
	DefaultGamma            = 1.5    // C&R bandwidth, FleetOpt Table 2
	DefaultPC               = 1.0    // C&R success probability, FleetOpt Appendix C (prose/RAG)
	DefaultSpillQueuePerGPU = 4.0    // queued requests per GPU above which a pool is overloaded
	DefaultCompressP50S     = 0.0005 // s, BenchmarkCompressBand p50 on a quiet machine (0.43–0.47 ms)
	DefaultCompressP99S     = 0.0008 // s, BenchmarkCompressBand p99 on a quiet machine (0.77–0.81 ms)
)

// Upper bounds of the tuning fields (docs/cli.md, "Numeric ranges"); they
// keep every product finite (γ·b_short fits an int) and catch unit slips.
const (
	MaxGamma            = 16   // C&R bandwidth γ
	MaxSpillQueuePerGPU = 1e6  // queued requests per GPU
	MaxSigmaWeight      = 100  // |sigma_weight|
	MaxColdStart        = 100  // bytes/token
	MaxCompressLatencyS = 3600 // compress_p50_s, compress_p99_s, s
)

// Config selects and tunes a router. It is the one router configuration of
// the project: sim.RouterConfig embeds it and scenario files set it (the
// keys are the json/yaml tags). Zero values of the tuning fields mean "use
// the default" (see each field), except PC, which is taken as given like
// every p_c of the project (0: compress nothing). Validate is the one check.
type Config struct {
	// Kind is "length", "token-budget", "spillover" or "cr"; "" means
	// "length".
	Kind string `json:"kind,omitempty" yaml:"kind,omitempty"`
	// BShort is the short-pool threshold B_short on the estimated
	// L_total, tokens. 0 means the smallest pool's MaxContext. It must not
	// exceed the smallest pool's MaxContext. With more than two pools the
	// thresholds of the other pools are their max contexts.
	BShort int `json:"b_short,omitempty" yaml:"b_short,omitempty"`
	// Gamma is the C&R bandwidth γ: requests whose estimate lies in
	// (BShort, Gamma·BShort] are compression candidates. ≥ 1; 0 means 1.5.
	Gamma float64 `json:"gamma,omitempty" yaml:"gamma,omitempty"`
	// PC is the C&R success probability p_c in [0, 1], as given: 0 means
	// no borderline request is compressed, as p_c = 0 means in the planner
	// (fleetopt.Config.PC). Callers that want FleetOpt's full
	// compressibility set DefaultPC (sim.Defaults and the CLI do).
	PC float64 `json:"p_c" yaml:"p_c"` // always written: its zero is not the default
	// SpillQueuePerGPU is the queue depth per GPU (Load.Queued / Pool.GPUs)
	// above which a pool is overloaded and a request may spill to another
	// pool that can serve it. Used by "spillover" (0 means 4) and by "cr"
	// (0 means no spillover); ignored by the other kinds.
	SpillQueuePerGPU float64 `json:"spill_queue_per_gpu,omitempty" yaml:"spill_queue_per_gpu,omitempty"`
	// EMADecay is β of the bytes-per-token EMA, in (0, 1); 0 means 0.95.
	EMADecay float64 `json:"ema_decay,omitempty" yaml:"ema_decay,omitempty"`
	// SpillKVOccupancy, when > 0, also marks a pool overloaded when its
	// Load.KVOccupancy exceeds it (a fraction in (0, 1]); 0 disables this
	// trigger. Same kinds as SpillQueuePerGPU; with kind "cr" it enables
	// spillover on its own.
	SpillKVOccupancy float64 `json:"spill_kv_occupancy,omitempty" yaml:"spill_kv_occupancy,omitempty"`
	// SigmaWeight is γ of the token-budget paper's Eq. 5, the multiple of
	// σ̂_k subtracted from ĉ_k (≥ 0); 0 means 1.0. A negative value
	// disables the conservative bias (weight 0).
	SigmaWeight float64 `json:"sigma_weight,omitempty" yaml:"sigma_weight,omitempty"`
	// ColdStart is the bytes-per-token ratio used before a category has
	// MinObservations observations (> 0); 0 means 4.0.
	ColdStart float64 `json:"cold_start,omitempty" yaml:"cold_start,omitempty"`
	// MinObservations is the number of feedback observations a category
	// needs before its learned ratio is trusted (≥ 1); 0 means 10.
	MinObservations int `json:"min_observations,omitempty" yaml:"min_observations,omitempty"`
	// Compressible lists the categories C&R may compress (by name in
	// files: prose, cjk, rag, mixed); nil means prose, RAG and mixed, an
	// empty list nothing. Code is never compressible (Validate rejects it).
	Compressible []workload.Category `json:"compressible,omitempty" yaml:"compressible,omitempty"`
	// CompressP50S and CompressP99S define the compression latency, a
	// lognormal distribution with this median and 99th percentile, s. Zero
	// means the measured default (DefaultCompressP50S, DefaultCompressP99S).
	CompressP50S float64 `json:"compress_p50_s,omitempty" yaml:"compress_p50_s,omitempty"`
	CompressP99S float64 `json:"compress_p99_s,omitempty" yaml:"compress_p99_s,omitempty"`
}

// DefaultCompressible is the default C&R content gate: prose, RAG and mixed
// text. Code is excluded (FleetOpt §5.2: extraction breaks program
// structure); CJK is excluded by default because the FleetOpt fidelity study
// (Appendix C) covers English prompts only and the compressor's token
// counter is calibrated on English.
var DefaultCompressible = []workload.Category{workload.Prose, workload.RAG, workload.Mixed}

// withDefaults returns c with zero values replaced by defaults (pools give
// BShort's default).
func (c Config) withDefaults(pools []Pool) Config {
	if c.Kind == "" {
		c.Kind = KindLength
	}
	if c.BShort == 0 && len(pools) > 0 {
		c.BShort = pools[0].MaxContext
	}
	if c.Gamma == 0 {
		c.Gamma = DefaultGamma
	}
	if c.SpillQueuePerGPU == 0 && c.Kind == KindSpillover {
		c.SpillQueuePerGPU = DefaultSpillQueuePerGPU
	}
	if c.EMADecay == 0 {
		c.EMADecay = DefaultEMADecay
	}
	if c.SigmaWeight == 0 {
		c.SigmaWeight = DefaultSigmaWeight
	}
	if c.ColdStart == 0 {
		c.ColdStart = DefaultColdStart
	}
	if c.MinObservations == 0 {
		c.MinObservations = DefaultMinObservations
	}
	if c.Compressible == nil {
		c.Compressible = DefaultCompressible
	}
	if c.CompressP50S == 0 && c.CompressP99S == 0 {
		c.CompressP50S, c.CompressP99S = DefaultCompressP50S, DefaultCompressP99S
	}
	return c
}

// Validate checks the configuration against the pools it will route over
// (sorted by MaxContext ascending) and returns an error naming the first bad
// field, its value and what is allowed.
func (c Config) Validate(pools []Pool) error {
	c = c.withDefaults(pools)
	switch c.Kind {
	case KindLength, KindTokenBudget, KindSpillover, KindCR:
	default:
		return fmt.Errorf("router: kind = %q: unknown (allowed: length, token-budget, spillover, cr)", c.Kind)
	}
	if len(pools) == 0 {
		return fmt.Errorf("router: pools: none given (need at least one)")
	}
	for i, p := range pools {
		if p.MaxContext <= 0 {
			return fmt.Errorf("router: pool %d (%q) max_ctx = %d: must be > 0 tokens", i, p.Name, p.MaxContext)
		}
		if p.GPUs <= 0 {
			return fmt.Errorf("router: pool %d (%q) gpus = %d: must be > 0", i, p.Name, p.GPUs)
		}
		if i > 0 && p.MaxContext < pools[i-1].MaxContext {
			return fmt.Errorf("router: pool %d (%q) max_ctx = %d: pools must be sorted by max context ascending (pool %d has %d)",
				i, p.Name, p.MaxContext, i-1, pools[i-1].MaxContext)
		}
	}
	if c.Kind == KindLength {
		return nil
	}
	if c.BShort <= 0 || c.BShort > pools[0].MaxContext {
		return fmt.Errorf("router: b_short = %d: must be in [1, %d] (the smallest pool's max context)", c.BShort, pools[0].MaxContext)
	}
	if err := c.checkValues(); err != nil {
		return err
	}
	if c.MinObservations < 1 {
		return fmt.Errorf("router: min_observations = %d: must be >= 1", c.MinObservations)
	}
	for _, k := range c.Compressible {
		if k == workload.Code {
			return fmt.Errorf("router: compressible = %s: code is never compressible (allowed: %s)", categoryList(c.Compressible), "prose, cjk, rag, mixed")
		}
		if k >= workload.NumCategories {
			return fmt.Errorf("router: compressible = %s: %s is not a category (allowed: prose, cjk, rag, mixed)", categoryList(c.Compressible), k)
		}
	}
	if !(c.CompressP50S > 0 && c.CompressP50S <= MaxCompressLatencyS) {
		return fmt.Errorf("router: compress_p50_s = %g: must be a latency in (0, %d] s", c.CompressP50S, MaxCompressLatencyS)
	}
	if !(c.CompressP99S >= c.CompressP50S && c.CompressP99S <= MaxCompressLatencyS) {
		return fmt.Errorf("router: compress_p99_s = %g: must be in [compress_p50_s (%g), %d] s", c.CompressP99S, c.CompressP50S, MaxCompressLatencyS)
	}
	return nil
}

func categoryList(ks []workload.Category) string {
	s := make([]string, len(ks))
	for i, k := range ks {
		s[i] = k.String()
	}
	return strings.Join(s, ",")
}

// New returns the router cfg describes over pools (sorted by MaxContext
// ascending). seed seeds the router's random streams (C&R success on
// workload.StreamRouter, compression latency on workload.StreamCompressor).
// The pools slice is copied.
func New(cfg Config, pools []Pool, seed uint64) (Router, error) {
	if err := cfg.Validate(pools); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults(pools)
	ps := append([]Pool(nil), pools...)
	if cfg.Kind == KindLength {
		return NewLength(ps), nil
	}
	return newTokenBudget(cfg, ps, seed), nil
}
