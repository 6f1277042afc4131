package experiments

import (
	"fmt"
	"math"

	"github.com/fleetsim/fleetsim/pools/catalog"
	"github.com/fleetsim/fleetsim/pools/fleetopt"
	"github.com/fleetsim/fleetsim/pools/occupancy"
	"github.com/fleetsim/fleetsim/pools/queueing"
	"github.com/fleetsim/fleetsim/router"
	"github.com/fleetsim/fleetsim/sim"
	"github.com/fleetsim/fleetsim/sim/slotsim"
	"github.com/fleetsim/fleetsim/workload"
)

// This file checks the occupancy service model (pools/occupancy) against
// the simulator on one pool fed by one slice of a CDF: the single-GPU
// long-pool check of issue 8 and the load sweep.

// PoolCase is one pool serving the lengths (Lo, Hi] of a workload at a
// load Rho in the planner's units: λ = Rho·GPUs·μ_gpu, μ_gpu the papers'
// n_slots/E[S] (exact calibration, iteration at full slots).
type PoolCase struct {
	Workload string
	Lo, Hi   int    // length slice, tokens
	MaxCtx   int    // pool max context, tokens
	GPU      string // catalog name (a100)
	GPUs     int
	Rho      float64
	Timing   string // kv (default) or paper
	Requests int    // simulated requests
	Seed     uint64
	// Fidelities to simulate (default: engine only).
	Fidelities []string
	// KVMaxSeqs is the kv fidelity's max_seqs (DefaultKVMaxSeqs when 0).
	KVMaxSeqs int
}

// PoolCheck is a PoolCase's analytic predictions beside its measurement.
type PoolCheck struct {
	Case  PoolCase
	Slots int
	Rate  float64 // λ, requests/s
	// Paper (M/G/c at full-slot iteration time).
	PaperUtil, PaperPWait, PaperP99Wait, PaperP99TTFT float64
	Occ                                               occupancy.Prediction
	OccErr                                            error
	// Sim is the engine fidelity; Slot and KV the others when asked.
	Sim  PoolMeasure
	Slot *slotsim.Result
	KV   *PoolMeasure
}

// PoolMeasure is what a simulated pool measured.
type PoolMeasure struct {
	Util, PWait, P99Wait, P99TTFT, P99TPOT float64
	Measured, Preemptions                  int64
	Overloaded                             bool
	// WaitThresholdS is the wait above which a request counts as having
	// waited for a slot (PWait): the pool's longest possible iteration.
	WaitThresholdS float64
}

// poolTraffic returns a slice's occupancy traffic, the planner's service
// statistics and the pool's timing.
func poolTraffic(c PoolCase) (*workload.CDF, *occupancy.Traffic, fleetopt.ServiceStats, catalog.GPU, error) {
	cdf, err := workload.LoadCDF(c.Workload)
	if err != nil {
		return nil, nil, fleetopt.ServiceStats{}, catalog.GPU{}, err
	}
	g, err := catalog.LookupGPU(c.GPU)
	if err != nil {
		return nil, nil, fleetopt.ServiceStats{}, g, err
	}
	cal, err := fleetopt.NewCalibrator(cdf, workload.DefaultInputFraction, g.ChunkTokens)
	if err != nil {
		return nil, nil, fleetopt.ServiceStats{}, g, err
	}
	pt, err := fleetopt.PoolTimingOf(g, c.MaxCtx, c.Timing)
	if err != nil {
		return nil, nil, fleetopt.ServiceStats{}, g, err
	}
	st, err := cal.Exact(c.Lo, c.Hi, pt)
	if err != nil {
		return nil, nil, st, g, err
	}
	tr, err := occupancy.NewTraffic(cdf, workload.DefaultInputFraction, g.ChunkTokens, []occupancy.Part{{Lo: c.Lo, Hi: c.Hi, Share: 1}})
	return cdf, tr, st, g, err
}

// CheckPool predicts a PoolCase with both service models and simulates it.
func CheckPool(c PoolCase) (PoolCheck, error) {
	if c.Timing == "" {
		c.Timing = catalog.DefaultTiming
	}
	if c.Seed == 0 {
		c.Seed = 1
	}
	cdf, tr, st, g, err := poolTraffic(c)
	if err != nil {
		return PoolCheck{}, err
	}
	slots := g.Slots(c.MaxCtx)
	rate := c.Rho * float64(c.GPUs) * st.MuGPU
	pc := PoolCheck{Case: c, Slots: slots, Rate: rate, PaperUtil: c.Rho}
	servers := c.GPUs * slots
	pc.PaperPWait = queueing.ErlangC(servers, rate*st.MeanS)
	pc.PaperP99Wait = queueing.KimuraP99Wait(servers, 1/st.MeanS, rate, st.Cs2)
	pt, _ := fleetopt.PoolTimingOf(g, c.MaxCtx, c.Timing)
	it := pt.W + pt.H/float64(pt.CalibCtx)*c.Rho*float64(slots)*st.KVLen
	if pt.Preset == catalog.TimingPaper {
		it = pt.W + pt.H*c.Rho*float64(slots)
	}
	pc.PaperP99TTFT = pc.PaperP99Wait + float64(st.P99Iters+1)*it
	tm, err := g.Timing(c.Timing)
	if err != nil {
		return pc, err
	}
	pc.Occ, pc.OccErr = occupancy.Pool{Timing: tm, Slots: slots, GPUs: c.GPUs, Rate: rate, Traffic: tr}.Predict()

	sub, err := cdf.Restrict(c.Lo, c.Hi)
	if err != nil {
		return pc, err
	}
	fids := c.Fidelities
	if len(fids) == 0 {
		fids = []string{FidelityEngine}
	}
	warm := math.Max(WarmupServiceTimes*st.MeanS*rate, 0.2*float64(c.Requests))
	warmFrac := math.Min(0.9, warm/float64(c.Requests))
	for _, f := range fids {
		if f == FidelitySlot {
			src, err := workload.NewCDFSource(workload.Spec{CDF: c.Workload, Rate: rate, Requests: c.Requests}, sub, c.Seed)
			if err != nil {
				return pc, err
			}
			// The warm-up ends near the arrival of request warm.
			r, err := runSlot(g, c.MaxCtx, c.GPUs, c.Timing, src, math.Floor(warmFrac*float64(c.Requests))/rate)
			if err != nil {
				return pc, err
			}
			pc.Slot = &r
			continue
		}
		pcfg := sim.PoolConfig{Name: "pool", GPU: c.GPU, Count: c.GPUs, MaxContext: c.MaxCtx}
		if f == FidelityKV {
			pcfg.MaxSeqs = c.KVMaxSeqs
			if pcfg.MaxSeqs == 0 {
				pcfg.MaxSeqs = DefaultKVMaxSeqs
			}
		}
		scfg := sim.Defaults()
		scfg.Seed = c.Seed
		scfg.Timing = c.Timing
		scfg.Workload = workload.Spec{CDF: c.Workload, Rate: rate, Requests: c.Requests}
		scfg.Pools = []sim.PoolConfig{pcfg}
		scfg.Router = sim.RouterConfig{Config: router.Config{Kind: sim.RouterLength}}
		scfg.WarmupFraction = math.Max(warmFrac, 0.01)
		if err := scfg.Validate(); err != nil {
			return pc, err
		}
		src, err := workload.NewCDFSource(scfg.Workload, sub, c.Seed)
		if err != nil {
			return pc, err
		}
		slots := slots
		if pcfg.MaxSeqs > 0 {
			slots = pcfg.MaxSeqs
		}
		w := newPoolWaits()
		w.thr["pool"] = maxIter(g, c.MaxCtx, slots, c.Timing)
		sum, err := sim.Run(scfg, src, w, sim.Options{})
		if err != nil {
			return pc, err
		}
		m := measure(sum.Pools[0], w)
		if f == FidelityKV {
			m = kvMeasure(sum.Pools[0], w, g, c.MaxCtx, pcfg.MaxSeqs)
			pc.KV = &m
		} else {
			pc.Sim = m
		}
	}
	return pc, nil
}

// String is a one-line summary of a check (for logs).
func (pc PoolCheck) String() string {
	return fmt.Sprintf("%s (%d,%d] %d×%s ρ=%.2f λ=%.4g: util paper %.3f occ %.3f sim %.3f | P(wait) paper %.3f occ %.3f sim %.3f | P99 wait paper %.3f occ %.3f sim %.3f | P99 TTFT paper %.3f occ %.3f sim %.3f | P99 TPOT occ %.4f sim %.4f | n=%d overloaded=%v",
		pc.Case.Workload, pc.Case.Lo, pc.Case.Hi, pc.Case.GPUs, pc.Case.GPU, pc.Case.Rho, pc.Rate,
		pc.PaperUtil, pc.Occ.Utilization, pc.Sim.Util, pc.PaperPWait, pc.Occ.PWait, pc.Sim.PWait,
		pc.PaperP99Wait, pc.Occ.P99WaitS, pc.Sim.P99Wait, pc.PaperP99TTFT, pc.Occ.P99TTFTS, pc.Sim.P99TTFT,
		pc.Occ.P99TPOTS, pc.Sim.P99TPOT, pc.Sim.Measured, pc.Sim.Overloaded)
}
