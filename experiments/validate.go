package experiments

import (
	"fmt"
	"math"
	"strings"

	"github.com/fleetsim/fleetsim/pools"
	"github.com/fleetsim/fleetsim/sim"
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
	Calibration string  // exact (default) or montecarlo
	Timing      string  // kv (default) or paper; planner and simulator use the same
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
	UtilSelf     float64 `json:"utilization_self_consistent"`
	P99TTFTAnaS  float64 `json:"p99_ttft_s_ana"`
	P99TTFTSimS  float64 `json:"p99_ttft_s_sim"`
	P99WaitAnaS  float64 `json:"p99_queue_wait_s_ana"`
	P99WaitSimS  float64 `json:"p99_queue_wait_s_sim"`
	Measured     int64   `json:"measured_requests"` // post-warm-up arrivals at the pool
	Rejected     int64   `json:"rejected"`
	Preemptions  int64   `json:"preemptions"`
	Overloaded   bool    `json:"overloaded"`
	BacklogGrows float64 `json:"backlog_growth_rps"`
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
	Workload       string           `json:"workload"`
	Method         string           `json:"method"`
	Rate           float64          `json:"rate"`
	BShort         int              `json:"b_short,omitempty"`
	Gamma          float64          `json:"gamma,omitempty"`
	PC             float64          `json:"p_c"`
	Router         string           `json:"router"`
	Calibration    string           `json:"calibration"`
	Timing         string           `json:"timing"`
	Seed           uint64           `json:"seed"`
	Requests       int              `json:"requests"`
	WarmupFraction float64          `json:"warmup_fraction"`
	WarmupS        float64          `json:"warmup_s"`   // expected warm-up span, s
	WindowS        float64          `json:"window_s"`   // measured window, s
	SimTimeS       float64          `json:"sim_time_s"` // simulated time incl. drain, s
	TotalGPUs      int              `json:"total_gpus"`
	Pools          []PoolValidation `json:"pools"`
	Warnings       []string         `json:"warnings,omitempty"`
	Plan           pools.MethodPlan `json:"plan"`
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
		c.Method = pools.MethodPR
	}
	if c.Seed == 0 {
		c.Seed = 1
	}
	if c.Timing == "" {
		c.Timing = pools.DefaultTiming
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
	case pools.MethodHomo, pools.MethodPR, pools.MethodRetrofit, pools.MethodFleetOpt:
	default:
		return nil, fmt.Errorf("method %q: allowed homo, pr, retrofit, fleetopt", c.Method)
	}
	if c.Method != pools.MethodHomo && c.Method != pools.MethodFleetOpt && c.BShort == 0 {
		return nil, fmt.Errorf("b-short 0: method %s needs a short-pool boundary in tokens (e.g. 4096)", c.Method)
	}
	short, err := pools.LookupGPU(c.GPU)
	if err != nil {
		return nil, fmt.Errorf("gpu %q: unknown (allowed: %s)", c.GPU, strings.Join(pools.GPUNames(), ", "))
	}
	long, err := pools.LookupGPU(c.GPULong)
	if err != nil {
		return nil, fmt.Errorf("gpu-long %q: unknown (allowed: %s)", c.GPULong, strings.Join(pools.GPUNames(), ", "))
	}
	cdf, err := workload.LoadCDF(c.Workload)
	if err != nil {
		return nil, err // names the workload already
	}
	cal, err := pools.NewCalibrator(cdf, workload.DefaultInputFraction, short.ChunkTokens)
	if err != nil {
		return nil, fmt.Errorf("workload %q: %w", c.Workload, err)
	}
	pl, err := pools.NewPlanner(cal, pools.Config{Rate: c.Rate, RhoMax: c.RhoMax, ShortGPU: short, LongGPU: long,
		BShort: c.BShort, Gamma: c.Gamma, PC: c.PC, Calibration: c.Calibration, Timing: c.Timing,
		FixB: c.Method == pools.MethodFleetOpt && c.BShort > 0})
	if err != nil {
		return nil, err
	}
	plan, err := pl.Run([]string{c.Method})
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
		scfg.Router = sim.RouterConfig{Kind: sim.RouterCR, BShort: m.BShort, Gamma: m.Gamma, PC: m.PC}
	} else {
		scfg.Router = sim.RouterConfig{Kind: sim.RouterLength}
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
	if c.Start != nil {
		c.Start(n)
	}
	sum, err := sim.Run(scfg, src, nil, sim.Options{Progress: c.Progress})
	if err != nil {
		return nil, err
	}
	v := &Validation{Workload: cdf.Name, Method: m.Method, Rate: c.Rate, BShort: m.BShort, Gamma: m.Gamma, PC: m.PC,
		Router: routerKind, Calibration: plan.Calibration, Timing: plan.Timing, Seed: c.Seed, Requests: n,
		WarmupFraction: wf, WarmupS: math.Floor(wf*float64(n)) / c.Rate, WindowS: sum.WindowEndS - sum.WindowStartS,
		SimTimeS: sum.SimTimeS, TotalGPUs: m.TotalGPUs, Plan: m}
	if v.WarmupS < WarmupServiceTimes*maxSvc {
		v.Warnings = append(v.Warnings, fmt.Sprintf("warm-up %.0f s is shorter than %d× the slowest pool's mean service time (%.1f s): the pools may not have reached steady state and the measured utilization is then too low; use more requests",
			v.WarmupS, WarmupServiceTimes, maxSvc))
	}
	for i, p := range m.Pools {
		s := sum.Pools[i]
		g := short
		if p.Name != "short" {
			g = long
		}
		self, ab := selfConsistent(cdf, plan.InputFraction, g, p, m, c.Rate, plan.Timing)
		if ab >= 1 {
			v.Warnings = append(v.Warnings, fmt.Sprintf("pool %s: no stable operating point once the iteration time follows the batch it holds (a·b = %.3f >= 1): the traffic it really receives (compressed borderline requests keep their full output and hold a context near B) needs more slot time than the pool has; expect it to saturate",
				p.Name, ab))
		}
		pv := PoolValidation{Name: p.Name, GPU: p.GPU, MaxCtx: p.MaxCtx, Slots: p.Slots, GPUs: p.GPUs,
			ArrivalAna: p.ArrivalRate, ArrivalSim: s.ArrivalRPS, MeanSvcAnaS: p.MeanServiceS,
			UtilAna: p.Utilization, UtilSim: s.SlotUtilization, UtilSelf: self,
			P99TTFTAnaS: p.P99TTFTS, P99TTFTSimS: s.TTFT.P99, P99WaitAnaS: p.P99WaitS, P99WaitSimS: s.QueueWait.P99,
			Measured: s.Arrived, Rejected: s.Rejected, Preemptions: s.Preemptions, Overloaded: s.Overloaded,
			BacklogGrows: s.BacklogGrowth}
		if s.Arrived == 0 {
			v.Warnings = append(v.Warnings, fmt.Sprintf("pool %s: no measured request: its simulated figures are empty (use more requests)", p.Name))
		} else if s.Arrived < TargetPerPool && c.Requests == 0 {
			v.Warnings = append(v.Warnings, fmt.Sprintf("pool %s: %d measured requests (target %d)", p.Name, s.Arrived, TargetPerPool))
		}
		v.Pools = append(v.Pools, pv)
	}
	return v, nil
}

// selfConsistent estimates a pool's slot utilization when the iteration
// time follows the batch the pool actually holds, as in the simulator,
// instead of a full batch as in the planner's calibration. It sums over
// every integer length L of the CDF the traffic the pool really receives:
//
//   - homogeneous: every L;
//   - short: L <= B, plus a share p_c of the borderline band (B, ⌊γB⌋]
//     compressed to L_in' = min(L_in, B − L_out) (the router's C&R);
//   - long: L > ⌊γB⌋ plus the uncompressed share 1 − p_c of the band.
//
// A request spends k = ceil(L_in/C) + L_out iterations in a slot, and an
// iteration costs
//
//	kv:    t(u) = W + (H/CalibCtx)·u·slots·c̄   (c̄: mean context of a busy slot)
//	paper: t(u) = W + H·u·slots
//
// Little's law per GPU, u·slots = (λ_p/n)·E[k]·t(u), is linear in u:
// u = a·W/(1 − a·b) with a = λ_p·E[k]/(n·slots) and b the coefficient of u
// in t(u). c̄ is 0.9·E[k·L]/E[k]: a slot's context grows from L_in to L
// during decode (0.9·L on average for the 0.8 split), and decode iterations
// are most of k. It returns a·b too: at a·b >= 1 there is no stable
// operating point (the pool saturates) and u is returned as 1.
func selfConsistent(cdf *workload.CDF, frac float64, g pools.GPU, p pools.PoolPlan, m pools.MethodPlan, rate float64, timing string) (u, ab float64) {
	if p.GPUs < 1 {
		return 0, 0
	}
	b, gb := m.BShort, m.BShort
	if m.Gamma > 1 {
		gb = int(math.Floor(m.Gamma * float64(m.BShort) * (1 + 1e-12)))
	}
	var mass, k, kl float64
	prev := 0.0
	for L := 1; L <= cdf.Max(); L++ {
		f := cdf.F(float64(L))
		pr := f - prev
		prev = f
		if pr <= 0 {
			continue
		}
		in, out := workload.SplitFixed(L, frac)
		w := 0.0
		switch {
		case p.Name == "homogeneous" || b == 0:
			w = 1
		case p.Name == "short" && L <= b:
			w = 1
		case p.Name == "short" && L <= gb:
			w = m.PC
			in = max(1, min(in, b-out))
		case p.Name == "long" && L > gb:
			w = 1
		case p.Name == "long" && L > b:
			w = 1 - m.PC
		}
		if w == 0 {
			continue
		}
		kk := float64((in+g.ChunkTokens-1)/g.ChunkTokens + out)
		mass += w * pr
		k += w * pr * kk
		kl += w * pr * kk * float64(in+out)
	}
	if mass == 0 {
		return 0, 0
	}
	a := rate * k / (float64(p.GPUs) * float64(p.Slots)) // = λ_p·E[k]/(n·slots)
	coef := g.H * float64(p.Slots)
	if timing == pools.TimingKV {
		coef = g.H / float64(g.CalibCtx) * float64(p.Slots) * 0.9 * kl / k
	}
	ab = a * coef
	if ab >= 1 {
		return 1, ab
	}
	return math.Min(1, a*g.W/(1-ab)), ab
}
