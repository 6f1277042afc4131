// Package sim runs a fleet: arrivals on the simgo calendar, the router, the
// pools and their engines (advanced lazily), warm-up discard, metrics and the
// streaming of per-request records to a Sink.
package sim

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/fleetsim/fleetsim/engine"
	"github.com/fleetsim/fleetsim/pools/autoscale"
	"github.com/fleetsim/fleetsim/pools/catalog"
	"github.com/fleetsim/fleetsim/pools/variants"
	"github.com/fleetsim/fleetsim/router"
	"github.com/fleetsim/fleetsim/workload"
)

// PoolConfig is one pool of identical instances.
type PoolConfig struct {
	Name       string `json:"name" yaml:"name"`
	GPU        string `json:"gpu" yaml:"gpu"`                               // catalog name (catalog.LookupGPU)
	Count      int    `json:"count" yaml:"count"`                           // instances
	MaxContext int    `json:"max_ctx" yaml:"max_ctx"`                       // tokens
	Dispatch   string `json:"dispatch,omitempty" yaml:"dispatch,omitempty"` // "central" (default), "jsq", "rr"
	// QueueLimit caps the requests waiting in the pool; arrivals beyond it
	// are rejected and counted. 0 means no limit.
	QueueLimit int `json:"queue_limit,omitempty" yaml:"queue_limit,omitempty"`
	// SlotRule is the slot rule of the pool's instances: "" or "scaled"
	// (the GPU profile's batch limit scales with the max context, FleetOpt
	// §7.1) or "capped" (the token-budget paper's N_seq = min(128, KV
	// blocks/⌈max_ctx/16⌉)); catalog.SlotRuleCapped.
	SlotRule string `json:"slot_rule,omitempty" yaml:"slot_rule,omitempty"`
	// Profile names a variant profile file (`fleetsim fit`) whose decode and
	// prefill constants replace the GPU's iteration timing; ProfileName
	// picks one profile of a file that holds several. The CLI reads the
	// file into Override (sim does no I/O). See docs/variants.md.
	Profile     string          `json:"profile,omitempty" yaml:"profile,omitempty"`
	ProfileName string          `json:"profile_name,omitempty" yaml:"profile_name,omitempty"`
	Override    *EngineOverride `json:"override,omitempty" yaml:"-"`
	// MaxSeqs and KVBlocks override the catalog's slot rule (0 = keep it):
	// the vLLM-style configuration in which max_seqs is only a cap on the
	// running sequences (vLLM's max_num_seqs) and kv_blocks (16-token
	// blocks per instance) is the real budget, so the KV cache can run out
	// and the engine preempts (docs/fleet.md "KV-bound pools").
	MaxSeqs  int `json:"max_seqs,omitempty" yaml:"max_seqs,omitempty"`
	KVBlocks int `json:"kv_blocks,omitempty" yaml:"kv_blocks,omitempty"`
	// Model and TP make the pool's instance a tensor-parallel group of TP
	// GPUs (GPU a catalog specification) serving a catalog model, with a
	// profile computed from the specifications (catalog.InstanceName; TP 0
	// = the smallest that fits). Spec names a catalog profile file and
	// Model may name a Hugging Face config.json; the CLI reads such files
	// into Instance (sim does no I/O). See docs/catalog.md.
	Model    string       `json:"model,omitempty" yaml:"model,omitempty"`
	TP       int          `json:"tp,omitempty" yaml:"tp,omitempty"`
	Spec     string       `json:"spec,omitempty" yaml:"spec,omitempty"`
	Instance *catalog.GPU `json:"instance,omitempty" yaml:"-"`
	// ScalingBlock bounds and prices the pool's instances when an
	// autoscaler changes its size (docs/day.md; PoolConfig.Scaling).
	ScalingBlock *PoolScaling `json:"scaling,omitempty" yaml:"scaling,omitempty"`
	// Timing, when set, is this pool's iteration-time preset in place of
	// the run's (Config.Timing), e.g. measured for a computed pool beside
	// a hand-written one (catalog.TimingNames).
	Timing string `json:"timing,omitempty" yaml:"timing,omitempty"`
	// PrefixCache, when set, gives the pool's instances a prefix cache and
	// chooses the pool's cache-aware routing (prefixconfig.go, issue 18).
	PrefixCache *PrefixCacheConfig `json:"prefix_cache,omitempty" yaml:"prefix_cache,omitempty"`
	// Disaggregated, when set, splits the pool into prefill and decode
	// instances (disaggconfig.go, issue 18).
	Disaggregated *DisaggConfig `json:"disaggregated,omitempty" yaml:"disaggregated,omitempty"`
}

// TimingOf returns the pool's timing preset: its own, else the run's.
func (p PoolConfig) TimingOf(run string) string {
	if p.Timing != "" {
		return p.Timing
	}
	return run
}

// slots returns the pool's sequences per instance: MaxSeqs when set, else
// the catalog's slot rule.
func (p PoolConfig) slots(g catalog.GPU) int {
	if p.MaxSeqs > 0 {
		return p.MaxSeqs
	}
	return g.Slots(p.MaxContext)
}

// engineConfig returns the engine configuration of one instance of the
// pool (profile g, timing preset timing): the catalog's, then the
// override, max_seqs and kv_blocks.
func (p PoolConfig) engineConfig(g catalog.GPU, timing string) (engine.Config, error) {
	ecfg, err := g.EngineConfig(p.MaxContext, timing)
	if err != nil {
		return engine.Config{}, err
	}
	p.Override.apply(&ecfg)
	if p.MaxSeqs > 0 {
		ecfg.MaxSeqs = p.MaxSeqs
	}
	if p.KVBlocks > 0 {
		ecfg.KVBlocks = p.KVBlocks
	}
	ecfg.CacheBlocks = p.cacheBlocks(ecfg.KVBlocks) // prefixconfig.go
	return ecfg, nil
}

// InstanceProfile returns the pool's instance profile: Instance when set, else the
// computed profile of GPU/Model/tpTP when Model is set, else the catalog
// profile named GPU.
func (p PoolConfig) InstanceProfile() (catalog.GPU, error) {
	switch {
	case p.Instance != nil:
		return *p.Instance, nil
	case p.TP < 0:
		return catalog.GPU{}, fmt.Errorf("tp = %d: must be >= 1 GPUs per instance (or absent: the smallest that fits)", p.TP)
	case p.Model != "" && p.TP > 0:
		return catalog.LookupGPU(catalog.InstanceName(p.GPU, p.Model, p.TP))
	case p.Model != "":
		return catalog.LookupGPU(p.GPU + "/" + p.Model)
	case p.TP != 0:
		return catalog.GPU{}, fmt.Errorf("tp = %d: needs a model (tp applies to a computed GPU/model instance)", p.TP)
	}
	return catalog.LookupGPU(p.GPU)
}

// RouterConfig selects and tunes the router: the router package's one
// configuration (its fields, their defaults and router.Config.Validate, the
// only check) plus the fleet's retry of misrouted requests. In a scenario
// file all its keys sit under router:.
type RouterConfig struct {
	router.Config `yaml:",inline"`
	// RetryDelayS, when > 0, retries a request rejected by a pool that is too
	// small at the next larger pool after this delay, s.
	RetryDelayS float64 `json:"retry_delay_s,omitempty" yaml:"retry_delay_s,omitempty"`
	// Adaptive, when set, moves B_short every control interval from the
	// errors the pools show (router.Adaptive, docs/day.md).
	Adaptive *router.AdaptiveConfig `json:"adaptive,omitempty" yaml:"adaptive,omitempty"`
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
	Timing   string        `json:"timing" yaml:"timing"` // "auto" (default: calibrated for computed A100/H100 instances, kv + calibrated prefill for hand-written profiles, else kv), "kv", "paper", "measured" or "calibrated" (catalog.TimingNames)
	Router   RouterConfig  `json:"router" yaml:"router"`
	// WarmupFraction of the arrivals (the first ones) is kept in the output
	// with warmup=true and excluded from metrics. Default 0.2.
	WarmupFraction float64 `json:"warmup_fraction" yaml:"warmup_fraction"`
	SLO            SLO     `json:"slo" yaml:"slo"`
	// OSD selects the over-saturation detector (default: monitor with
	// guidellm's parameters).
	OSD OSDConfig `json:"osd,omitzero" yaml:"osd,omitempty"`
	// Autoscale, when set, changes the pools' sizes during the run
	// (docs/day.md); nil keeps them fixed.
	Autoscale *autoscale.Config `json:"autoscale,omitempty" yaml:"autoscale,omitempty"`
	// Variants is the wva policy's variants file, parsed with its profiles
	// resolved by the CLI (sim does no I/O).
	Variants *variants.Config `json:"-" yaml:"-"`
}

// Dispatch policies inside a pool.
const (
	DispatchCentral = "central" // one FCFS queue per pool (the M/G/c assumption); the default
	DispatchJSQ     = "jsq"     // join the instance with the fewest queued + running requests
	DispatchRR      = "rr"      // round-robin over the instances
)

// Router kinds.
const (
	RouterLength      = router.KindLength      // smallest pool whose max context holds L_in + max_output_tokens; the default
	RouterTokenBudget = router.KindTokenBudget // byte-based token estimate with per-category calibration
	RouterSpillover   = router.KindSpillover   // token-budget with load-aware spillover
	RouterCR          = router.KindCR          // compress-and-route
)

var (
	dispatchNames = []string{DispatchCentral, DispatchJSQ, DispatchRR}
	routerNames   = []string{RouterLength, RouterTokenBudget, RouterSpillover, RouterCR}
	timingNames   = catalog.TimingNames
)

// Defaults returns the default scenario: the FleetOpt paper's pool-routing
// shape (FleetOpt §7.1: a100 pools at 4,096 and 65,536 tokens, the length
// router at B_short = 4,096) serving the built-in Azure CDF at 1,000 req/s
// (Poisson), 100,000 requests, under the auto timing preset, which charges
// prompt tokens (catalog.TimingKVPrefill for the a100 profile). The pools'
// counts, 161 short and 153 long, were found by bisection with simulate
// under that timing: the smallest short count whose P99 TTFT is within
// the SLO (0.5 s; seed 1) and the smallest long count whose slot
// utilization is within the papers' cap 0.85 on seeds 1-3 (its P99 TTFT
// cannot reach 0.5 s at any count; docs/experiments.md,
// "The default fleet"). Seed 1, the length router (p_c = router.DefaultPC
// = 1 should a file or flag switch to C&R), central dispatch, 20% warm-up
// and the SLO P99 TTFT <= 0.5 s (FleetOpt §7.1), P99 TPOT <= 0.08 s
// (token-budget paper §4). PapersDefaults is the papers' own fleet.
func Defaults() Config {
	c := PapersDefaults()
	c.Pools[0].Count, c.Pools[1].Count = DefaultShortCount, DefaultLongCount
	c.Timing = catalog.TimingAuto
	return c
}

// The default scenario's pool counts (Defaults), instances.
const (
	DefaultShortCount = 161
	DefaultLongCount  = 153
)

// PapersDefaults returns the papers' default scenario, which
// `fleetsim simulate --compat papers` runs and the reproduced experiments
// start from: Defaults with the FleetOpt paper's fleet (§7.1 and Table 5:
// 43 A100s at 4,096 tokens and 131 at 65,536 tokens) and the kv timing
// preset, in which prompt tokens are free (the convention the papers'
// fleet sizes were computed in).
func PapersDefaults() Config {
	return Config{
		Seed: 1,
		Workload: workload.Spec{
			CDF:      "azure",
			Rate:     1000,
			Requests: 100_000,
		},
		Pools: []PoolConfig{
			{Name: "short", GPU: "a100", Count: 43, MaxContext: 4096},
			{Name: "long", GPU: "a100", Count: 131, MaxContext: 65536},
		},
		Timing:         catalog.TimingKV,
		Router:         RouterConfig{Config: router.Config{Kind: RouterLength, PC: router.DefaultPC}},
		WarmupFraction: 0.2,
		SLO:            SLO{TTFTS: 0.5, TPOTS: 0.08},
	}
}

// ValidationError is a bad field of a Config: its path (as in a scenario
// file, e.g. "pools[1].gpu"), its value and what is allowed, printed as one
// line `field = value: allowed`. It is the workload package's field error,
// so both packages' messages have one form.
type ValidationError = workload.FieldError

// MaxInstances bounds the instances of a fleet (all pools together), so a
// typo in a count ends in a clear error rather than in running out of memory.
const MaxInstances = 1_000_000

// MaxDelayS bounds router.retry_delay_s and MaxSLOS the SLO targets,
// seconds (an hour and a day): finite, and far beyond any real setting.
const (
	MaxDelayS = 3600
	MaxSLOS   = 86400
)

// MaxArrivalS is the latest arrival time a run accepts, seconds:
// engine.MaxArrival, 2^62 ps (about 53 days). Engines count time in whole
// picoseconds (docs/model.md, "Time"); a later arrival fails the run.
const MaxArrivalS = float64(engine.MaxArrival) / 1e12

func bad(field string, value any, allowed string, args ...any) error {
	return &ValidationError{Field: field, Value: value, Allowed: fmt.Sprintf(allowed, args...)}
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// Validate checks every field of c and returns the first problem as a
// *ValidationError (one line: field, value, what is allowed). It does no
// I/O: a CDF or trace file named by the workload is opened by the workload
// package when the run's Source is built.
func (c *Config) Validate() error {
	if err := c.validateWorkload(); err != nil {
		return err
	}
	if !slices.Contains(timingNames, c.Timing) {
		return bad("timing", c.Timing, "allowed: %s", strings.Join(timingNames, ", "))
	}
	if len(c.Pools) == 0 {
		return bad("pools", "[]", "at least one pool is needed (NAME:GPU:COUNT:MAXCTX)")
	}
	seen := map[string]int{}
	total := 0
	for i, p := range c.Pools {
		f := fmt.Sprintf("pools[%d]", i)
		if p.Name == "" {
			return bad(f+".name", p.Name, "a pool needs a non-empty name")
		}
		if strings.ContainsAny(p.Name, ": \t\n") {
			return bad(f+".name", p.Name, "a pool name may not contain ':' or white space")
		}
		if j, dup := seen[p.Name]; dup {
			return bad(f+".name", p.Name, "duplicate pool name (also pools[%d]); names must be unique", j)
		}
		seen[p.Name] = i
		g, err := p.InstanceProfile()
		if err != nil {
			if _, spec := catalog.LookupHardware(p.GPU); p.Model == "" && p.TP == 0 && !strings.Contains(p.GPU, "/") && spec != nil {
				return bad(f+".gpu", p.GPU, "unknown GPU (allowed: %s, or GPU/MODEL/tpN)", strings.Join(catalog.AcceptedGPUNames(), ", "))
			}
			return bad(f+".gpu", p.GPU, "%s", err)
		}
		if g, err = g.WithSlotRule(p.SlotRule); err != nil {
			return bad(f+".slot_rule", p.SlotRule, "allowed: %s", strings.Join(catalog.SlotRules(), ", "))
		}
		if p.Count < 1 || p.Count > MaxInstances {
			return bad(f+".count", p.Count, "a pool needs 1 to %d instances", MaxInstances)
		}
		if total += p.Count; total > MaxInstances {
			return bad(f+".count", p.Count, "the fleet would have %d instances; at most %d in all", total, MaxInstances)
		}
		if p.MaxContext < 2 {
			return bad(f+".max_ctx", p.MaxContext, "the max context must be at least 2 tokens (one prompt and one output token)")
		}
		if g.Slots(p.MaxContext) < 1 {
			return bad(f+".max_ctx", p.MaxContext,
				"exceeds the KV budget of one %s instance (%d blocks of %d tokens = %d tokens)",
				g.Name, g.KVBlocks, g.BlockTokens, g.KVBlocks*g.BlockTokens)
		}
		if p.Timing != "" && !slices.Contains(timingNames, p.Timing) {
			return bad(f+".timing", p.Timing, "allowed: %s (or absent: the run's timing)", strings.Join(timingNames, ", "))
		}
		if t := p.TimingOf(c.Timing); (t == catalog.TimingMeasured || t == catalog.TimingCalibrated) && (p.Override == nil || p.Override.Timing == nil) {
			if _, err := g.StepModel(t); err != nil {
				if p.Timing != "" {
					return bad(f+".timing", t, "%s", err)
				}
				return bad("timing", t, "%s (pool %q): %s", f, p.Name, err)
			}
		}
		if p.MaxSeqs < 0 || p.MaxSeqs > 1<<20 {
			return bad(f+".max_seqs", p.MaxSeqs, "must be in [1, %d] (0 = the catalog's slot rule)", 1<<20)
		}
		if p.KVBlocks < 0 || p.KVBlocks > catalog.MaxKVBlocks {
			return bad(f+".kv_blocks", p.KVBlocks, "must be in [1, %d] (0 = the GPU's KV budget)", catalog.MaxKVBlocks)
		}
		if p.KVBlocks > 0 && (p.MaxContext-2)/g.BlockTokens+1 > p.KVBlocks {
			return bad(f+".kv_blocks", p.KVBlocks, "one request of max_ctx %d tokens needs %d blocks of %d tokens", p.MaxContext, (p.MaxContext-2)/g.BlockTokens+1, g.BlockTokens)
		}
		if p.Dispatch != "" && !slices.Contains(dispatchNames, p.Dispatch) {
			return bad(f+".dispatch", p.Dispatch, "allowed: %s", strings.Join(dispatchNames, ", "))
		}
		if p.QueueLimit < 0 {
			return bad(f+".queue_limit", p.QueueLimit, "must be >= 0 (0 = no limit)")
		}
		if err := p.Override.validate(f, p); err != nil {
			return err
		}
		// The engine's own rules for the instance the run would build (its
		// longest iteration depends on the slots, the KV budget and the
		// timing preset together).
		if ecfg, err := p.engineConfig(g, p.TimingOf(c.Timing)); err == nil {
			if err := p.PrefixCache.validate(f, p, ecfg.KVBlocks); err != nil {
				return err
			}
			if err := p.Disaggregated.validate(f, p, g); err != nil { // disaggconfig.go
				return err
			}
			if err := ecfg.Validate(); err != nil {
				return bad(f, p.Name, "%v", err)
			}
		}
	}
	if c.Router.Kind != "" && !slices.Contains(routerNames, c.Router.Kind) {
		return bad("router.kind", c.Router.Kind, "allowed: %s", strings.Join(routerNames, ", "))
	}
	// The router's own rules (tuning fields against the pools), checked by
	// building it exactly as a run does.
	rp := make([]router.Pool, len(c.Pools))
	for i, p := range c.Pools {
		g, _ := p.gpu()
		rp[i] = router.Pool{Name: p.Name, MaxContext: p.MaxContext, GPUs: p.Count, Slots: p.slots(g)}
	}
	sort.SliceStable(rp, func(i, j int) bool { return rp[i].MaxContext < rp[j].MaxContext })
	if _, err := newRouter(c.Router, rp, c.Seed); err != nil {
		return err
	}
	if !(c.Router.RetryDelayS >= 0 && c.Router.RetryDelayS <= MaxDelayS) {
		return bad("router.retry_delay_s", c.Router.RetryDelayS, "must be in [0, %g] seconds", float64(MaxDelayS))
	}
	if !finite(c.WarmupFraction) || c.WarmupFraction < 0 || c.WarmupFraction >= 1 {
		return bad("warmup_fraction", c.WarmupFraction, "must be in [0, 1)")
	}
	if !(c.SLO.TTFTS > 0 && c.SLO.TTFTS <= MaxSLOS) {
		return bad("slo.ttft_s", c.SLO.TTFTS, "must be in (0, %g] seconds", float64(MaxSLOS))
	}
	if !(c.SLO.TPOTS > 0 && c.SLO.TPOTS <= MaxSLOS) {
		return bad("slo.tpot_s", c.SLO.TPOTS, "must be in (0, %g] seconds", float64(MaxSLOS))
	}
	if err := c.OSD.validate(); err != nil {
		return err
	}
	return c.validateScaling()
}

func (c *Config) validateWorkload() error {
	// The workload package owns the Spec's rules; its field names are
	// prefixed with "workload.".
	// The time range first: for a tiny rate it states the real lower
	// bound (it depends on the number of requests).
	if err := c.checkTimeRange(); err != nil {
		return err
	}
	if err := c.Workload.Validate(); err != nil {
		return fmt.Errorf("workload.%w", err)
	}
	return nil
}
