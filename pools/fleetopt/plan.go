package fleetopt

import (
	"fmt"
	"math"

	"github.com/fleetsim/fleetsim/pools/catalog"
	"github.com/fleetsim/fleetsim/pools/occupancy"
	"github.com/fleetsim/fleetsim/pools/queueing"
)

// This file is the FleetOpt planner (FleetOpt §3–§6, Algorithm 1) with the
// token-budget paper's cost model (§3, §4.2 eq. 8, App. A) beside it.
// docs/planner.md describes the model and how its numbers compare with the
// papers'.

// HoursPerYear annualizes hourly GPU prices (FleetOpt Table 3).
const HoursPerYear = 8760

// DefaultLongCtx is the long pool's (and the homogeneous fleet's) max
// context, tokens (FleetOpt §7.1).
const DefaultLongCtx = 65536

// Headroom factors of the token-budget paper's analytical profiler
// (App. A): GPUs = ceil(λ/μ·β).
const (
	HeadroomHomo  = 1.08
	HeadroomShort = 1.05
	HeadroomLong  = 1.02
)

// Planner method names.
const (
	MethodHomo     = "homo"     // one pool at the long context
	MethodPR       = "pr"       // pool routing at B_short, γ = 1
	MethodRetrofit = "retrofit" // PR + C&R at γ (long pool recalibrated on L > γB)
	MethodFleetOpt = "fleetopt" // Algorithm 1: argmin over B × γ
)

// Methods lists the planner methods in report order.
func Methods() []string { return []string{MethodHomo, MethodPR, MethodRetrofit, MethodFleetOpt} }

// DefaultGammas is FleetOpt's compression-bandwidth grid {1.0, 1.1, …, 2.0}.
func DefaultGammas() []float64 {
	g := make([]float64, 11)
	for i := range g {
		g[i] = 1 + float64(i)/10
	}
	return g
}

// MaxRate is the largest fleet arrival rate a Config accepts, requests/s:
// 10^9, some four orders of magnitude above the largest fleets' traffic.
// Every built-in workload's pools stay far inside MaxServers there (the
// homogeneous agent-heavy pool needs about 4e10 servers, 1/27 of it, at
// 10^9 requests/s).
const MaxRate = 1e9

// Config is a planning problem. Zero fields take the defaults named.
type Config struct {
	Rate     float64     // fleet arrival rate λ, requests/s, in (0, MaxRate]
	SLO      float64     // P99 TTFT target, s; 0 = none (size by RhoMax only)
	RhoMax   float64     // utilization cap (DefaultRhoMax)
	ShortGPU catalog.GPU // GPU of the short pool
	LongGPU  catalog.GPU // GPU of the long and the homogeneous pool
	LongCtx  int         // long-pool and homogeneous max context, tokens (DefaultLongCtx)
	BShort   int         // short-pool boundary and max context, tokens
	Gamma    float64     // C&R bandwidth for retrofit (>= 1; default 1.5)
	// PC is the compressibility p_c in [0, 1]: the share of borderline
	// requests C&R compresses. Not defaulted: the zero value is p_c = 0 (no
	// compression; under ShortCalibMix retrofit is then PR's fleet), a
	// legitimate setting that a default would hide. Callers that want
	// FleetOpt's full compressibility set DefaultPC (the CLI's --p-c
	// default); the paper uses 0.75 for agent-heavy.
	PC          float64
	Calibration string    // CalibExact (default), CalibMonteCarlo (stratified) or CalibMonteCarloIID
	Seed        uint64    // Monte Carlo seed (DefaultSeed when 0)
	Timing      string    // TimingKV (default) or TimingPaper
	Gammas      []float64 // FleetOpt γ grid (DefaultGammas)
	FixB        bool      // FleetOpt sweeps γ only, at BShort (FleetOpt Table 3)
	// ShortCalibration is the C&R traffic model of a two-pool fleet:
	// ShortCalibPaper (FleetOpt Algorithm 1; the default when empty) or
	// ShortCalibMix (each pool calibrated on the traffic it receives after
	// compression; docs/planner.md §4).
	ShortCalibration string
	// EstimateNoise is σ, the relative standard deviation of the router's
	// prompt-length estimate (the simulator's workload.BytesJitter = 0.05).
	// Used by ShortCalibMix only: a band request of length L is compressed
	// with probability p_c·Φ((γB − L)/(σ·L_in)) instead of p_c. 0 = exact
	// estimates. In [0, 0.5].
	EstimateNoise float64
}

// DefaultPC is the compressibility p_c of FleetOpt's Azure and LMSYS
// experiments and the CLI's --p-c default. Config.PC is not defaulted to it
// (its zero value means p_c = 0).
const DefaultPC = 1.0

// withDefaults fills zero fields (not PC: 0 is a valid p_c).
func (c Config) withDefaults() Config {
	if c.RhoMax == 0 {
		c.RhoMax = queueing.DefaultRhoMax
	}
	if c.LongCtx == 0 {
		c.LongCtx = DefaultLongCtx
	}
	if c.Gamma == 0 {
		c.Gamma = 1.5
	}
	if c.Calibration == "" {
		c.Calibration = CalibExact
	}
	if c.Seed == 0 {
		c.Seed = DefaultSeed
	}
	if c.Timing == "" {
		c.Timing = catalog.DefaultTiming
	}
	if c.Gammas == nil {
		c.Gammas = DefaultGammas()
	}
	if c.ShortCalibration == "" {
		c.ShortCalibration = DefaultShortCalibration
	}
	return c
}

// noise returns the estimate noise the model uses: EstimateNoise under
// ShortCalibMix, 0 under the paper's model.
func (c Config) noise() float64 {
	if c.ShortCalibration == ShortCalibMix {
		return c.EstimateNoise
	}
	return 0
}

// Validate checks a Config (after defaults); errors name the field, the
// value and what is allowed.
func (c Config) Validate() error {
	switch {
	case !(c.Rate > 0 && c.Rate <= MaxRate):
		return fmt.Errorf("rate %v requests/s: must be in (0, %g]", c.Rate, MaxRate)
	case !(c.SLO >= 0) || math.IsInf(c.SLO, 0):
		return fmt.Errorf("slo-ttft-p99 %v s: must be finite and >= 0 (0 = no TTFT target)", c.SLO)
	case !(c.RhoMax > 0 && c.RhoMax < 1):
		return fmt.Errorf("rho-max %v: the utilization cap must be in (0, 1) (at ϱ >= 1 the queue is unstable)", c.RhoMax)
	case c.ShortGPU.Name == "" || c.LongGPU.Name == "":
		return fmt.Errorf("gpu: missing (allowed: %v)", catalog.GPUNames())
	case c.LongCtx < 2:
		return fmt.Errorf("long-pool max context %d tokens: must be >= 2", c.LongCtx)
	case c.LongGPU.Slots(c.LongCtx) < 1:
		return fmt.Errorf("long-pool max context %d tokens: exceeds the KV budget of one %s instance", c.LongCtx, c.LongGPU.Name)
	case c.BShort < 0 || c.BShort >= c.LongCtx:
		return fmt.Errorf("b-short %d tokens: must be in [1, %d) (below the long-pool context)", c.BShort, c.LongCtx)
	case c.BShort > 0 && c.ShortGPU.Slots(c.BShort) < 1:
		return fmt.Errorf("b-short %d tokens: exceeds the KV budget of one %s instance", c.BShort, c.ShortGPU.Name)
	case !(c.Gamma >= 1) || math.IsInf(c.Gamma, 0):
		return fmt.Errorf("gamma %v: must be >= 1 (the borderline band is (B, γB])", c.Gamma)
	case !(c.PC >= 0 && c.PC <= 1):
		return fmt.Errorf("p-c %v: must be in [0, 1]", c.PC)
	case c.Calibration != CalibExact && !IsMonteCarlo(c.Calibration):
		return errCalibMethod(c.Calibration)
	case c.Timing != catalog.TimingKV && c.Timing != catalog.TimingPaper:
		return fmt.Errorf("timing %q: allowed kv, paper", c.Timing)
	case c.ShortCalibration != ShortCalibPaper && c.ShortCalibration != ShortCalibMix:
		return fmt.Errorf("short-calibration %q: allowed paper, mix", c.ShortCalibration)
	case !(c.EstimateNoise >= 0 && c.EstimateNoise <= 0.5):
		return fmt.Errorf("estimate-noise %v: the relative standard deviation of the router's length estimate must be in [0, 0.5]", c.EstimateNoise)
	}
	for _, g := range c.Gammas {
		if !(g >= 1) || math.IsInf(g, 0) {
			return fmt.Errorf("gamma grid value %v: must be >= 1", g)
		}
	}
	return nil
}

// PoolPlan is one sized pool. JSON keys are part of the CLI contract.
type PoolPlan struct {
	Name         string  `json:"name"`           // "short", "long" or "homogeneous"
	GPU          string  `json:"gpu"`            // catalog name
	MaxCtx       int     `json:"max_ctx"`        // max context, tokens
	Slots        int     `json:"slots"`          // sequences per GPU at MaxCtx
	SliceLo      int     `json:"slice_lo"`       // calibration slice (lo, hi], tokens
	SliceHi      int     `json:"slice_hi"`       //
	ArrivalRate  float64 `json:"arrival_rate"`   // λ_p, requests/s
	MuGPU        float64 `json:"mu_gpu"`         // n_slots/E[S], requests/s per GPU
	MeanServiceS float64 `json:"mean_service_s"` // E[S], s
	Cs2          float64 `json:"cs2"`            // Var[S]/E[S]²
	// GPUs is the planned count of instances of the profile (GPUs of a
	// hand-written profile, TP groups of a computed one). In JSON, for a
	// computed profile (TP > 0), "instances" holds it and "gpus" the
	// physical GPUs, GPUs × TP (planjson.go).
	GPUs         int     `json:"gpus"`
	TP           int     `json:"tp,omitempty"`    // GPUs per instance of a computed profile (0: the profile does not state it)
	GPUsByRhoMax int     `json:"gpus_by_rho_max"` // ceil(λ/(ρ_max μ_gpu))
	Utilization  float64 `json:"utilization"`     // λ/(GPUs·μ_gpu)
	P99WaitS     float64 `json:"p99_wait_s"`      // Kimura P99 wait at GPUs, s
	P99PrefillS  float64 `json:"p99_prefill_s"`   // prefill of the P99-length request at the operating point, s
	IterS        float64 `json:"iter_s"`          // iteration time at the operating point, s
	P99TTFTS     float64 `json:"p99_ttft_s"`      // P99 wait + P99 prefill + one iteration, s
	ProfilerGPUs int     `json:"profiler_gpus"`   // token-budget profiler ceil(λ/μ·β)
	USDPerHour   float64 `json:"usd_per_gpu_hour"`
	AnnualUSD    float64 `json:"annual_cost_usd"`
	// Mix lists the traffic components the pool was calibrated on when it
	// is not one plain slice (short-calibration mix): slices, their share
	// of the pool's requests and, for the C&R band, the budget B.
	Mix []MixPart `json:"mix,omitempty"`
	// GPUsPaper and Occupancy are set under the occupancy service model
	// (Planner.ApplyOccupancy): the paper model's count and the occupancy
	// model's prediction at GPUs.
	GPUsPaper int                   `json:"gpus_paper,omitempty"`
	Occupancy *occupancy.Prediction `json:"occupancy,omitempty"`

	stats ServiceStats
}

// Stats returns the pool's calibrated service-time statistics.
func (p PoolPlan) Stats() ServiceStats { return p.stats }

// MethodPlan is one method's fleet.
type MethodPlan struct {
	Method      string `json:"method"`
	Calibration string `json:"calibration"`
	// ShortCalibration is the C&R traffic model the pools were calibrated
	// with: ShortCalibPaper or ShortCalibMix (the same for every method of
	// a plan; it matters only when γ > 1).
	ShortCalibration string `json:"short_calibration"`
	// EstimateNoise is the router-estimate noise σ the mix model used (0
	// under paper).
	EstimateNoise float64    `json:"estimate_noise"`
	BShort        int        `json:"b_short,omitempty"` // short-pool boundary, tokens
	Gamma         float64    `json:"gamma,omitempty"`   // C&R bandwidth
	PC            float64    `json:"p_c"`               // compressibility
	Alpha         float64    `json:"alpha"`             // F(B)
	Beta          float64    `json:"beta"`              // F(γB) − F(B)
	AlphaPrime    float64    `json:"alpha_prime"`       // α + β·p_c
	CliffRatio    float64    `json:"cliff_ratio"`       // short slots / long slots
	Archetype     string     `json:"archetype,omitempty"`
	Pools         []PoolPlan `json:"pools"`
	TotalGPUs     int        `json:"total_gpus"`
	AnnualUSD     float64    `json:"annual_cost_usd"`
	Savings       float64    `json:"savings_vs_homogeneous"`    // 1 − cost/homogeneous cost
	ClosedForm    float64    `json:"closed_form_savings"`       // α′(1 − 1/ρ), ρ = μ_s/μ_homo (token-budget eq. 7)
	ClosedCliff   float64    `json:"closed_form_savings_cliff"` // α′(1 − 1/ρ), ρ = cliff ratio (FleetOpt §2.2)
	Corrected     float64    `json:"corrected_formula_gpus"`    // α′λ/μ_s + (1−α′)λ/μ_l (token-budget eq. 8)
	CorrectedSav  float64    `json:"corrected_formula_savings"` // 1 − eq. 8 / (λ/μ_homo)
	ProfilerGPUs  int        `json:"profiler_gpus"`             // Σ pools' ceil(λ/μ·β)
	SweepCells    int        `json:"sweep_cells,omitempty"`     // FleetOpt: cells evaluated
}

// Plan is the planner's answer for every method asked.
type Plan struct {
	Workload    string  `json:"workload"`
	Rate        float64 `json:"rate"`
	SLOTTFTP99S float64 `json:"slo_ttft_p99_s"` // 0 = none
	// SLOTPOTP99S is the occupancy model's P99 TPOT target, s (0 = none;
	// set by Planner.ApplyOccupancy).
	SLOTPOTP99S float64 `json:"slo_tpot_p99_s,omitempty"`
	RhoMax      float64 `json:"rho_max"`
	Calibration string  `json:"calibration"`
	// ShortCalibration: ShortCalibPaper or ShortCalibMix (see Config).
	ShortCalibration string       `json:"short_calibration"`
	EstimateNoise    float64      `json:"estimate_noise"` // σ of the mix model (0 under paper)
	Samples          int          `json:"monte_carlo_samples,omitempty"`
	Seed             uint64       `json:"seed,omitempty"`
	Timing           string       `json:"timing"`
	InputFraction    float64      `json:"input_fraction"`
	ChunkTokens      int          `json:"chunk_tokens"`
	Methods          []MethodPlan `json:"methods"`
	// ServiceModel is ServiceOccupancy after Planner.ApplyOccupancy; empty
	// for the paper model.
	ServiceModel string `json:"service_model,omitempty"`
}

// Planner sizes fleets for one workload CDF. It caches calibrations, so a
// sweep calibrates every slice once. Not safe for concurrent use.
type Planner struct {
	cfg   Config
	cal   *Calibrator
	cache map[calKey]ServiceStats
	homo  *MethodPlan
	// pruned counts the FleetOpt cells skipped by their cost bound
	// (cellLowerBound), for tests.
	pruned  int
	noPrune bool // tests: evaluate every cell
	// scratch slices of the sweep's count-only path (cellCost): the pools'
	// traffic parts and the normalized mixture.
	scratch struct {
		short, long []SlicePart
		mix         mixBuf
	}
	// paper holds what the cells of a paper-model sweep share
	// (cellCostPaper); noFast (tests) sends every cell down the general path.
	paper  paperSweep
	noFast bool
}

// paperSweep is cellCostPaper's state: the long pool's timing and the
// probability-weighted term sums up to the CDF's maximum (the top of every
// long slice), computed once per planner, and the short pool of the last
// B (the sweep visits the 11 γ of one B in a row; the short slice (0, B]
// is the same for all of them).
type paperSweep struct {
	init, bad bool       // init: the fields below are set; bad: never use the fast path
	maxT      int        // CDF maximum, tokens
	fMax      float64    // F(maxT)
	wMax      sums       // weightedTo(maxT)
	ptl       PoolTiming // long pool at LongCtx
	b         int        // B of the fields below; 0: none
	okB       bool       // the short pool of b is sized normally (else: general path)
	alpha     float64    // F(b)
	pts       PoolTiming // short pool at b
	short     ServiceStats
}

type calKey struct {
	traffic trafficKey
	ctx     int
	long    bool // the long GPU (else the short one)
	noP99   bool // exact mixture without its P99 fields (count-only sweep)
}

// trafficKey identifies a pool's traffic: a plain slice (lo, hi], or the
// short (long = false in calKey) or long pool's mixture of C&R cell
// (b, gb, pc) under the configured model.
type trafficKey struct {
	lo, hi int
	b, gb  int // 0: a plain slice
	pc     float64
}

// partList is a pool's traffic: one plain slice (key.lo, key.hi] (parts
// nil: no allocation on the paper's path), or the slices of a mixture and
// the key that identifies them in the calibration cache.
type partList struct {
	key   trafficKey
	parts []SlicePart
	n     int // slices (1 for a plain slice)
}

func plain(lo, hi int) partList { return partList{key: trafficKey{lo: lo, hi: hi}, n: 1} }

// add appends a slice, turning a plain slice into a mixture.
func (l *partList) add(p SlicePart) {
	if len(l.parts) == 0 && l.n == 1 {
		l.parts = append(l.parts, SlicePart{Lo: l.key.lo, Hi: l.key.hi, Scale: 1})
	}
	l.parts = append(l.parts, p)
	l.n = len(l.parts)
}

// slice returns the single plain slice (lo, hi] of l, ok = false for a
// mixture.
func (l partList) slice() (lo, hi int, ok bool) {
	if len(l.parts) == 0 {
		return l.key.lo, l.key.hi, l.n == 1
	}
	if l.n == 1 && l.parts[0].CompressTo == 0 && l.parts[0].Scale == 1 {
		return l.parts[0].Lo, l.parts[0].Hi, true
	}
	return 0, 0, false
}

// bounds returns the smallest lo and largest hi of l's slices.
func (l partList) bounds() (lo, hi int) {
	if len(l.parts) == 0 {
		return l.key.lo, l.key.hi
	}
	lo, hi = l.parts[0].Lo, l.parts[0].Hi
	for _, p := range l.parts[1:] {
		lo, hi = min(lo, p.Lo), max(hi, p.Hi)
	}
	return lo, hi
}

// NewPlanner validates cfg and binds it to a calibrator.
func NewPlanner(cal *Calibrator, cfg Config) (*Planner, error) {
	cfg = cfg.withDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cal == nil {
		return nil, fmt.Errorf("calibrator: missing")
	}
	if m := cal.CDF().Max(); m > cfg.LongCtx {
		return nil, fmt.Errorf("CDF %q reaches %d tokens, above the long-pool max context %d: those requests could not be served", cal.CDF().Name, m, cfg.LongCtx)
	}
	if cfg.ShortGPU.ChunkTokens != cal.chunk || cfg.LongGPU.ChunkTokens != cal.chunk {
		return nil, fmt.Errorf("prefill chunk: the calibrator uses %d tokens, the GPUs %d/%d", cal.chunk, cfg.ShortGPU.ChunkTokens, cfg.LongGPU.ChunkTokens)
	}
	return &Planner{cfg: cfg, cal: cal, cache: make(map[calKey]ServiceStats, 32)}, nil
}

// Config returns the planner's configuration with defaults applied.
func (pl *Planner) Config() Config { return pl.cfg }

// calibrate returns (cached) statistics of the traffic parts served by g at
// ctx.
//
// Monte Carlo results, slices starting at 0 (short and homogeneous pools,
// reused across γ) and mixtures are cached; exact single long-pool slices
// are cheaper to recompute (O(log buckets)) than to store, and each γ has
// its own.
//
// With countOnly (the sweep's sizing without a TTFT target) an exact
// mixture's P99 fields, which only the report and the SLO need, are skipped.
func (pl *Planner) calibrate(long bool, ctx int, parts partList, countOnly bool) (ServiceStats, PoolTiming, error) {
	g := pl.cfg.ShortGPU
	if long {
		g = pl.cfg.LongGPU
	}
	pt, err := PoolTimingOf(g, ctx, pl.cfg.Timing)
	if err != nil {
		return ServiceStats{}, pt, err
	}
	lo, hi, one := parts.slice()
	noP99 := countOnly && !one && pl.cfg.Calibration == CalibExact && pl.cfg.SLO == 0
	// A count-only mixture is its cell's own (b, γb): the sweep never asks
	// for it again, so it is not stored.
	useCache := (pl.cfg.Calibration != CalibExact || lo == 0 || !one) && !noP99
	k := calKey{parts.key, ctx, long, noP99}
	if useCache {
		if st, ok := pl.cache[k]; ok {
			return st, pt, nil
		}
	}
	var st ServiceStats
	if one {
		st, err = pl.cal.Calibrate(pl.cfg.Calibration, lo, hi, pt, pl.cfg.Seed)
	} else {
		if noP99 {
			var ok bool
			if st.MeanS, st.VarS, ok, err = pl.cal.mixMoments(parts.parts, pt); ok && err == nil {
				st.Method = CalibExact
				st.Cs2 = st.VarS / (st.MeanS * st.MeanS)
				st.MuGPU = float64(pt.Slots) / st.MeanS
			} else if !ok {
				st, err = pl.cal.exactMix(parts.parts, pt, false, &pl.scratch.mix)
			}
		} else {
			st, err = pl.cal.CalibrateMix(pl.cfg.Calibration, parts.parts, pt, pl.cfg.Seed)
		}
	}
	if err != nil {
		return st, pt, err
	}
	if useCache {
		pl.cache[k] = st
	}
	return st, pt, nil
}

// operatingIter is the iteration time of a pool at utilization rho: the
// paper preset's W + H·ϱ·n_slots, or the kv preset's W + (H/CalibCtx)·
// ϱ·n_slots·E[S·L]/E[S] (the context a busy slot holds on average).
func operatingIter(pt PoolTiming, st ServiceStats, rho float64) float64 {
	if pt.Preset == catalog.TimingPaper {
		return pt.W + pt.H*rho*float64(pt.Slots)
	}
	return pt.W + pt.H/float64(pt.CalibCtx)*rho*float64(pt.Slots)*st.KVLen
}

// sizePool calibrates and sizes one pool.
func (pl *Planner) sizePool(name string, long bool, ctx int, parts partList, lambda float64, headroom float64) (PoolPlan, error) {
	g := pl.cfg.ShortGPU
	if long {
		g = pl.cfg.LongGPU
	}
	st, pt, err := pl.calibrate(long, ctx, parts, false)
	if err != nil {
		return PoolPlan{}, fmt.Errorf("pool %s: %w", name, err)
	}
	lo, hi := parts.bounds()
	p := PoolPlan{Name: name, GPU: g.Name, MaxCtx: ctx, Slots: pt.Slots, SliceLo: lo, SliceHi: hi,
		ArrivalRate: lambda, MuGPU: st.MuGPU, MeanServiceS: st.MeanS, Cs2: st.Cs2,
		USDPerHour: g.CostPerHour, stats: st}
	if _, _, one := parts.slice(); !one {
		p.Mix = pl.mixReport(parts)
	}
	// Eq. 8 budget with the iteration time at the cap ρ_max (an upper bound
	// at any size the cap allows).
	iterCap := operatingIter(pt, st, pl.cfg.RhoMax)
	budget := math.Inf(1)
	if pl.cfg.SLO > 0 {
		budget = pl.cfg.SLO - float64(st.P99Iters)*iterCap - iterCap
		if !(budget > 0) {
			return PoolPlan{}, fmt.Errorf("slo-ttft-p99 %.4g s is below the %s pool's P99 prefill %.4g s + one iteration %.4g s (P99 length %d tokens, %d chunks at ϱ = %.2f): no fleet size meets it",
				pl.cfg.SLO, name, float64(st.P99Iters)*iterCap, iterCap, st.P99Len, st.P99Iters, pl.cfg.RhoMax)
		}
	}
	r, err := queueing.MinGPUs(queueing.SizeInput{Lambda: lambda, Slots: pt.Slots, MeanS: st.MeanS, Cs2: st.Cs2, WaitMax: budget, RhoMax: pl.cfg.RhoMax})
	if err != nil {
		return PoolPlan{}, fmt.Errorf("pool %s: %w", name, err)
	}
	p.GPUs, p.GPUsByRhoMax, p.Utilization, p.P99WaitS = r.GPUs, r.ByRhoMax, r.Utilization, r.P99Wait
	it := operatingIter(pt, st, r.Utilization)
	p.IterS = it
	p.P99PrefillS = float64(st.P99Iters) * it
	p.P99TTFTS = p.P99WaitS + p.P99PrefillS + it
	if lambda > 0 {
		p.ProfilerGPUs = int(math.Ceil(lambda / st.MuGPU * headroom * (1 - 1e-12)))
	}
	p.AnnualUSD = float64(p.GPUs) * g.CostPerHour * HoursPerYear
	if g.TP > 0 {
		p.TP = g.TP
	}
	return p, nil
}

// Homogeneous returns the homogeneous fleet: one pool at LongCtx on the
// long GPU serving every request.
func (pl *Planner) Homogeneous() (MethodPlan, error) {
	if pl.homo != nil {
		return *pl.homo, nil
	}
	c := pl.cfg
	p, err := pl.sizePool("homogeneous", true, c.LongCtx, plain(0, c.LongCtx), c.Rate, HeadroomHomo)
	if err != nil {
		return MethodPlan{}, err
	}
	m := MethodPlan{Method: MethodHomo, Calibration: c.Calibration, ShortCalibration: c.ShortCalibration, EstimateNoise: c.noise(), Alpha: 0, PC: c.PC, CliffRatio: 1,
		Pools: []PoolPlan{p}, TotalGPUs: p.GPUs, AnnualUSD: p.AnnualUSD, ProfilerGPUs: p.ProfilerGPUs,
		Corrected: c.Rate / p.MuGPU}
	pl.homo = &m
	return m, nil
}

// Split returns the two-pool fleet at boundary b and bandwidth gamma with
// compressibility pc (FleetOpt eq. 1–2 and Algorithm 1, lines 5–11): the
// short pool (max context b) receives α′λ with α′ = F(b) + p_c(F(γb) − F(b))
// and is calibrated on L <= b; the long pool receives (1 − α′)λ and is
// calibrated on L > floor(γb) (recalibrated after compression). When no
// request lies above γb but uncompressed borderline traffic remains
// (p_c < 1), the long pool is calibrated on L > b instead. A pool with no
// traffic is left out. method names the result.
//
// With Config.ShortCalibration = ShortCalibMix each pool is calibrated on
// the traffic it receives after C&R instead: the short pool on (0, b]
// (weight α) mixed with the compressed band (b, γb] (weight β·p_c, prompt
// cut to b − L_out, output kept), the long pool on (γb, ∞) mixed with the
// band's uncompressed 1 − p_c. With γ = 1 this is the paper's fleet
// exactly; with p_c = 0 it is the PR fleet exactly.
func (pl *Planner) Split(method string, b int, gamma, pc float64) (MethodPlan, error) {
	c := pl.cfg
	sh, err := pl.shape(b, gamma, pc, false)
	if err != nil {
		return MethodPlan{}, err
	}
	alpha, beta, ap, lamL := sh.alpha, sh.beta, sh.ap, sh.lamL
	m := MethodPlan{Method: method, Calibration: c.Calibration, ShortCalibration: c.ShortCalibration, EstimateNoise: c.noise(),
		BShort: b, Gamma: gamma, PC: pc, Alpha: alpha, Beta: beta, AlphaPrime: ap}
	short, err := pl.sizePool("short", false, b, sh.short, ap*c.Rate, HeadroomShort)
	if err != nil {
		return MethodPlan{}, err
	}
	m.Pools = append(m.Pools, short)
	var long *PoolPlan
	if sh.long.n > 0 {
		p, err := pl.sizePool("long", true, c.LongCtx, sh.long, lamL, HeadroomLong)
		if err != nil {
			return MethodPlan{}, err
		}
		m.Pools = append(m.Pools, p)
		long = &m.Pools[len(m.Pools)-1]
	}
	m.CliffRatio = float64(short.Slots) / float64(c.LongGPU.Slots(c.LongCtx))
	m.Archetype = Archetype(alpha, pl.cal.F(min(int(1.5*float64(b)), c.LongCtx))-alpha)
	for _, p := range m.Pools {
		m.TotalGPUs += p.GPUs
		m.AnnualUSD += p.AnnualUSD
		m.ProfilerGPUs += p.ProfilerGPUs
	}
	m.Corrected = ap * c.Rate / short.MuGPU
	if long != nil {
		m.Corrected += lamL / long.MuGPU
	}
	if err := pl.compare(&m, short.MuGPU); err != nil {
		return MethodPlan{}, err
	}
	return m, nil
}

// splitShape is the traffic split of a (B, γ, p_c) cell.
type splitShape struct {
	gb                    int      // floor(γB) capped at the long context
	gbc                   int      // top of the compressible band (mix: requests up to it keep a prompt budget; paper: gb)
	alpha, beta, ap, lamL float64  // F(B), F(γB)−F(B), α′, (1−α′)λ
	short, long           partList // each pool's calibration traffic; long.n == 0: no long pool
}

// With reuse (the sweep's cellCost) a mixture's parts live in the planner's
// scratch slices until the next call.
func (pl *Planner) shape(b int, gamma, pc float64, reuse bool) (splitShape, error) {
	c := pl.cfg
	if b < 1 || b >= c.LongCtx {
		return splitShape{}, fmt.Errorf("b-short %d tokens: must be in [1, %d)", b, c.LongCtx)
	}
	if !(gamma >= 1) {
		return splitShape{}, fmt.Errorf("gamma %v: must be >= 1", gamma)
	}
	maxT := pl.cal.CDF().Max()
	var sh splitShape
	sh.gb, sh.gbc = pl.band(b, gamma)
	mix := c.ShortCalibration == ShortCalibMix
	sh.alpha = pl.cal.F(b)
	sh.beta = pl.cal.F(sh.gb) - sh.alpha
	sh.ap = sh.alpha + (pl.cal.F(sh.gbc)-sh.alpha)*pc
	if !(sh.alpha > 0) {
		return splitShape{}, fmt.Errorf("b-short %d tokens: the short pool's CDF slice (0, %d] is empty (F(%d) = 0)", b, b, b)
	}
	sh.short = plain(0, b)
	if mix && pc > 0 && sh.gbc > b {
		sh.short, sh.long = pl.mixTraffic(b, sh.gb, sh.gbc, pc, reuse)
		// α′: what C&R really sends short (with estimate noise it is not
		// F(B) + p_c·β).
		sh.ap = sh.alpha
		prevX, prevF := -1, 0.0 // the band's runs are contiguous: F of a run's Lo is the last one's F(Hi)
		for _, p := range sh.short.parts[min(1, len(sh.short.parts)):] {
			fLo := prevF
			if p.Lo != prevX {
				fLo = pl.cal.F(p.Lo)
			}
			prevX, prevF = min(p.Hi, maxT), pl.cal.F(min(p.Hi, maxT))
			sh.ap += p.Scale * (prevF - fLo)
		}
	}
	sh.lamL = (1 - sh.ap) * c.Rate
	if !(sh.lamL > 1e-12*c.Rate) {
		sh.lamL = 0
		sh.long = partList{}
		return sh, nil
	}
	if mix {
		if sh.long.n == 0 { // no compression (p_c = 0 or no band): as PR
			sh.long = plain(b, c.LongCtx)
		}
		if !(1-pl.cal.F(b) > 0) {
			return splitShape{}, fmt.Errorf("b-short %d tokens: the long pool's CDF slice (%d, %d] is empty", b, b, c.LongCtx)
		}
		return sh, nil
	}
	lo := sh.gb
	if sh.gb >= maxT || !(1-pl.cal.F(sh.gb) > 0) {
		lo = b
	}
	if !(1-pl.cal.F(lo) > 0) {
		return splitShape{}, fmt.Errorf("b-short %d tokens: the long pool's CDF slice (%d, %d] is empty", b, lo, c.LongCtx)
	}
	sh.long = plain(lo, c.LongCtx)
	return sh, nil
}

// band returns ⌊γb⌋ (capped at the long context) and the top of the
// compressible band: under ShortCalibMix the router compresses only when
// T_c = B − L_out >= 1 (never for f = 0.8 and γ < 5; docs/planner.md §4),
// and with estimate noise the band reaches above γB.
func (pl *Planner) band(b int, gamma float64) (gb, gbc int) {
	c := pl.cfg
	gb = min(int(math.Floor(gamma*float64(b)*(1+1e-12))), c.LongCtx)
	gbc = gb
	if c.ShortCalibration == ShortCalibMix && gb > b {
		gbc = max(b, pl.cal.maxCompressible(b, gb))
		if c.EstimateNoise > 0 && gbc == gb { // the noise reaches above γB
			gbc = max(b, pl.cal.maxCompressible(b, pl.cal.CDF().Max()))
		}
	}
	return gb, gbc
}

// cellLowerBound returns a lower bound on the annual cost of cell (b, γ)
// under ShortCalibMix with estimate noise, without the noise integrals:
// whatever share p_c·q(L) of the edge zone C&R compresses, the short pool
// serves at least (0, b] and the compressed (b, zlo], the long pool at
// least the uncompressed 1 − p_c of (b, zhi) and all of (zhi, ∞); a pool
// of work W request-seconds per second needs at least W/(ρ_max·slots)
// GPUs (with no TTFT target the count is ceil of that; the short pool at
// least 1). ok is false when the bound does not apply (another model, a
// TTFT target, a cell without a compressible band, no prefix table).
func (pl *Planner) cellLowerBound(b int, gamma float64) (usd float64, ok bool) {
	c := pl.cfg
	if c.ShortCalibration != ShortCalibMix || c.Calibration != CalibExact || c.SLO != 0 || !(c.PC > 0) || pl.cal.wTo == nil {
		return 0, false
	}
	if b < 1 || b >= c.LongCtx || !(gamma >= 1) {
		return 0, false
	}
	gb, gbc := pl.band(b, gamma)
	if gbc <= b {
		return 0, false
	}
	zlo, zhi := pl.noiseZone(b, gb, gbc)
	pts, err := PoolTimingOf(c.ShortGPU, b, c.Timing)
	if err != nil {
		return 0, false
	}
	ptl, err := PoolTimingOf(c.LongGPU, c.LongCtx, c.Timing)
	if err != nil {
		return 0, false
	}
	var sbuf, lbuf [2]SlicePart
	short := append(sbuf[:0], SlicePart{Lo: 0, Hi: b, Scale: 1})
	if zlo > b {
		short = append(short, SlicePart{Lo: b, Hi: zlo, Scale: c.PC, CompressTo: b})
	}
	long := lbuf[:0]
	if c.PC < 1 && zhi > b {
		long = append(long, SlicePart{Lo: b, Hi: zhi, Scale: 1 - c.PC})
	}
	if zhi < pl.cal.CDF().Max() {
		long = append(long, SlicePart{Lo: zhi, Hi: c.LongCtx, Scale: 1})
	}
	work := func(parts []SlicePart, pt PoolTiming) (float64, bool) {
		ms, err := pl.cal.mixSums(parts)
		if err != nil {
			return 0, false
		}
		w, g := pt.iterCoef()
		return c.Rate * (w*ms.k + g*ms.kl) / (c.RhoMax * float64(pt.Slots)), true // GPUs at the cap
	}
	ns, ok := work(short, pts)
	if !ok {
		return 0, false
	}
	usd = max(1, ns) * c.ShortGPU.CostPerHour * HoursPerYear
	if len(long) > 0 {
		nl, ok := work(long, ptl)
		if !ok {
			return 0, false
		}
		if nl > 1e-6 { // a long pool with (almost) no traffic may be left out
			usd += nl * c.LongGPU.CostPerHour * HoursPerYear
		}
	}
	return usd * (1 - 1e-9), true
}

// mixReport describes a mixture for the plan output: adjacent slices of
// the same kind (compressed or not) are reported as one.
func (pl *Planner) mixReport(parts partList) []MixPart {
	var out []MixPart
	total := 0.0
	for _, p := range parts.parts {
		m := p.Scale * (pl.cal.F(min(p.Hi, pl.cal.CDF().Max())) - pl.cal.F(p.Lo))
		total += m
		if n := len(out); n > 0 && out[n-1].Hi == p.Lo && out[n-1].CompressTo == p.CompressTo {
			out[n-1].Hi = p.Hi
			out[n-1].Share += m
			continue
		}
		out = append(out, MixPart{Lo: p.Lo, Hi: p.Hi, Share: m, CompressTo: p.CompressTo})
	}
	for i := range out {
		out[i].Share /= total
	}
	return out
}

// sizeCount is sizePool's GPU count alone (no TTFT or report fields).
func (pl *Planner) sizeCount(long bool, ctx int, parts partList, lambda float64) (int, error) {
	st, pt, err := pl.calibrate(long, ctx, parts, true)
	if err != nil {
		return 0, err
	}
	budget := math.Inf(1)
	if pl.cfg.SLO > 0 {
		iterCap := operatingIter(pt, st, pl.cfg.RhoMax)
		budget = pl.cfg.SLO - float64(st.P99Iters+1)*iterCap
		if !(budget > 0) {
			lo, hi := parts.bounds()
			return 0, fmt.Errorf("slo-ttft-p99 %.4g s is below the P99 prefill + one iteration of the pool (%d, %d]", pl.cfg.SLO, lo, hi)
		}
	}
	r, err := queueing.MinGPUCount(queueing.SizeInput{Lambda: lambda, Slots: pt.Slots, MeanS: st.MeanS, Cs2: st.Cs2, WaitMax: budget, RhoMax: pl.cfg.RhoMax})
	return r.GPUs, err
}

// cellCost returns the annual cost and GPU count of cell (b, γ) without
// building its report: the inner loop of FleetOpt's sweep.
func (pl *Planner) cellCost(b int, gamma float64) (float64, int, error) {
	c := pl.cfg
	if !pl.noFast && c.ShortCalibration == ShortCalibPaper && c.Calibration == CalibExact && c.SLO == 0 {
		if usd, n, ok := pl.cellCostPaper(b, gamma); ok {
			return usd, n, nil
		}
	}
	sh, err := pl.shape(b, gamma, c.PC, true)
	if err != nil {
		return 0, 0, err
	}
	ns, err := pl.sizeCount(false, b, sh.short, sh.ap*c.Rate)
	if err != nil {
		return 0, 0, err
	}
	usd := float64(ns) * c.ShortGPU.CostPerHour * HoursPerYear
	nl := 0
	if sh.long.n > 0 {
		if nl, err = pl.sizeCount(true, c.LongCtx, sh.long, sh.lamL); err != nil {
			return 0, 0, err
		}
		usd += float64(nl) * c.LongGPU.CostPerHour * HoursPerYear
	}
	return usd, ns + nl, nil
}

// cellCostPaper is cellCost under the paper's model with exact
// calibration and no TTFT target, for the sweep: the same expressions as
// shape, sizeCount and Calibrator.Exact in the same order (so bit-identical
// results, pinned by TestPaperCellCostMatchesGeneral), without what the
// count does not use (the long pool's P99 quantile, β, the cache lookups
// and pool timings repeated per cell). ok is false whenever the general path
// could fail or take another branch; the caller then runs it, so errors are
// the general path's own.
func (pl *Planner) cellCostPaper(b int, gamma float64) (usd float64, n int, ok bool) {
	c := pl.cfg
	f := &pl.paper
	if f.bad || b < 1 || b >= c.LongCtx || !(gamma >= 1) {
		return 0, 0, false
	}
	cal := pl.cal
	if !f.init {
		ptl, err := PoolTimingOf(c.LongGPU, c.LongCtx, c.Timing)
		if err != nil {
			f.bad = true
			return 0, 0, false
		}
		f.init, f.ptl = true, ptl
		f.maxT = cal.CDF().Max()
		f.fMax = cal.F(f.maxT)
		f.wMax = cal.weightedTo(f.maxT)
	}
	if f.b != b {
		f.b, f.okB = b, false
		f.alpha = cal.F(b)
		if !(f.alpha > 0) {
			return 0, 0, false
		}
		st, pts, err := pl.calibrate(false, b, plain(0, b), true)
		if err != nil {
			return 0, 0, false
		}
		f.okB, f.pts, f.short = true, pts, st
	}
	if !f.okB {
		return 0, 0, false
	}
	gb, _ := pl.band(b, gamma) // paper: the compressible band ends at gb
	fgb := cal.F(gb)
	ap := f.alpha + (fgb-f.alpha)*c.PC
	rs, err := queueing.MinGPUCount(queueing.SizeInput{Lambda: ap * c.Rate, Slots: f.pts.Slots, MeanS: f.short.MeanS, Cs2: f.short.Cs2, WaitMax: math.Inf(1), RhoMax: c.RhoMax})
	if err != nil {
		return 0, 0, false
	}
	usd = float64(rs.GPUs) * c.ShortGPU.CostPerHour * HoursPerYear
	lamL := (1 - ap) * c.Rate
	if !(lamL > 1e-12*c.Rate) {
		return usd, rs.GPUs, true // no long pool
	}
	lo, flo := gb, fgb
	if gb >= f.maxT || !(1-fgb > 0) {
		lo, flo = b, f.alpha
	}
	if !(1-flo > 0) || lo >= c.LongCtx {
		return 0, 0, false
	}
	// Calibrator.Exact(lo, LongCtx): the slice ends at the CDF's maximum.
	mass := f.fMax - flo
	if !(mass > 0) {
		return 0, 0, false
	}
	st := f.wMax.sub(cal.weightedTo(lo)).exactStats(f.ptl, mass)
	rl, err := queueing.MinGPUCount(queueing.SizeInput{Lambda: lamL, Slots: f.ptl.Slots, MeanS: st.MeanS, Cs2: st.Cs2, WaitMax: math.Inf(1), RhoMax: c.RhoMax})
	if err != nil {
		return 0, 0, false
	}
	usd += float64(rl.GPUs) * c.LongGPU.CostPerHour * HoursPerYear
	return usd, rs.GPUs + rl.GPUs, true
}

// compare fills the savings against the homogeneous fleet.
func (pl *Planner) compare(m *MethodPlan, muShort float64) error {
	h, err := pl.Homogeneous()
	if err != nil {
		return err
	}
	hp := h.Pools[0]
	if h.AnnualUSD > 0 {
		m.Savings = 1 - m.AnnualUSD/h.AnnualUSD
	}
	rho := muShort / hp.MuGPU
	m.ClosedForm = m.AlphaPrime * (1 - 1/rho)
	if m.CliffRatio > 0 {
		m.ClosedCliff = m.AlphaPrime * (1 - 1/m.CliffRatio)
	}
	m.CorrectedSav = 1 - m.Corrected/h.Corrected
	return nil
}

// Archetype classifies a workload at a boundary (FleetOpt §2.4) from
// α = F(B) and the borderline fraction β = F(1.5B) − F(B): "III"
// (concentrated above) when α < 0.5; "I" (concentrated below) when
// α >= 0.85 and the borderline band holds at least half of the traffic
// above B; "II" (dispersed) otherwise. FleetOpt Table 2 labels Azure
// (α = 0.898, β/(1−α) = 0.76) and LMSYS (0.909, 0.51) "I/II" and
// agent-heavy (0.740) "II"; these thresholds give I, I and II.
func Archetype(alpha, beta float64) string {
	switch {
	case alpha < 0.5:
		return "III"
	case alpha >= 0.85 && (alpha >= 1 || beta/(1-alpha) >= 0.5):
		return "I"
	}
	return "II"
}

// PR returns the pool-routing fleet at the configured B_short (γ = 1).
func (pl *Planner) PR() (MethodPlan, error) {
	if pl.cfg.BShort == 0 {
		return MethodPlan{}, fmt.Errorf("b-short: required for method pr")
	}
	return pl.Split(MethodPR, pl.cfg.BShort, 1, pl.cfg.PC)
}

// Retrofit returns PR + C&R at the configured B_short and γ: the short pool
// is co-sized for the compressed α′λ and the long pool recalibrated on the
// requests above γB (FleetOpt §7.1 baseline 3).
func (pl *Planner) Retrofit() (MethodPlan, error) {
	if pl.cfg.BShort == 0 {
		return MethodPlan{}, fmt.Errorf("b-short: required for method retrofit")
	}
	return pl.Split(MethodRetrofit, pl.cfg.BShort, pl.cfg.Gamma, pl.cfg.PC)
}

// Candidates returns FleetOpt's hardware-feasible boundaries: the CDF
// breakpoints B below the long context at which one short GPU holds at least
// one max-length sequence and the short slice is not empty.
func (pl *Planner) Candidates() []int {
	var out []int
	for _, p := range pl.cal.CDF().Points {
		b := p.Tokens
		if b >= pl.cfg.LongCtx || pl.cfg.ShortGPU.Slots(b) < 1 || !(p.F > 0) {
			continue
		}
		out = append(out, b)
	}
	return out
}

// Cell is one (B, γ) cell of the FleetOpt sweep.
type Cell struct {
	BShort int
	Gamma  float64
	Plan   MethodPlan // the fleet; zero when Err is set
	Err    error      // why the cell is infeasible (e.g. the SLO)
}

// Sweep evaluates every candidate B × γ cell (Algorithm 1, lines 3–13).
func (pl *Planner) Sweep(bs []int, gammas []float64) []Cell {
	cells := make([]Cell, 0, len(bs)*len(gammas))
	for _, b := range bs {
		for _, g := range gammas {
			p, err := pl.Split(MethodFleetOpt, b, g, pl.cfg.PC)
			cells = append(cells, Cell{BShort: b, Gamma: g, Plan: p, Err: err})
		}
	}
	return cells
}

// FleetOpt returns the cheapest feasible cell of the sweep over
// Candidates() × Gammas (ties: fewer GPUs, then smaller B, then smaller γ).
//
// With Config.FixB the boundary stays at BShort and only γ is swept, as in
// FleetOpt Table 3.
//
// Under ShortCalibMix with estimate noise (and exact calibration, no TTFT
// target) cells whose cost lower bound (cellLowerBound) exceeds a known
// cell's cost are skipped; the result is the full sweep's
// (docs/planner.md §8). SweepCells still counts every cell.
func (pl *Planner) FleetOpt() (MethodPlan, error) {
	bs := pl.Candidates()
	if pl.cfg.FixB {
		if pl.cfg.BShort == 0 {
			return MethodPlan{}, fmt.Errorf("b-short: required for fleetopt with a fixed boundary")
		}
		bs = []int{pl.cfg.BShort}
	}
	type cand struct {
		b     int
		g     float64
		usd   float64
		gpus  int
		valid bool
	}
	var best cand
	var firstErr error
	n := 0
	// Pruning (mix with estimate noise, no TTFT target): a cell whose
	// lower bound (cellLowerBound) is above the cost of a known cell by
	// more than the tie tolerance can be neither the winner nor, as costs
	// of different fleets differ by far more than 1e-9, change which equal
	// cell wins; it is skipped with its noise integrals. The known cell is
	// the one of least bound (evaluated first) or the best so far. The
	// winner is the full sweep's (tested against a sweep without pruning).
	prune := pl.cfg.EstimateNoise > 0 && !pl.noPrune
	var lbs []float64
	seed, seedUSD, seedGPUs := -1, math.Inf(1), 0
	var seedErr error
	if prune {
		lbs = make([]float64, 0, len(bs)*len(pl.cfg.Gammas))
		for _, b := range bs {
			for _, g := range pl.cfg.Gammas {
				lb, ok := pl.cellLowerBound(b, g)
				if !ok {
					lb = math.Inf(-1)
				}
				if ok && (seed < 0 || lb < lbs[seed]) {
					seed = len(lbs)
				}
				lbs = append(lbs, lb)
			}
		}
		if seed >= 0 {
			b, g := bs[seed/len(pl.cfg.Gammas)], pl.cfg.Gammas[seed%len(pl.cfg.Gammas)]
			seedUSD, seedGPUs, seedErr = pl.cellCost(b, g)
			if seedErr != nil {
				seedUSD = math.Inf(1)
			}
		}
	}
	for _, b := range bs {
		for _, g := range pl.cfg.Gammas {
			i := n
			n++
			var usd float64
			var gpus int
			var err error
			if i == seed {
				usd, gpus, err = seedUSD, seedGPUs, seedErr
			} else {
				if prune {
					u := seedUSD
					if best.valid {
						u = min(u, best.usd)
					}
					if lbs[i] > u*(1+1e-6) {
						pl.pruned++
						continue
					}
				}
				usd, gpus, err = pl.cellCost(b, g)
			}
			if err != nil {
				if firstErr == nil {
					firstErr = err
				}
				continue
			}
			if !best.valid || usd < best.usd*(1-1e-9) || (usd <= best.usd*(1+1e-9) && gpus < best.gpus) {
				best = cand{b, g, usd, gpus, true}
			}
		}
	}
	if !best.valid {
		if firstErr == nil {
			firstErr = fmt.Errorf("no candidate boundary (CDF breakpoints below %d tokens that fit the %s KV budget)", pl.cfg.LongCtx, pl.cfg.ShortGPU.Name)
		}
		return MethodPlan{}, fmt.Errorf("fleetopt: no feasible (B, γ): %w", firstErr)
	}
	m, err := pl.Split(MethodFleetOpt, best.b, best.g, pl.cfg.PC)
	if err != nil {
		return MethodPlan{}, err
	}
	m.SweepCells = n
	return m, nil
}

// Run plans the named methods (Methods() when empty) into a Plan.
func (pl *Planner) Run(methods []string) (Plan, error) {
	c := pl.cfg
	out := Plan{Workload: pl.cal.CDF().Name, Rate: c.Rate, SLOTTFTP99S: c.SLO, RhoMax: c.RhoMax,
		Calibration: c.Calibration, ShortCalibration: c.ShortCalibration, EstimateNoise: c.noise(), Timing: c.Timing, InputFraction: pl.cal.frac, ChunkTokens: pl.cal.chunk}
	if IsMonteCarlo(c.Calibration) {
		out.Samples, out.Seed = MCSamples, c.Seed
	}
	if len(methods) == 0 {
		methods = Methods()
	}
	for _, name := range methods {
		var m MethodPlan
		var err error
		switch name {
		case MethodHomo:
			m, err = pl.Homogeneous()
		case MethodPR:
			m, err = pl.PR()
		case MethodRetrofit:
			m, err = pl.Retrofit()
		case MethodFleetOpt:
			m, err = pl.FleetOpt()
		default:
			err = fmt.Errorf("method %q: allowed homo, pr, retrofit, fleetopt, all", name)
		}
		if err != nil {
			return Plan{}, err
		}
		out.Methods = append(out.Methods, m)
	}
	return out, nil
}
