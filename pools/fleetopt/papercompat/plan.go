package papercompat

import (
	"fmt"
	"math"

	"github.com/fleetsim/fleetsim/pools/catalog"
	"github.com/fleetsim/fleetsim/pools/fleetopt"
)

// Calibration is the calibration name a papers-compatible plan reports.
const Calibration = "papers"

// Plan sizes the asked methods (fleetopt.MethodHomo, MethodPR, MethodRetrofit
// at cfg.Gamma, MethodFleetOpt: the cheapest γ of Gammas at the fixed B)
// and returns them as a fleetopt.Plan, so the CLI prints and writes it like
// any plan. Pool fields follow the papers' conventions: P99PrefillS is the
// *mean* prefill at one active sequence and IterS that iteration time
// W + H; GPUsByRhoMax is ⌈λ/(ρ_max·μ_gpu)⌉. A long pool whose traffic is
// at most MinLongRate gets no GPUs and is left out, as in fleet_sim.
func Plan(cfg Config, methods []string) (fleetopt.Plan, error) {
	if err := cfg.defaults(); err != nil {
		return fleetopt.Plan{}, err
	}
	homo, err := Homogeneous(cfg)
	if err != nil {
		return fleetopt.Plan{}, err
	}
	homoCost := float64(homo.GPUs) * cfg.LongGPU.CostPerHour * fleetopt.HoursPerYear
	p := fleetopt.Plan{
		Workload: cfg.CDF.Name, Rate: cfg.Rate, SLOTTFTP99S: cfg.SLO, RhoMax: cfg.RhoMax,
		Calibration: Calibration, ShortCalibration: fleetopt.ShortCalibPaper, Samples: Samples, Seed: Seed,
		Timing: catalog.DefaultTiming, InputFraction: InputFraction, ChunkTokens: cfg.ShortGPU.ChunkTokens,
	}
	var sweep []Cell
	for _, m := range methods {
		mp := fleetopt.MethodPlan{Method: m, Calibration: Calibration, ShortCalibration: fleetopt.ShortCalibPaper, PC: cfg.PC}
		switch m {
		case fleetopt.MethodHomo:
			mp.Alpha, mp.AlphaPrime = 1, 1
			mp.Corrected = cfg.Rate / homo.MuGPU
			mp.Pools = []fleetopt.PoolPlan{poolPlan("homogeneous", cfg.LongGPU, cfg.LongCtx, 0, cfg.LongCtx, homo, cfg.RhoMax)}
		case fleetopt.MethodPR, fleetopt.MethodRetrofit, fleetopt.MethodFleetOpt:
			var c Cell
			switch m {
			case fleetopt.MethodFleetOpt:
				if sweep == nil {
					if sweep, err = Sweep(cfg, nil); err != nil {
						return fleetopt.Plan{}, err
					}
				}
				c = Best(sweep)
				mp.SweepCells = len(sweep)
			default:
				g := 1.0
				if m == fleetopt.MethodRetrofit {
					g = cfg.Gamma
				}
				cells, err := Sweep(cfg, []float64{g})
				if err != nil {
					return fleetopt.Plan{}, err
				}
				c = cells[0]
			}
			fillTwoPool(&mp, cfg, c, homo)
		default:
			return fleetopt.Plan{}, fmt.Errorf("method %q: allowed: homo, pr, retrofit, fleetopt", m)
		}
		for _, pp := range mp.Pools {
			mp.TotalGPUs += pp.GPUs
			mp.AnnualUSD += pp.AnnualUSD
			mp.ProfilerGPUs += pp.ProfilerGPUs
		}
		if homoCost > 0 {
			mp.Savings = 1 - mp.AnnualUSD/homoCost
		}
		p.Methods = append(p.Methods, mp)
	}
	return p, nil
}

func fillTwoPool(mp *fleetopt.MethodPlan, cfg Config, c Cell, homo Pool) {
	gb := int(c.Gamma * float64(cfg.BShort))
	mp.BShort, mp.Gamma = cfg.BShort, c.Gamma
	mp.Alpha, mp.Beta, mp.AlphaPrime = c.Alpha, c.Beta, c.AlphaPrime
	mp.CliffRatio = float64(c.Short.Slots) / float64(cfg.LongGPU.Slots(cfg.LongCtx))
	mp.Pools = []fleetopt.PoolPlan{poolPlan("short", cfg.ShortGPU, cfg.BShort, 0, cfg.BShort, c.Short, cfg.RhoMax)}
	if c.Long.GPUs > 0 {
		mp.Pools = append(mp.Pools, poolPlan("long", cfg.LongGPU, cfg.LongCtx, gb, cfg.LongCtx, c.Long, cfg.RhoMax))
	}
	// The papers' closed forms beside the sized fleet (docs/planner.md §4).
	ap := c.AlphaPrime
	mp.ClosedForm = ap * (1 - homo.MuGPU/c.Short.MuGPU)
	mp.ClosedCliff = ap * (1 - 1/mp.CliffRatio)
	mp.Corrected = ap * cfg.Rate / c.Short.MuGPU
	if c.LongSlice {
		mp.Corrected += (1 - ap) * cfg.Rate / c.Long.MuGPU
	}
	mp.CorrectedSav = 1 - mp.Corrected/(cfg.Rate/homo.MuGPU)
}

func poolPlan(name string, g catalog.GPU, maxCtx, lo, hi int, p Pool, rhoMax float64) fleetopt.PoolPlan {
	pp := fleetopt.PoolPlan{
		Name: name, GPU: g.Name, MaxCtx: maxCtx, Slots: p.Slots, SliceLo: lo, SliceHi: hi,
		ArrivalRate: p.Lambda, MuGPU: p.MuGPU, MeanServiceS: p.MeanServiceS, Cs2: p.Cs2, GPUs: p.GPUs,
		GPUsByRhoMax: int(math.Ceil(p.Lambda / (rhoMax * p.MuGPU))),
		P99WaitS:     p.P99WaitS, P99PrefillS: p.MeanPrefillS, IterS: g.W + g.H, P99TTFTS: p.P99TTFTS,
		USDPerHour: g.CostPerHour, AnnualUSD: float64(p.GPUs) * g.CostPerHour * fleetopt.HoursPerYear,
	}
	if p.GPUs > 0 {
		pp.Utilization = p.Lambda / (float64(p.GPUs) * p.MuGPU)
	}
	headroom := map[string]float64{"homogeneous": fleetopt.HeadroomHomo, "short": fleetopt.HeadroomShort, "long": fleetopt.HeadroomLong}[name]
	if p.Lambda > 0 {
		pp.ProfilerGPUs = int(math.Ceil(p.Lambda / p.MuGPU * headroom * (1 - 1e-12))) // as fleetopt's profiler_gpus
	}
	return pp
}
