package experiments

import (
	"fmt"
	"math"

	"github.com/fleetsim/fleetsim/pools/catalog"
	"github.com/fleetsim/fleetsim/pools/fleetopt"
	"github.com/fleetsim/fleetsim/pools/occupancy"
	"github.com/fleetsim/fleetsim/pools/queueing"
	"github.com/fleetsim/fleetsim/sim"
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
	Sim                                               PoolMeasure
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

// waitCounter counts post-warm-up requests whose queue wait exceeds a
// threshold.
type waitCounter struct {
	thr      float64
	n, waits int64
}

func (w *waitCounter) Write(r *sim.Record) error {
	if r.Warmup || r.Rejected {
		return nil
	}
	w.n++
	if r.QueueWaitS > w.thr {
		w.waits++
	}
	return nil
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
	scfg := sim.Defaults()
	scfg.Seed = c.Seed
	scfg.Timing = c.Timing
	scfg.Workload = workload.Spec{CDF: c.Workload, Rate: rate, Requests: c.Requests}
	scfg.Pools = []sim.PoolConfig{{Name: "pool", GPU: c.GPU, Count: c.GPUs, MaxContext: c.MaxCtx}}
	scfg.Router = sim.RouterConfig{Kind: sim.RouterLength}
	// Warm-up: 5 mean service times or 20% of the run, whichever is longer.
	scfg.WarmupFraction = math.Min(0.9, math.Max(0.2, WarmupServiceTimes*st.MeanS*rate/float64(c.Requests)))
	if err := scfg.Validate(); err != nil {
		return pc, err
	}
	src, err := workload.NewCDFSource(scfg.Workload, sub, c.Seed)
	if err != nil {
		return pc, err
	}
	thr := tm.W + (tm.HSeq+tm.HKV*float64(c.MaxCtx))*float64(slots)
	wc := &waitCounter{thr: thr}
	sum, err := sim.Run(scfg, src, wc, sim.Options{})
	if err != nil {
		return pc, err
	}
	s := sum.Pools[0]
	pc.Sim = PoolMeasure{Util: s.SlotUtilization, P99Wait: s.QueueWait.P99, P99TTFT: s.TTFT.P99, P99TPOT: s.TPOT.P99,
		Measured: s.Arrived, Preemptions: s.Preemptions, Overloaded: s.Overloaded, WaitThresholdS: thr}
	if wc.n > 0 {
		pc.Sim.PWait = float64(wc.waits) / float64(wc.n)
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
