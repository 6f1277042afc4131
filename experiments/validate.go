package experiments

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/fleetsim/fleetsim/pools/catalog"
	"github.com/fleetsim/fleetsim/pools/fleetopt"
	"github.com/fleetsim/fleetsim/pools/fleetopt/papercompat"
	"github.com/fleetsim/fleetsim/pools/occupancy"
	"github.com/fleetsim/fleetsim/pools/queueing"
	"github.com/fleetsim/fleetsim/router"
	"github.com/fleetsim/fleetsim/sim"
	"github.com/fleetsim/fleetsim/sim/slotsim"
	"github.com/fleetsim/fleetsim/sim/sweep"
	"github.com/fleetsim/fleetsim/workload"
)

// This file checks an analytic fleet size with the simulator: plan a fleet
// with the pools planner, simulate exactly that fleet with sim.Run, and put
// the planner's predictions beside the measurements, pool by pool. It backs
// `fleetsim validate` and FleetOpt Table 5.

// Sample-size defaults of a validation run.
const (
	// TargetPerPool is the number of post-warm-up requests the smallest
	// pool should receive (FleetOpt Table 5: "30,000 requests per pool").
	TargetPerPool = 30000
	// WarmupServiceTimes is the warm-up length in units of the largest
	// pool's analytic mean service time: the pools start empty, and a pool
	// whose requests stay 100 s in service needs several hundred seconds
	// to fill.
	WarmupServiceTimes = 5
	// MinWarmupFraction and MaxWarmupFraction bound the warm-up fraction
	// chosen automatically.
	MinWarmupFraction = 0.2
	MaxWarmupFraction = 0.9
	// MaxAutoRequests caps the automatic request count.
	MaxAutoRequests = 5_000_000
)

// ValidateConfig is a plan-then-simulate check. Zero fields take the
// defaults named.
type ValidateConfig struct {
	Workload    string  // CDF: azure, lmsys, agent-heavy or a CDF JSON file
	Rate        float64 // λ, requests/s (> 0)
	BShort      int     // short-pool boundary, tokens (needed except for homo)
	GPU         string  // short-pool GPU (default a100)
	GPULong     string  // long/homogeneous GPU (default GPU)
	Method      string  // homo, pr (default), retrofit, fleetopt
	Gamma       float64 // retrofit γ (default 1.5)
	PC          float64 // compressibility p_c in (0, 1] (0 = default 1; p_c = 0 is method pr)
	RhoMax      float64 // utilization cap (default 0.85)
	Calibration string  // exact (default), montecarlo (stratified), montecarlo-iid, or papers (papercompat: the papers' own sizing; kv timing)
	Timing      string  // kv (default) or paper; planner and simulator use the same
	// ShortCalibration is the planner's C&R traffic model
	// (fleetopt.Config.ShortCalibration): fleetopt.ShortCalibPaper (FleetOpt
	// Algorithm 1, the library default when empty) or fleetopt.ShortCalibMix
	// (the `fleetsim validate` and `fleetsim plan` default). Only retrofit
	// and fleetopt depend on it.
	ShortCalibration string
	// EstimateNoise is the router-estimate noise σ the mix model assumes
	// (fleetopt.Config.EstimateNoise; the CLI's default is
	// workload.BytesJitter = 0.05). Ignored under paper.
	EstimateNoise float64
	// Requests is the number of requests simulated. 0 = enough for
	// TargetPerPool post-warm-up requests in the smallest pool plus a
	// warm-up of WarmupServiceTimes mean service times of the slowest pool.
	Requests int
	// WarmupFraction of the requests is discarded from the metrics. 0 =
	// automatic: the warm-up above, as a fraction of Requests, within
	// [MinWarmupFraction, MaxWarmupFraction].
	WarmupFraction float64
	Seed           uint64 // simulation seed (default 1); Monte Carlo calibration keeps the planner's seed 42
	// Start, when set, is called once before the simulation with the
	// number of requests it will run (known only after planning when
	// Requests is 0).
	Start func(requests int)
	// Progress, when set, is sim.Options.Progress.
	Progress func(arrived int64)
	// Fidelities to run beside the engine's (FidelitySlot, FidelityKV);
	// the engine fidelity always runs.
	Fidelities []string
	// KVMaxSeqs is the kv fidelity's max_seqs (DefaultKVMaxSeqs when 0).
	KVMaxSeqs int
	// Stop, when set, is sim.Options.Stop: once it returns true the
	// simulation ends and Validate returns sim.ErrStopped.
	Stop func() bool
}

// PoolValidation is one pool's prediction beside its measurement.
type PoolValidation struct {
	Name        string  `json:"name"`
	GPU         string  `json:"gpu"`
	MaxCtx      int     `json:"max_ctx"`
	Slots       int     `json:"slots"`
	GPUs        int     `json:"gpus"`            // planned (and simulated) GPU count
	ArrivalAna  float64 `json:"arrival_rps_ana"` // planned λ_p, requests/s
	ArrivalSim  float64 `json:"arrival_rps_sim"` // measured arrivals, requests/s
	MeanSvcAnaS float64 `json:"mean_service_s_ana"`
	UtilAna     float64 `json:"utilization_ana"` // λ_p/(n·μ_gpu)
	UtilSim     float64 `json:"utilization_sim"` // time-averaged busy slots / slots
	// UtilSelf is the self-consistent utilization estimate (selfConsistent):
	// the iteration time evaluated at the batch the pool actually holds
	// rather than at a full batch, for the traffic the router really sends
	// (compressed borderline requests included); 1 when the pool has no
	// stable operating point.
	UtilSelf float64 `json:"utilization_self_consistent"`
	// GPUsSelf is an estimate, not a plan: the smallest GPU count at which
	// the self-consistent utilization stays <= ρ_max for the pool's real
	// traffic (n >= λ_p·E[k]·(W/ρ_max + b)/slots, selfConsistent). W is
	// small beside b, so it lies close to that model's saturation knee: it
	// has no margin, no queueing delay and no P99 TTFT target.
	GPUsSelf int `json:"gpus_self_consistent_estimate"`
	// Occupancy-model predictions (pools/occupancy) for the planned GPUs
	// and the planner's pool traffic.
	Occ          occupancy.Prediction `json:"occupancy"`
	P99TPOTSimS  float64              `json:"p99_tpot_s_sim"`
	P99TTFTAnaS  float64              `json:"p99_ttft_s_ana"`
	P99TTFTSimS  float64              `json:"p99_ttft_s_sim"`
	P99WaitAnaS  float64              `json:"p99_queue_wait_s_ana"`
	P99WaitSimS  float64              `json:"p99_queue_wait_s_sim"`
	Measured     int64                `json:"measured_requests"` // post-warm-up arrivals at the pool
	Rejected     int64                `json:"rejected"`
	Preemptions  int64                `json:"preemptions"`
	Overloaded   bool                 `json:"overloaded"`
	BacklogGrows float64              `json:"backlog_growth_rps"`
	// PWaitSim is the engine fidelity's share of requests that waited
	// longer than the pool's longest possible iteration (WaitThresholdS).
	PWaitSim       float64 `json:"p_wait_sim"`
	WaitThresholdS float64 `json:"wait_threshold_s"`
	// PWaitAna is Erlang C of the paper model.
	PWaitAna float64 `json:"p_wait_ana"`
	// Slot and KV are the other fidelities' measurements, when asked.
	Slot *slotsim.Result `json:"fidelity_slot,omitempty"`
	KV   *PoolMeasure    `json:"fidelity_kv,omitempty"`
}

// UtilErr is FleetOpt Table 5's error (ρ_ana − ρ̂)/ρ̂ (NaN when ρ̂ = 0).
func (p PoolValidation) UtilErr() float64 {
	if p.UtilSim == 0 {
		return math.NaN()
	}
	return (p.UtilAna - p.UtilSim) / p.UtilSim
}

// Validation is the result of a plan-then-simulate check.
type Validation struct {
	Workload    string  `json:"workload"`
	Method      string  `json:"method"`
	Rate        float64 `json:"rate"`
	BShort      int     `json:"b_short,omitempty"`
	Gamma       float64 `json:"gamma,omitempty"`
	PC          float64 `json:"p_c"`
	Router      string  `json:"router"`
	Calibration string  `json:"calibration"`
	Timing      string  `json:"timing"`
	// ShortCalibration and EstimateNoise are the planner's C&R traffic
	// model (fleetopt.ShortCalibPaper or fleetopt.ShortCalibMix) and its σ (0
	// under paper).
	ShortCalibration string              `json:"short_calibration"`
	EstimateNoise    float64             `json:"estimate_noise"`
	RhoMax           float64             `json:"rho_max"` // the planner's utilization cap
	Seed             uint64              `json:"seed"`
	Requests         int                 `json:"requests"`
	WarmupFraction   float64             `json:"warmup_fraction"`
	WarmupS          float64             `json:"warmup_s"`   // expected warm-up span, s
	WindowS          float64             `json:"window_s"`   // measured window, s
	SimTimeS         float64             `json:"sim_time_s"` // simulated time incl. drain, s
	TotalGPUs        int                 `json:"total_gpus"`
	Pools            []PoolValidation    `json:"pools"`
	Warnings         []string            `json:"warnings,omitempty"`
	Plan             fleetopt.MethodPlan `json:"plan"`
}

// Validate plans cfg's fleet, simulates it and returns both. Bad input is
// reported as an error naming the field and the value.
func Validate(cfg ValidateConfig) (*Validation, error) {
	c := cfg
	if c.GPU == "" {
		c.GPU = "a100"
	}
	if c.GPULong == "" {
		c.GPULong = c.GPU
	}
	if c.Method == "" {
		c.Method = fleetopt.MethodPR
	}
	if c.Seed == 0 {
		c.Seed = 1
	}
	if c.Timing == "" {
		c.Timing = catalog.DefaultTiming
	}
	if c.PC == 0 {
		c.PC = 1
	}
	switch {
	case c.Workload == "":
		return nil, fmt.Errorf("workload \"\": allowed %s or a CDF JSON file", strings.Join(workload.BuiltinCDFs(), ", "))
	case c.Requests < 0:
		return nil, fmt.Errorf("requests %d: must be >= 1 (0 = automatic)", c.Requests)
	case math.IsNaN(c.WarmupFraction) || c.WarmupFraction < 0 || c.WarmupFraction >= 1:
		return nil, fmt.Errorf("warmup %v: must be in [0, 1) (0 = automatic)", c.WarmupFraction)
	}
	switch c.Method {
	case fleetopt.MethodHomo, fleetopt.MethodPR, fleetopt.MethodRetrofit, fleetopt.MethodFleetOpt:
	default:
		return nil, fmt.Errorf("method %q: allowed homo, pr, retrofit, fleetopt", c.Method)
	}
	if c.Method != fleetopt.MethodHomo && c.Method != fleetopt.MethodFleetOpt && c.BShort == 0 {
		return nil, fmt.Errorf("b-short 0: method %s needs a short-pool boundary in tokens (e.g. 4096)", c.Method)
	}
	short, long, err := catalog.LookupPoolGPUs(c.GPU, c.GPULong)
	if err != nil {
		return nil, err
	}
	cdf, err := workload.LoadCDF(c.Workload)
	if err != nil {
		return nil, err // names the workload already
	}
	cal, err := fleetopt.NewCalibrator(cdf, workload.DefaultInputFraction, short.ChunkTokens)
	if err != nil {
		return nil, fmt.Errorf("workload %q: %w", c.Workload, err)
	}
	var plan fleetopt.Plan
	pcfg := fleetopt.Config{Rate: c.Rate, RhoMax: c.RhoMax, ShortGPU: short, LongGPU: long,
		BShort: c.BShort, Gamma: c.Gamma, PC: c.PC, Calibration: c.Calibration, Timing: c.Timing,
		ShortCalibration: c.ShortCalibration, EstimateNoise: c.EstimateNoise,
		FixB: c.Method == fleetopt.MethodFleetOpt && c.BShort > 0}
	// pl is also the occupancy model's source of each pool's traffic.
	var pl *fleetopt.Planner
	if c.Calibration == papercompat.Calibration {
		// The papers' own sizing (experiment --compat papers), kv timing.
		if c.Timing != catalog.TimingKV {
			return nil, fmt.Errorf("timing %q: the papers-compatible sizing uses kv", c.Timing)
		}
		gamma := c.Gamma
		if gamma == 0 {
			gamma = 1.5
		}
		plan, err = papercompat.Plan(papercompat.Config{CDF: cdf, Rate: c.Rate, BShort: c.BShort, Gamma: gamma,
			PC: c.PC, RhoMax: c.RhoMax, ShortGPU: short, LongGPU: long}, []string{c.Method})
		if err == nil {
			ecfg := pcfg
			ecfg.Calibration = fleetopt.CalibExact
			pl, err = fleetopt.NewPlanner(cal, ecfg)
		}
	} else {
		pl, err = fleetopt.NewPlanner(cal, pcfg)
		if err != nil {
			return nil, err
		}
		plan, err = pl.Run([]string{c.Method})
	}
	if err != nil {
		return nil, err
	}
	m := plan.Methods[0]

	// The simulated fleet is the planned one.
	scfg := sim.Defaults()
	scfg.Seed = c.Seed
	scfg.Timing = plan.Timing
	scfg.Workload = workload.Spec{CDF: c.Workload, Rate: c.Rate, InputFraction: plan.InputFraction}
	scfg.Pools = nil
	maxSvc, minRate := 0.0, math.Inf(1)
	for _, p := range m.Pools {
		scfg.Pools = append(scfg.Pools, sim.PoolConfig{Name: p.Name, GPU: p.GPU, Count: p.GPUs, MaxContext: p.MaxCtx})
		maxSvc = math.Max(maxSvc, p.MeanServiceS)
		minRate = math.Min(minRate, p.ArrivalRate)
	}
	routerKind := sim.RouterLength
	if m.Gamma > 1 && len(m.Pools) == 2 {
		routerKind = sim.RouterCR
		scfg.Router = sim.RouterConfig{Config: router.Config{Kind: sim.RouterCR, BShort: m.BShort, Gamma: m.Gamma, PC: m.PC}}
	} else {
		scfg.Router = sim.RouterConfig{Config: router.Config{Kind: sim.RouterLength}}
	}

	warmReq := math.Ceil(WarmupServiceTimes * maxSvc * c.Rate)
	n := c.Requests
	if n == 0 {
		// 5% above the expectation, so that Poisson noise rarely leaves
		// the smallest pool short of the target.
		meas := math.Ceil(1.05 * TargetPerPool * c.Rate / minRate)
		n = int(math.Min(math.Max(warmReq+meas, math.Ceil(meas/(1-MinWarmupFraction))), MaxAutoRequests))
	}
	wf := c.WarmupFraction
	if wf == 0 {
		wf = math.Min(MaxWarmupFraction, math.Max(MinWarmupFraction, warmReq/float64(n)))
	}
	scfg.Workload.Requests = n
	scfg.WarmupFraction = wf
	if err := scfg.Validate(); err != nil {
		return nil, err
	}
	src, err := workload.NewSource(scfg.Workload, scfg.Seed)
	if err != nil {
		return nil, err
	}
	v := &Validation{Workload: cdf.Name, Method: m.Method, Rate: c.Rate, BShort: m.BShort, Gamma: m.Gamma, PC: m.PC,
		Router: routerKind, Calibration: plan.Calibration, Timing: plan.Timing,
		ShortCalibration: plan.ShortCalibration, EstimateNoise: plan.EstimateNoise, RhoMax: plan.RhoMax,
		Seed: c.Seed, Requests: n, WarmupFraction: wf, WarmupS: math.Floor(wf*float64(n)) / c.Rate,
		TotalGPUs: m.TotalGPUs, Plan: m}
	if v.WarmupS < WarmupServiceTimes*maxSvc {
		v.Warnings = append(v.Warnings, fmt.Sprintf("warm-up %.0f s is shorter than %d× the slowest pool's mean service time (%.1f s): the pools may not have reached steady state and the measured utilization is then too low; use more requests",
			v.WarmupS, WarmupServiceTimes, maxSvc))
	}
	// The self-consistent estimates are predictions: they are made before
	// the run, for the traffic the simulator's router really sends (its
	// estimate noise is always workload.BytesJitter, whatever the plan
	// assumed).
	for _, p := range m.Pools {
		g := short
		if p.Name != "short" {
			g = long
		}
		noise := 0.0
		if routerKind == sim.RouterCR {
			noise = workload.BytesJitter
		}
		se := selfConsistent(cdf, plan.InputFraction, g, p, m, c.Rate, plan.Timing, noise, plan.RhoMax)
		if se.U >= 1 {
			why := fmt.Sprintf("the traffic the router really sends it (estimate noise σ = %g included) needs more slot time than its %d GPUs have", noise, p.GPUs)
			if p.Name == "short" && m.Gamma > 1 && plan.ShortCalibration == fleetopt.ShortCalibPaper {
				why = "--short-calibration paper (FleetOpt Algorithm 1) sizes the short pool for (0, B] only, but it also serves the compressed band, whose requests keep their full output and hold a context near B (--short-calibration mix sizes it for that traffic)"
			}
			v.Warnings = append(v.Warnings, fmt.Sprintf("pool %s: no stable operating point once the iteration time follows the batch it holds (a·b = %.3f, u = a·W/(1 − a·b) %s): %s; expect it to saturate",
				p.Name, se.AB, selfFixedPoint(se), why))
		}
		op, err := pl.OccupancyPool(m, p)
		if err != nil {
			return nil, err
		}
		occ, oerr := op.Predict()
		if oerr != nil {
			v.Warnings = append(v.Warnings, fmt.Sprintf("pool %s: occupancy model: %v", p.Name, oerr))
		}
		v.Pools = append(v.Pools, PoolValidation{Occ: occ, Name: p.Name, GPU: p.GPU, MaxCtx: p.MaxCtx, Slots: p.Slots, GPUs: p.GPUs,
			ArrivalAna: p.ArrivalRate, MeanSvcAnaS: p.MeanServiceS, UtilAna: p.Utilization, UtilSelf: se.U, GPUsSelf: se.GPUs,
			P99TTFTAnaS: p.P99TTFTS, P99WaitAnaS: p.P99WaitS})
	}

	if c.Start != nil {
		c.Start(n)
	}
	waits := newPoolWaits()
	for _, p := range m.Pools {
		g, _ := catalog.LookupGPU(p.GPU)
		waits.thr[p.Name] = maxIter(g, p.MaxCtx, p.Slots, plan.Timing)
	}
	sum, err := sim.Run(scfg, src, waits, sim.Options{Progress: c.Progress, Stop: c.Stop})
	if err != nil {
		return nil, err
	}
	if err := v.otherFidelities(c, scfg, m); err != nil {
		return nil, err
	}
	v.WindowS = sum.WindowEndS - sum.WindowStartS
	v.SimTimeS = sum.SimTimeS
	for i := range v.Pools {
		pv, s := &v.Pools[i], sum.Pools[i]
		pv.ArrivalSim, pv.UtilSim = s.ArrivalRPS, s.SlotUtilization
		pv.P99TTFTSimS, pv.P99WaitSimS, pv.P99TPOTSimS = s.TTFT.P99, s.QueueWait.P99, s.TPOT.P99
		pv.Measured, pv.Rejected, pv.Preemptions = s.Arrived, s.Rejected, s.Preemptions
		pv.Overloaded, pv.BacklogGrows = s.Overloaded, s.BacklogGrowth
		pv.PWaitSim, pv.WaitThresholdS = waits.share(pv.Name), waits.thr[pv.Name]
		pv.PWaitAna = queueing.ErlangC(pv.GPUs*pv.Slots, pv.ArrivalAna*pv.MeanSvcAnaS)
		if s.Arrived == 0 {
			v.Warnings = append(v.Warnings, fmt.Sprintf("pool %s: no measured request: its simulated figures are empty (use more requests)", pv.Name))
		} else if s.Arrived < TargetPerPool && c.Requests == 0 {
			v.Warnings = append(v.Warnings, fmt.Sprintf("pool %s: %d measured requests (target %d)", pv.Name, s.Arrived, TargetPerPool))
		}
	}
	return v, nil
}

// otherFidelities runs the slot and kv fidelities of c on the fleet of m
// (docs/experiments.md "Validation at three fidelities").
func (v *Validation) otherFidelities(c ValidateConfig, scfg sim.Config, m fleetopt.MethodPlan) error {
	for _, f := range c.Fidelities {
		switch f {
		case FidelitySlot:
			if scfg.Router.Kind != sim.RouterLength {
				return fmt.Errorf("fidelity slot: needs the length router (method homo or pr); %s uses %s", m.Method, scfg.Router.Kind)
			}
			for i, p := range m.Pools {
				lo := 0
				for _, q := range m.Pools {
					if q.MaxCtx < p.MaxCtx {
						lo = max(lo, q.MaxCtx)
					}
				}
				src, err := workload.NewSource(scfg.Workload, scfg.Seed)
				if err != nil {
					return err
				}
				g, _ := catalog.LookupGPU(p.GPU)
				r, err := runSlot(g, p.MaxCtx, p.GPUs, v.Timing, sweep.LengthRouted(src, lo, p.MaxCtx, 0), v.WarmupS)
				if err != nil {
					return err
				}
				v.Pools[i].Slot = &r
			}
		case FidelityKV:
			kcfg := scfg
			kcfg.Pools = slices.Clone(scfg.Pools)
			ms := c.KVMaxSeqs
			if ms == 0 {
				ms = DefaultKVMaxSeqs
			}
			waits := newPoolWaits()
			for i := range kcfg.Pools {
				kcfg.Pools[i].MaxSeqs = ms
				g, _ := catalog.LookupGPU(kcfg.Pools[i].GPU)
				waits.thr[kcfg.Pools[i].Name] = maxIter(g, kcfg.Pools[i].MaxContext, ms, v.Timing)
			}
			if err := kcfg.Validate(); err != nil {
				return err
			}
			src, err := workload.NewSource(kcfg.Workload, kcfg.Seed)
			if err != nil {
				return err
			}
			sum, err := sim.Run(kcfg, src, waits, sim.Options{})
			if err != nil {
				return err
			}
			for i := range v.Pools {
				g, _ := catalog.LookupGPU(kcfg.Pools[i].GPU)
				m := kvMeasure(sum.Pools[i], waits, g, kcfg.Pools[i].MaxContext, ms)
				v.Pools[i].KV = &m
			}
		}
	}
	return nil
}

// selfEstimate is a pool's self-consistent operating point (selfConsistent).
type selfEstimate struct {
	U    float64 // slot utilization u, at most 1; 1 means no stable operating point
	AB   float64 // a·b: >= 1 means no stable operating point
	Raw  float64 // a·W/(1 − a·b) before the cap at 1 (+Inf when AB >= 1)
	GPUs int     // GPUs at which u <= ρ_max (an estimate, not a plan)
}

// selfFixedPoint describes the uncapped fixed point for a warning.
func selfFixedPoint(se selfEstimate) string {
	if se.AB >= 1 {
		return "has no solution in [0, 1]"
	}
	return fmt.Sprintf("= %.3f >= 1", se.Raw)
}

// compressProb is the probability that the C&R router compresses a band
// request of length L with prompt in: its unbiased estimate
// in·(1 + σz) + out must be <= gb, i.e. Φ((gb − L)/(σ·in)); with σ = 0 it
// is 1 for L <= gb and 0 above.
func compressProb(L, in, gb int, sigma float64) float64 {
	if sigma <= 0 || in < 1 {
		if L <= gb {
			return 1
		}
		return 0
	}
	return 0.5 * math.Erfc(-float64(gb-L)/(sigma*float64(in))/math.Sqrt2)
}

// selfConsistent estimates a pool's slot utilization when the iteration
// time follows the batch the pool actually holds, as in the simulator,
// instead of a full batch as in the planner's calibration. It sums over
// every integer length L of the CDF the traffic the pool really receives
// (q(L) = compressProb with the router's estimate noise sigma; 0 for the
// length router):
//
//   - homogeneous: every L;
//   - short: L <= B, plus a share p_c·q(L) of every L > B, compressed to
//     L_in' = min(L_in, B − L_out) (the router's C&R; a request with
//     B − L_out < 1 is never compressed);
//   - long: L > B with the remaining share 1 − p_c·q(L).
//
// A request spends k = ceil(L_in/C) + L_out iterations in a slot, and an
// iteration costs
//
//	kv:    t(u) = W + (H/CalibCtx)·u·slots·c̄   (c̄: mean context of a busy slot)
//	paper: t(u) = W + H·u·slots
//
// Little's law per GPU, u·slots = (λ_p/n)·E[k]·t(u), is linear in u:
// u = a·W/(1 − a·b) with a = λ_p·E[k]/(n·slots) and b the coefficient of u
// in t(u). c̄ is E[k·(L_in' + L_out/2)]/E[k]: a slot's context grows from
// its served prompt L_in' to L_in' + L_out during decode, and decode
// iterations are most of k (for an uncompressed request with the 0.8
// split this is 0.9·L; a compressed one holds B − L_out/2). At a·b >= 1,
// or a·W/(1 − a·b) >= 1, there is no stable operating point (the pool
// saturates) and u is 1. Solving u <= ρ_max for n gives the GPU estimate
// n >= λ_p·E[k]·(W/ρ_max + b)/slots (b does not depend on n).
func selfConsistent(cdf *workload.CDF, frac float64, g catalog.GPU, p fleetopt.PoolPlan, m fleetopt.MethodPlan, rate float64, timing string, sigma, rhoMax float64) selfEstimate {
	if p.GPUs < 1 || p.Slots < 1 {
		return selfEstimate{}
	}
	b, gb := m.BShort, m.BShort
	if m.Gamma > 1 {
		gb = int(math.Floor(m.Gamma * float64(m.BShort) * (1 + 1e-12)))
	} else {
		sigma = 0 // the length router: no compression
	}
	var mass, k, kl float64
	prev := 0.0
	add := func(w, pr float64, in, out int) {
		kk := float64((in+g.ChunkTokens-1)/g.ChunkTokens + out)
		mass += w * pr
		k += w * pr * kk
		kl += w * pr * kk * (float64(in) + float64(out)/2)
	}
	for L := 1; L <= cdf.Max(); L++ {
		f := cdf.F(float64(L))
		pr := f - prev
		prev = f
		if pr <= 0 {
			continue
		}
		in, out := workload.SplitFixed(L, frac)
		switch {
		case p.Name == "homogeneous" || b == 0:
			add(1, pr, in, out)
		case L <= b:
			if p.Name == "short" {
				add(1, pr, in, out)
			}
		default:
			wc := 0.0
			if b-out >= 1 && m.Gamma > 1 {
				wc = m.PC * compressProb(L, in, gb, sigma)
			}
			if p.Name == "short" && wc > 0 {
				add(wc, pr, max(1, min(in, b-out)), out)
			}
			if p.Name == "long" && wc < 1 {
				add(1-wc, pr, in, out)
			}
		}
	}
	if mass == 0 {
		return selfEstimate{}
	}
	r := rate * k / float64(p.Slots) // λ_p·E[k]/slots
	coef := g.H * float64(p.Slots)
	if timing == catalog.TimingKV {
		coef = g.H / float64(g.CalibCtx) * float64(p.Slots) * kl / k
	}
	a := r / float64(p.GPUs)
	se := selfEstimate{AB: a * coef, GPUs: int(math.Ceil(r * (g.W/rhoMax + coef)))}
	se.Raw = math.Inf(1)
	if se.AB < 1 {
		se.Raw = a * g.W / (1 - se.AB)
	}
	se.U = math.Min(1, se.Raw)
	return se
}
