// This file: the smallest fleet that meets latency targets in simulation
// (`fleetsim size`, docs/experiments.md "Sizing by simulation").

package sweep

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/fleetsim/fleetsim/pools/catalog"
	"github.com/fleetsim/fleetsim/pools/fleetopt"
	"github.com/fleetsim/fleetsim/pools/occupancy"
	"github.com/fleetsim/fleetsim/pools/queueing"
	"github.com/fleetsim/fleetsim/router"
	"github.com/fleetsim/fleetsim/sim"
	"github.com/fleetsim/fleetsim/workload"
)

// SizeConfig is a sizing problem: the planning inputs of `fleetsim plan`,
// the targets every seed must meet, and the simulation's sample sizes.
type SizeConfig struct {
	Workload string  // azure, lmsys, agent-heavy or a CDF JSON file
	Rate     float64 // λ, requests/s
	Method   string  // homo, pr (default), retrofit, fleetopt
	BShort   int     // short-pool boundary, tokens (pr, retrofit)
	Gamma    float64 // retrofit γ (default 1.5)
	PC       float64 // p_c (default 1)
	GPU      string  // short-pool GPU (default a100)
	GPULong  string  // long/homogeneous GPU (default GPU)
	Timing   string  // kv (default) or paper
	// RhoMax is the analytic planners' utilization cap (default 0.85): it
	// sizes the paper model's fleet.
	RhoMax float64
	// Targets, checked on every pool of every seed; 0 = none. At least one
	// of SLOTTFTS and SLOTPOTS is needed.
	SLOTTFTS float64 // P99 TTFT, s
	SLOTPOTS float64 // P99 TPOT, s
	UtilCap  float64 // measured slot utilization, in (0, 1)
	Seeds    int     // K: seeds 1..K (>= 1; default 3)
	// ConfirmSeeds is the number of fresh seeds K+1..K+ConfirmSeeds the
	// chosen count must also pass (default K); a count that fails there is
	// raised one GPU at a time until it passes.
	ConfirmSeeds int
	// Requests is N, the fleet requests of one run (default 300,000):
	// each pool's run is its part of a whole-fleet `simulate --requests N
	// --warmup 0.2`, N raised until the warm-up covers five mean slot times
	// of the pool. A run whose P99 confidence interval straddles a target
	// is repeated with 2N, up to MaxWindowScale·N.
	Requests int
	// Workers runs seeds in parallel (default GOMAXPROCS). Results do not
	// depend on it.
	Workers int
	// Progress, when set, receives one line per simulated candidate.
	Progress func(msg string)
	// Stop, when set, interrupts the simulations (sim.Options.Stop): Size
	// then returns sim.ErrStopped.
	Stop func() bool
	// Disaggregated sizes every pool as prefill + decode instances
	// (sizedisagg.go; homo and pr only), over DisaggLink (nil = the GPU's
	// interconnect).
	Disaggregated bool
	DisaggLink    *catalog.KVLink
}

// SizeSeed is one seed's measurement of a pool at the chosen size.
type SizeSeed struct {
	Seed    uint64  `json:"seed"`
	P99TTFT float64 `json:"p99_ttft_s"`
	P99TPOT float64 `json:"p99_tpot_s"`
	// TTFTHalfWidth and TPOTHalfWidth are the half-widths of the 95%
	// confidence intervals of the P99s (batch quantiles, see
	// p99HalfWidth), s.
	TTFTHalfWidth float64 `json:"p99_ttft_ci_half_width_s"`
	TPOTHalfWidth float64 `json:"p99_tpot_ci_half_width_s"`
	// Measured is the number of measured (post-warm-up) requests of the
	// run that decided, and Scale its multiple of the first window.
	Measured int `json:"measured_requests"`
	Scale    int `json:"window_scale"`
	// Unclear is set when the interval still straddled a target at the
	// largest window: the seed then counts as failing.
	Unclear bool    `json:"unclear,omitempty"`
	Util    float64 `json:"slot_utilization"`
	// Rejected counts the pool's rejections: router misroutes only (size
	// sets no queue limit), so they do not depend on the GPU count and do
	// not fail a candidate.
	Rejected int64 `json:"rejected"`
}

// PoolSize is one pool's answer.
type PoolSize struct {
	Name   string `json:"name"`
	GPU    string `json:"gpu"`
	MaxCtx int    `json:"max_ctx"`
	Slots  int    `json:"slots"`
	// ArrivalRate is the planner's λ_p, requests/s.
	ArrivalRate float64 `json:"arrival_rate"`
	// GPUsPaper is the paper model's count (with the TTFT target when the
	// paper model can meet it, else at the utilization cap only:
	// SizeResult.PaperNote says so).
	GPUsPaper int `json:"gpus_analytic_paper"`
	// GPUsOccupancy is the occupancy model's smallest count meeting the
	// same targets (utilization cap UtilCap, or stability when none).
	GPUsOccupancy int `json:"gpus_analytic_occupancy"`
	// GPUsSim is the smallest count every seed accepts; GPUsSim − 1 failed
	// on at least one seed (unless GPUsSim = 1).
	GPUsSim   int     `json:"gpus_simulated"`
	AnnualUSD float64 `json:"annual_cost_usd"` // at GPUsSim
	// Worst over seeds at GPUsSim, and the margins to the targets
	// (1 − worst/target; absent without that target).
	WorstP99TTFT float64    `json:"worst_p99_ttft_s"`
	WorstP99TPOT float64    `json:"worst_p99_tpot_s"`
	WorstUtil    float64    `json:"worst_slot_utilization"`
	MarginTTFT   *float64   `json:"margin_ttft,omitempty"`
	MarginTPOT   *float64   `json:"margin_tpot,omitempty"`
	MarginUtil   *float64   `json:"margin_util,omitempty"`
	Seeds        []SizeSeed `json:"seeds"`
	// GPUsSearch is the count the search on seeds 1..K chose; GPUsSim
	// exceeds it by the GPUs the confirmation on fresh seeds added.
	GPUsSearch int `json:"gpus_search"`
	// Confirm holds the fresh seeds' runs at GPUsSim.
	Confirm     []SizeSeed `json:"confirm_seeds"`
	Evaluations int        `json:"candidates_simulated"`
	// WarmupS is the shortest warm-up of a run (five occupancy-model mean
	// slot times), s.
	WarmupS float64 `json:"warmup_s"`
	// Disagg is set for a disaggregated pool (GPUsSim = prefill + decode).
	Disagg *DisaggSize `json:"disaggregated,omitempty"`
}

// SizeResult is the sized fleet.
type SizeResult struct {
	Workload string  `json:"workload"`
	Rate     float64 `json:"rate"`
	Method   string  `json:"method"`
	BShort   int     `json:"b_short,omitempty"`
	Gamma    float64 `json:"gamma,omitempty"`
	PC       float64 `json:"p_c,omitempty"`
	Router   string  `json:"router"`
	Timing   string  `json:"timing"`
	SLOTTFTS float64 `json:"slo_ttft_p99_s"`
	SLOTPOTS float64 `json:"slo_tpot_p99_s"`
	UtilCap  float64 `json:"util_cap"`
	RhoMax   float64 `json:"rho_max"`
	Seeds    int     `json:"seeds"`
	Requests int     `json:"measured_requests_per_pool"`
	// Interaction says how the pools were searched (independently, or in
	// the full fleet with the other pools held).
	Interaction string `json:"interaction"`
	// PaperNote is set when the paper model cannot meet the TTFT target:
	// its counts are then at ρ_max only.
	PaperNote      string     `json:"paper_note,omitempty"`
	Pools          []PoolSize `json:"pools"`
	GPUsPaper      int        `json:"gpus_analytic_paper"`
	GPUsOccupancy  int        `json:"gpus_analytic_occupancy"`
	GPUsSim        int        `json:"gpus_simulated"`
	AnnualUSD      float64    `json:"annual_cost_usd"`
	AnnualUSDPaper float64    `json:"annual_cost_usd_paper"`
}

// Defaults of SizeConfig.
const (
	DefaultSeeds        = 3
	DefaultSizeRequests = 300000
	// warmupServiceTimes is the shortest warm-up, in mean slot times of
	// the pool: with the warm-up 20% of the run (sizeWarmup), the window
	// is then at least 20 mean slot times. A window of 6 (the old 50,000
	// requests) was too short: Azure's short pool (34 GPUs) measured 0.263
	// s at utilization 0.901 there, 0.276 s at 0.945 over 26 slot times.
	warmupServiceTimes = 5
	// sizeWarmup is the warm-up fraction of every run: simulate's default.
	sizeWarmup = 0.2
	// MaxWindowScale bounds the window doublings of an unclear run.
	MaxWindowScale = 4
	// MaxSizeRunRequests bounds the requests of one run (warm-up and
	// window, the whole stream drawn for a length-routed pool); a problem
	// needing more is refused (a lower rate, or 'fleetsim plan').
	MaxSizeRunRequests = 20_000_000
)

// sizer holds one search.
type sizer struct {
	cfg    SizeConfig
	cdf    *workload.CDF
	plan   fleetopt.MethodPlan
	frac   float64
	router sim.RouterConfig
	// counts are the pools' current counts (while one pool of a C&R
	// fleet is searched, the others are held at theirs: the occupancy
	// count until searched, the simulated count after).
	counts []int
	warm   []float64 // warm-up, s, per pool
	// shape, when set, turns the searched pool's configuration at count n
	// into a disaggregated one (sizedisagg.go).
	shape func(pc *sim.PoolConfig, n int)
}

// Size finds, pool by pool, the smallest GPU count at which every seed
// meets every target (docs/experiments.md "Sizing by simulation").
func Size(cfg SizeConfig) (*SizeResult, error) {
	c, err := checkSize(cfg)
	if err != nil {
		return nil, err
	}
	short, long, err := catalog.LookupPoolGPUs(c.GPU, c.GPULong)
	if err != nil {
		return nil, err
	}
	cdf, err := workload.LoadCDF(c.Workload)
	if err != nil {
		return nil, err
	}
	cal, err := fleetopt.NewCalibrator(cdf, workload.DefaultInputFraction, short.ChunkTokens)
	if err != nil {
		return nil, fmt.Errorf("workload %q: %w", c.Workload, err)
	}
	pcfg := fleetopt.Config{Rate: c.Rate, RhoMax: c.RhoMax, ShortGPU: short, LongGPU: long, BShort: c.BShort,
		Gamma: c.Gamma, PC: c.PC, Timing: PlannerTiming(c.Timing, c.Disaggregated), ShortCalibration: fleetopt.ShortCalibMix,
		EstimateNoise: workload.BytesJitter, FixB: c.Method == fleetopt.MethodFleetOpt && c.BShort > 0}
	// The paper model with the TTFT target; where that target is below a
	// pool's prefill under the paper model, the cap-only fleet.
	paperNote := ""
	pcfg.SLO = c.SLOTTFTS
	paper, perr := plan(cal, pcfg, c.Method)
	if perr != nil {
		pcfg.SLO = 0
		if paper, err = plan(cal, pcfg, c.Method); err != nil {
			return nil, err
		}
		paperNote = "the paper model cannot meet the TTFT target (" + perr.Error() + "); its counts are at ρ_max only"
	}
	pcfg.SLO = 0
	pl, err := fleetopt.NewPlanner(cal, pcfg)
	if err != nil {
		return nil, err
	}
	pp, err := pl.Run([]string{c.Method})
	if err != nil {
		return nil, err
	}
	capU := c.UtilCap
	if capU == 0 {
		capU = 0.999 // stability only
	}
	if err := pl.ApplyOccupancy(&pp, occupancy.Targets{RhoMax: capU, P99TTFTS: c.SLOTTFTS, P99TPOTS: c.SLOTPOTS}); err != nil {
		return nil, err
	}
	m := pp.Methods[0]
	s := &sizer{cfg: c, cdf: cdf, plan: m, frac: pp.InputFraction}
	res := &SizeResult{Workload: cdf.Name, Rate: c.Rate, Method: m.Method, BShort: m.BShort, Gamma: m.Gamma, PC: m.PC,
		Timing: c.Timing, SLOTTFTS: c.SLOTTFTS, SLOTPOTS: c.SLOTPOTS, UtilCap: c.UtilCap, RhoMax: pp.RhoMax,
		Seeds: c.Seeds, Requests: c.Requests, PaperNote: paperNote}
	s.router = sim.RouterConfig{Config: router.Config{Kind: sim.RouterLength}}
	res.Interaction = "length router: a request's pool depends on its length only, so each pool is simulated alone on the requests routed to it (the same requests for every candidate and seed)"
	if m.Gamma > 1 && len(m.Pools) == 2 {
		s.router = sim.RouterConfig{Config: router.Config{Kind: sim.RouterCR, BShort: m.BShort, Gamma: m.Gamma, PC: m.PC}}
		res.Interaction = "compress-and-route: the router's decisions do not depend on pool load, so each pool is searched in the full fleet with the other pool held at its current count — occupancy-model until searched, simulated after (every candidate sees the same requests and decisions)"
	}
	res.Router = s.router.Kind
	for _, p := range m.Pools {
		s.counts = append(s.counts, p.GPUs)
		s.warm = append(s.warm, warmupServiceTimes*p.MeanServiceS)
	}
	for i, p := range m.Pools {
		if n := s.runRequests(i, 1); n > MaxSizeRunRequests {
			return nil, fmt.Errorf("rate %v requests/s: a run of pool %s needs %d fleet requests (its warm-up, %d%% of the run, must cover %d mean slot times of %.3g s), more than the %d size simulates; lower the rate or use 'fleetsim plan --service-model occupancy'",
				c.Rate, p.Name, n, int(100*sizeWarmup), warmupServiceTimes, p.MeanServiceS, MaxSizeRunRequests)
		}
	}
	for i, p := range m.Pools {
		ps := PoolSize{Name: p.Name, GPU: p.GPU, MaxCtx: p.MaxCtx, Slots: p.Slots, ArrivalRate: p.ArrivalRate,
			GPUsPaper: paper.Pools[i].GPUs, GPUsOccupancy: p.GPUs, WarmupS: s.warm[i]}
		search := s.search
		if c.Disaggregated {
			search = s.searchDisagg
		}
		if err := search(i, &ps); err != nil {
			return nil, err
		}
		g, _ := catalog.LookupGPU(p.GPU)
		ps.AnnualUSD = float64(ps.GPUsSim) * g.CostPerHour * fleetopt.HoursPerYear
		res.Pools = append(res.Pools, ps)
		res.GPUsPaper += ps.GPUsPaper
		res.GPUsOccupancy += ps.GPUsOccupancy
		res.GPUsSim += ps.GPUsSim
		res.AnnualUSD += ps.AnnualUSD
		res.AnnualUSDPaper += float64(ps.GPUsPaper) * g.CostPerHour * fleetopt.HoursPerYear
	}
	return res, nil
}

func plan(cal *fleetopt.Calibrator, cfg fleetopt.Config, method string) (fleetopt.MethodPlan, error) {
	pl, err := fleetopt.NewPlanner(cal, cfg)
	if err != nil {
		return fleetopt.MethodPlan{}, err
	}
	p, err := pl.Run([]string{method})
	if err != nil {
		return fleetopt.MethodPlan{}, err
	}
	return p.Methods[0], nil
}

// checkSize fills defaults and rejects bad input with one line naming the
// field.
func checkSize(c SizeConfig) (SizeConfig, error) {
	if c.Method == "" {
		c.Method = fleetopt.MethodPR
	}
	if c.GPU == "" {
		c.GPU = "a100"
	}
	if c.GPULong == "" {
		c.GPULong = c.GPU
	}
	if c.Timing == "" {
		c.Timing = catalog.DefaultTiming
	}
	if c.RhoMax == 0 {
		c.RhoMax = queueing.DefaultRhoMax
	}
	if c.Gamma == 0 {
		c.Gamma = 1.5
	}
	if c.PC == 0 {
		c.PC = 1
	}
	if c.Requests == 0 {
		c.Requests = DefaultSizeRequests
	}
	if c.ConfirmSeeds == 0 {
		c.ConfirmSeeds = c.Seeds
	}
	if c.Workers <= 0 {
		c.Workers = runtime.GOMAXPROCS(0)
	}
	finite := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	switch {
	case c.Workload == "":
		return c, fmt.Errorf("workload \"\": allowed %s or a CDF JSON file", strings.Join(workload.BuiltinCDFs(), ", "))
	case !(c.Rate > 0 && c.Rate <= fleetopt.MaxRate):
		return c, fmt.Errorf("rate %v requests/s: must be in (0, %g]", c.Rate, fleetopt.MaxRate)
	case c.Seeds < 1:
		return c, fmt.Errorf("seeds %d: must be >= 1 (every seed must meet every target)", c.Seeds)
	case c.Seeds > 1000:
		return c, fmt.Errorf("seeds %d: must be <= 1000", c.Seeds)
	case c.ConfirmSeeds < 1 || c.ConfirmSeeds > 1000:
		return c, fmt.Errorf("confirm-seeds %d: must be in [1, 1000] (0: as many as seeds)", c.ConfirmSeeds)
	case c.Requests < 100:
		return c, fmt.Errorf("requests %d: must be >= 100 measured requests per pool", c.Requests)
	case !(c.SLOTTFTS >= 0) || !finite(c.SLOTTFTS):
		return c, fmt.Errorf("slo-ttft-p99 %v s: must be finite and >= 0", c.SLOTTFTS)
	case !(c.SLOTPOTS >= 0) || !finite(c.SLOTPOTS):
		return c, fmt.Errorf("slo-tpot-p99 %v s: must be finite and >= 0", c.SLOTPOTS)
	case c.SLOTTFTS == 0 && c.SLOTPOTS == 0:
		return c, errors.New("slo-ttft-p99 0 and slo-tpot-p99 0: size needs a latency target (e.g. --slo-ttft-p99 500ms)")
	case !(c.UtilCap >= 0 && c.UtilCap < 1):
		return c, fmt.Errorf("util-cap %v: must be in (0, 1) (0 = none)", c.UtilCap)
	}
	switch c.Method {
	case fleetopt.MethodHomo, fleetopt.MethodPR, fleetopt.MethodRetrofit, fleetopt.MethodFleetOpt:
	default:
		return c, fmt.Errorf("method %q: allowed homo, pr, retrofit, fleetopt", c.Method)
	}
	if c.Method != fleetopt.MethodHomo && c.Method != fleetopt.MethodFleetOpt && c.BShort == 0 {
		return c, fmt.Errorf("b-short 0: method %s needs a short-pool boundary in tokens (e.g. 4096)", c.Method)
	}
	if c.Method == fleetopt.MethodHomo {
		c.BShort = 0
	}
	return c, checkDisagg(c)
}

// outcome is one seed's run of one candidate.
type outcome struct {
	SizeSeed
	ok  bool
	err error
}

// search finds pool i's smallest accepted count: start at the occupancy
// model's count n0, gallop (±s, 2s, 4s, …, s = max(1, n0/64)) to a bracket
// [fail, pass], then bisect. Every candidate is judged on the same seeds.
func (s *sizer) search(i int, ps *PoolSize) error {
	cache := map[int][]outcome{}
	eval := func(n int) (bool, []outcome, error) {
		if r, ok := cache[n]; ok {
			return accepted(r), r, nil
		}
		r, err := s.evaluate(i, n, s.searchSeeds())
		if err != nil {
			return false, nil, err
		}
		cache[n] = r
		ps.Evaluations++
		if s.cfg.Progress != nil {
			verdict := "meets the targets on every seed"
			if !accepted(r) {
				verdict = "fails"
			}
			s.cfg.Progress(fmt.Sprintf("pool %s: %d GPUs %s (worst P99 TTFT %.3f s, TPOT %.4f s, util %.3f)", ps.Name, n, verdict, worst(r).P99TTFT, worst(r).P99TPOT, worst(r).Util))
		}
		return accepted(r), r, nil
	}
	n0 := max(1, ps.GPUsOccupancy)
	ok, _, err := eval(n0)
	if err != nil {
		return err
	}
	lo, hi := 0, 0 // lo fails (0: none known), hi passes
	// The first step is 1/64 of the start (at least 1): the occupancy
	// model is within a few percent of the answer, so large pools bracket
	// it in a few candidates.
	first := max(1, n0/64)
	if ok {
		hi = n0
		for step := first; ; step *= 2 {
			n := hi - step
			if n < 1 {
				n = 1
			}
			if n == hi {
				break
			}
			ok, _, err := eval(n)
			if err != nil {
				return err
			}
			if !ok {
				lo = n
				break
			}
			hi = n
			if n == 1 {
				break
			}
		}
	} else {
		lo = n0
		for step := first; ; step *= 2 {
			n := lo + step
			if n > 4*n0+1000 {
				return fmt.Errorf("pool %s: no count up to %d GPUs meets the targets on every seed (a target below what the simulator can reach?)", ps.Name, n)
			}
			ok, _, err := eval(n)
			if err != nil {
				return err
			}
			if ok {
				hi = n
				break
			}
			lo = n
		}
	}
	for lo > 0 && hi-lo > 1 {
		mid := lo + (hi-lo)/2
		ok, _, err := eval(mid)
		if err != nil {
			return err
		}
		if ok {
			hi = mid
		} else {
			lo = mid
		}
	}
	// Confirmation on fresh seeds: the search's seeds chose hi; seeds it
	// never saw must agree, else the count goes up by confirmStep at a
	// time (and is re-checked on the search's seeds too).
	ps.GPUsSearch = hi
	fresh := make([]uint64, s.cfg.ConfirmSeeds)
	for k := range fresh {
		fresh[k] = uint64(s.cfg.Seeds + 1 + k)
	}
	for bump := 0; ; bump++ {
		r, err := s.evaluate(i, hi, fresh)
		if err != nil {
			return err
		}
		if s.cfg.Progress != nil {
			verdict := "confirmed on fresh seeds"
			if !accepted(r) {
				verdict = "fails on a fresh seed"
			}
			s.cfg.Progress(fmt.Sprintf("pool %s: %d GPUs %s (worst P99 TTFT %.3f s)", ps.Name, hi, verdict, worst(r).P99TTFT))
		}
		if accepted(r) {
			ps.Confirm = seedsOf(r)
			break
		}
		if bump >= maxConfirmBumps {
			return fmt.Errorf("pool %s: %d GPUs still fail on a fresh seed after %d added by the confirmation", ps.Name, hi, hi-ps.GPUsSearch)
		}
		hi += confirmStep(ps.GPUsSearch)
		if _, _, err := eval(hi); err != nil {
			return err
		}
	}
	ps.GPUsSim = hi
	s.counts[i] = hi
	r := cache[hi]
	w := worst(r)
	ps.WorstP99TTFT, ps.WorstP99TPOT, ps.WorstUtil = w.P99TTFT, w.P99TPOT, w.Util
	margin := func(v, t float64) *float64 {
		if t == 0 {
			return nil
		}
		m := 1 - v/t
		return &m
	}
	ps.MarginTTFT = margin(w.P99TTFT, s.cfg.SLOTTFTS)
	ps.MarginTPOT = margin(w.P99TPOT, s.cfg.SLOTPOTS)
	ps.MarginUtil = margin(w.Util, s.cfg.UtilCap)
	ps.Seeds = seedsOf(r)
	return nil
}

// maxConfirmBumps bounds the confirmation's steps.
const maxConfirmBumps = 16

// confirmStep is the confirmation's step from a search count of n: one
// GPU, or n/256 for pools of more than 256 (agent-heavy's long pool, 1,600
// GPUs, would otherwise climb by 1/1,600 per step, each step simulating
// 2K seeds).
func confirmStep(n int) int { return max(1, n/256) }

func seedsOf(r []outcome) []SizeSeed {
	out := make([]SizeSeed, len(r))
	for k, o := range r {
		out[k] = o.SizeSeed
	}
	return out
}

func accepted(r []outcome) bool {
	if len(r) == 0 {
		return false
	}
	for _, o := range r {
		if !o.ok {
			return false
		}
	}
	return true
}

func worst(r []outcome) SizeSeed {
	var w SizeSeed
	for _, o := range r {
		w.P99TTFT = math.Max(w.P99TTFT, o.P99TTFT)
		w.P99TPOT = math.Max(w.P99TPOT, o.P99TPOT)
		w.Util = math.Max(w.Util, o.Util)
	}
	return w
}

// searchSeeds are the seeds 1..K of the search.
func (s *sizer) searchSeeds() []uint64 {
	out := make([]uint64, s.cfg.Seeds)
	for k := range out {
		out[k] = uint64(k + 1)
	}
	return out
}

// evaluate simulates pool i at n GPUs on every seed given. Seeds run in
// batches of Workers; after a batch with a failing seed the rest are
// skipped (the candidate is rejected either way, so the search does not
// depend on the batch size).
func (s *sizer) evaluate(i, n int, seeds []uint64) ([]outcome, error) {
	K := len(seeds)
	var out []outcome
	for b := 0; b < K; b += s.cfg.Workers {
		e := min(K, b+s.cfg.Workers)
		batch := make([]outcome, e-b)
		var wg sync.WaitGroup
		for j := b; j < e; j++ {
			wg.Add(1)
			go func(j int) {
				defer wg.Done()
				batch[j-b] = s.judge(i, n, seeds[j])
			}(j)
		}
		wg.Wait()
		fail := false
		for _, o := range batch {
			if o.err != nil {
				return nil, o.err
			}
			fail = fail || !o.ok
		}
		out = append(out, batch...)
		if fail {
			break
		}
	}
	return out, nil
}

// EvaluatePool simulates pool i of a sized result's problem at n GPUs on
// every seed and reports whether all meet the targets (for tests and
// re-checks).
func EvaluatePool(cfg SizeConfig, res *SizeResult, i, n int) (bool, []SizeSeed, error) {
	s, err := newSizer(cfg, res)
	if err != nil {
		return false, nil, err
	}
	c := s.cfg
	s.cfg.Workers = 1
	r := make([]outcome, c.Seeds)
	all := true
	var seeds []SizeSeed
	for k := range r {
		r[k] = s.judge(i, n, uint64(k+1))
		if r[k].err != nil {
			return false, nil, r[k].err
		}
		all = all && r[k].ok
		seeds = append(seeds, r[k].SizeSeed)
	}
	return all, seeds, nil
}

// newSizer rebuilds the sizer of a sized result's problem (pools at their
// simulated counts), for re-checks.
func newSizer(cfg SizeConfig, res *SizeResult) (*sizer, error) {
	c, err := checkSize(cfg)
	if err != nil {
		return nil, err
	}
	cdf, err := workload.LoadCDF(c.Workload)
	if err != nil {
		return nil, err
	}
	s := &sizer{cfg: c, cdf: cdf, frac: workload.DefaultInputFraction}
	s.router = sim.RouterConfig{Config: router.Config{Kind: res.Router, BShort: res.BShort, Gamma: res.Gamma, PC: res.PC}}
	if res.Router == sim.RouterLength {
		s.router = sim.RouterConfig{Config: router.Config{Kind: sim.RouterLength}}
	}
	for _, p := range res.Pools {
		s.plan.Pools = append(s.plan.Pools, fleetopt.PoolPlan{Name: p.Name, GPU: p.GPU, MaxCtx: p.MaxCtx, ArrivalRate: p.ArrivalRate})
		s.counts = append(s.counts, p.GPUsSim)
		s.warm = append(s.warm, p.WarmupS)
	}
	return s, nil
}

// LengthRouted returns the requests of src that the length router sends to
// a pool whose max context is hi when the next smaller pool's is lo:
// L_in + max_output_tokens in (lo, hi]; at most limit of them (<= 0: all).
// Their arrival times are kept, so the stream is the pool's thinned arrival
// process.
func LengthRouted(src workload.Source, lo, hi, limit int) workload.Source {
	if limit <= 0 {
		limit = math.MaxInt
	}
	return &lengthRouted{src: src, lo: lo, hi: hi, limit: limit}
}

type lengthRouted struct {
	src    workload.Source
	lo, hi int
	limit  int
	n      int
}

func (f *lengthRouted) Next(r *workload.Request) bool {
	for f.n < f.limit && f.src.Next(r) {
		t := r.InputTokens + r.MaxOutputTokens
		if t > f.lo && t <= f.hi {
			f.n++
			return true
		}
	}
	return false
}

func (f *lengthRouted) Err() error { return f.src.Err() }

// runRequests returns N, the fleet requests of one run of pool i at
// window scale (1, 2, 4, …): max(Requests, the N whose warm-up fraction
// sizeWarmup covers warmupServiceTimes mean slot times) × scale. The run is
// pool i's part of a whole-fleet `fleetsim simulate --requests N --warmup
// 0.2` (docs/experiments.md "Sizing by simulation").
func (s *sizer) runRequests(i, scale int) int {
	warmN := math.Ceil(s.warm[i] * s.cfg.Rate / sizeWarmup)
	return int(math.Min(math.Max(float64(s.cfg.Requests), warmN)*float64(scale), 1e15))
}

// judge runs pool i at n GPUs with one seed on the first window and, while
// a P99's confidence interval straddles its target, on twice the window,
// up to MaxWindowScale; an interval still straddling there fails the seed.
func (s *sizer) judge(i, n int, seed uint64) outcome {
	var o outcome
	for scale := 1; ; scale *= 2 {
		o = s.run(i, n, seed, scale)
		if o.err != nil || !o.Unclear || scale >= MaxWindowScale || s.runRequests(i, 2*scale) > MaxSizeRunRequests {
			break
		}
	}
	if o.Unclear {
		o.ok = false
	}
	return o
}

// ciSink keeps the measured requests' TTFT and TPOT of one pool in
// arrival order's batches.
type ciSink struct {
	pool string
	recs []ciRec
}

type ciRec struct{ arr, ttft, tpot float64 }

func (c *ciSink) Write(r *sim.Record) error {
	if r.Pool == c.pool && !r.Warmup && !r.Rejected {
		c.recs = append(c.recs, ciRec{r.ArrivalS, r.TTFTS, r.TPOTS})
	}
	return nil
}

// ciBatches is the number of batches of the P99 confidence interval.
const ciBatches = 10

// tCrit is the two-sided 95% Student t quantile with ciBatches − 1 = 9
// degrees of freedom (t_{0.975, 9} = 2.262, any table).
const tCrit = 2.262

// p99HalfWidth returns the half-width of a 95% confidence interval of a
// P99 by the batch quantile method (Seila, "A batching approach to quantile
// estimation in regenerative simulations", Management Science 28(5),
// 1982): the window's requests, in arrival order, are cut into ciBatches
// batches; each batch's P99 is an estimate, and t_{0.975,B−1}·s/√B of
// their standard deviation s bounds the error of their mean. The interval
// assumes the batches independent; batches of consecutive arrivals are
// positively correlated at high load (a long queue excursion spans two),
// which makes s understate the error: the interval is then too narrow,
// not conservative (hence the confirmation on fresh seeds). +Inf below
// 100 requests per batch.
func p99HalfWidth(v []float64) float64 {
	per := len(v) / ciBatches
	if per < 100 {
		return math.Inf(1)
	}
	q := make([]float64, ciBatches)
	buf := make([]float64, per)
	for b := range q {
		copy(buf, v[b*per:(b+1)*per])
		slices.Sort(buf)
		q[b] = buf[int(math.Ceil(0.99*float64(per)))-1]
	}
	mean := 0.0
	for _, x := range q {
		mean += x
	}
	mean /= ciBatches
	ss := 0.0
	for _, x := range q {
		ss += (x - mean) * (x - mean)
	}
	return tCrit * math.Sqrt(ss/(ciBatches-1)) / math.Sqrt(ciBatches)
}

// run simulates pool i at n GPUs with one seed at window scale: pool i's
// part of a whole-fleet run of N = runRequests(i, scale) requests whose
// first sizeWarmup of arrivals are warm-up.
func (s *sizer) run(i, n int, seed uint64, scale int) outcome {
	o := outcome{SizeSeed: SizeSeed{Seed: seed, Scale: scale}}
	p := s.plan.Pools[i]
	N := s.runRequests(i, scale)
	scfg := sim.Defaults()
	scfg.Seed = seed
	scfg.Timing = s.cfg.Timing
	scfg.Router = s.router
	scfg.Pools = nil
	scfg.WarmupFraction = sizeWarmup
	var src workload.Source
	var err error
	idx := i
	full, err := workload.NewSource(workload.Spec{CDF: s.cfg.Workload, Rate: s.cfg.Rate, Requests: N}, seed)
	if err != nil {
		o.err = err
		return o
	}
	if s.router.Kind == sim.RouterLength {
		// The pool alone, on the requests the length router sends it out
		// of the fleet's N: the same arrivals as in the whole fleet. Its
		// warm-up is sizeWarmup of its expected count E = N·λ_p/λ (the
		// pool's arrivals among the fleet's first sizeWarmup·N, up to
		// binomial noise of √E).
		lo := 0
		for _, q := range s.plan.Pools {
			if q.MaxCtx < p.MaxCtx {
				lo = max(lo, q.MaxCtx)
			}
		}
		expect := float64(N) * p.ArrivalRate / s.cfg.Rate
		limit := int(math.Ceil(expect + 10*math.Sqrt(expect) + 100))
		src = &lengthRouted{src: full, lo: lo, hi: p.MaxCtx, limit: limit}
		scfg.Workload = workload.Spec{CDF: s.cfg.Workload, Rate: p.ArrivalRate, Requests: limit}
		scfg.WarmupFraction = sizeWarmup * expect / float64(limit)
		scfg.Pools = []sim.PoolConfig{{Name: p.Name, GPU: p.GPU, Count: n, MaxContext: p.MaxCtx}}
		idx = 0
	} else {
		// The whole fleet: the other pools held at their counts.
		scfg.Workload = workload.Spec{CDF: s.cfg.Workload, Rate: s.cfg.Rate, Requests: N}
		for j, q := range s.plan.Pools {
			c := s.counts[j]
			if j == i {
				c = n
			}
			scfg.Pools = append(scfg.Pools, sim.PoolConfig{Name: q.Name, GPU: q.GPU, Count: c, MaxContext: q.MaxCtx})
		}
		src = full
	}
	if s.shape != nil {
		s.shape(&scfg.Pools[idx], n)
	}
	if err := scfg.Validate(); err != nil {
		o.err = err
		return o
	}
	sink := &ciSink{pool: p.Name}
	sum, err := sim.Run(scfg, src, sink, sim.Options{Stop: s.cfg.Stop})
	if err != nil {
		o.err = err
		return o
	}
	pm := sum.Pools[idx]
	o.P99TTFT, o.P99TPOT, o.Util, o.Rejected = pm.TTFT.P99, pm.TPOT.P99, pm.SlotUtilization, pm.Rejected
	o.Measured = len(sink.recs)
	slices.SortFunc(sink.recs, func(a, b ciRec) int { return cmp.Compare(a.arr, b.arr) })
	ttft := make([]float64, len(sink.recs))
	tpot := make([]float64, len(sink.recs))
	for k, r := range sink.recs {
		ttft[k], tpot[k] = r.ttft, r.tpot
	}
	o.TTFTHalfWidth, o.TPOTHalfWidth = p99HalfWidth(ttft), p99HalfWidth(tpot)
	if pm.Overloaded || pm.Completed == 0 || (s.cfg.UtilCap > 0 && o.Util > s.cfg.UtilCap) {
		return o // a clear failure
	}
	// Each target: clearly met (estimate + half-width within it), clearly
	// missed (estimate − half-width beyond it), or unclear.
	o.ok = true
	for _, c := range []struct{ est, hw, target float64 }{{o.P99TTFT, o.TTFTHalfWidth, s.cfg.SLOTTFTS}, {o.P99TPOT, o.TPOTHalfWidth, s.cfg.SLOTPOTS}} {
		switch {
		case c.target == 0:
		case c.est-c.hw > c.target:
			o.ok, o.Unclear = false, false
			return o
		case c.est+c.hw > c.target:
			o.ok, o.Unclear = false, true
		}
	}
	return o
}
