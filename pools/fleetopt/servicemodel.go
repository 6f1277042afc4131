package fleetopt

import (
	"fmt"

	"github.com/fleetsim/fleetsim/pools/catalog"
	"github.com/fleetsim/fleetsim/pools/occupancy"
	"github.com/fleetsim/fleetsim/workload"
)

// Service models of the planner (`fleetsim plan --service-model`).
const (
	ServicePaper     = "paper"     // M/G/c at the full-slot iteration time (the papers; the default)
	ServiceOccupancy = "occupancy" // the occupancy model, pools/occupancy (docs/planner.md §9)
)

// OccupancyParts returns a planned pool's traffic parts: its mixture when it was
// calibrated on one (short-calibration mix), else its slice.
func OccupancyParts(p PoolPlan) []occupancy.Part {
	if len(p.Mix) == 0 {
		return []occupancy.Part{{Lo: p.SliceLo, Hi: p.SliceHi, Share: 1}}
	}
	parts := make([]occupancy.Part, len(p.Mix))
	for i, m := range p.Mix {
		parts[i] = occupancy.Part{Lo: m.Lo, Hi: m.Hi, Share: m.Share, CompressTo: m.CompressTo}
	}
	return parts
}

// OccupancyPool returns the occupancy model of a planned pool (at its planned GPU
// count and arrival rate) on the planner's GPU and timing preset.
func OccupancyPool(cdf *workload.CDF, frac float64, g catalog.GPU, timing string, p PoolPlan) (occupancy.Pool, error) {
	tm, err := g.Timing(timing)
	if err != nil {
		return occupancy.Pool{}, err
	}
	tr, err := occupancy.NewTraffic(cdf, frac, g.ChunkTokens, OccupancyParts(p))
	if err != nil {
		return occupancy.Pool{}, fmt.Errorf("pool %s: %w", p.Name, err)
	}
	return occupancy.Pool{Timing: tm, Slots: p.Slots, GPUs: p.GPUs, Rate: p.ArrivalRate, Traffic: tr}, nil
}

// ApplyOccupancy re-sizes every pool of plan (made by pl) with the
// occupancy model for the targets tg, on the same traffic: the planner's
// slices, rates and, for a C&R fleet, its B and γ (the paper model chooses
// FleetOpt's cell; the occupancy model sizes its pools). Each pool keeps
// the paper's count in GPUsPaper and gets the occupancy model's GPUs,
// utilization, mean slot time, P99 wait, iteration time, P99 prefill, P99
// TTFT and its full Prediction; totals, cost and the savings against the
// homogeneous fleet (re-sized the same way; unchanged when that fleet
// cannot meet the targets) follow. The closed forms and
// profiler counts stay the paper model's. tg.RhoMax 0 takes the planner's
// ρ_max and tg.P99TTFTS 0 its SLO.
func (pl *Planner) ApplyOccupancy(plan *Plan, tg occupancy.Targets) error {
	if tg.RhoMax == 0 {
		tg.RhoMax = pl.cfg.RhoMax
	}
	if tg.P99TTFTS == 0 {
		tg.P99TTFTS = pl.cfg.SLO
	}
	homo, err := pl.Homogeneous()
	if err != nil {
		return err
	}
	homo.Pools = append([]PoolPlan(nil), homo.Pools...)
	// A homogeneous fleet that cannot meet the targets leaves the savings
	// as the paper model computed them.
	homoOK := pl.resizeOccupancy(&homo, tg) == nil
	for i := range plan.Methods {
		m := &plan.Methods[i]
		m.Pools = append([]PoolPlan(nil), m.Pools...)
		if err := pl.resizeOccupancy(m, tg); err != nil {
			return err
		}
		if homoOK && homo.AnnualUSD > 0 {
			m.Savings = 1 - m.AnnualUSD/homo.AnnualUSD
		}
	}
	plan.ServiceModel = ServiceOccupancy
	return nil
}

func (pl *Planner) resizeOccupancy(m *MethodPlan, tg occupancy.Targets) error {
	m.TotalGPUs, m.AnnualUSD = 0, 0
	for i := range m.Pools {
		p := &m.Pools[i]
		g, err := catalog.LookupGPU(p.GPU)
		if err != nil {
			return err
		}
		op, err := OccupancyPool(pl.cal.CDF(), pl.cal.InputFraction(), g, pl.cfg.Timing, *p)
		if err != nil {
			return err
		}
		n, pr, err := occupancy.Size(op, tg)
		if err != nil {
			return fmt.Errorf("pool %s: %w", p.Name, err)
		}
		p.GPUsPaper = p.GPUs
		p.GPUs = n
		p.Occupancy = &pr
		p.Utilization = pr.Utilization
		p.MeanServiceS = pr.MeanServiceS
		p.P99WaitS = pr.P99WaitS
		p.IterS = pr.IterS
		p.P99PrefillS = float64(p.stats.P99Iters) * pr.IterS
		p.P99TTFTS = pr.P99TTFTS
		p.AnnualUSD = float64(n) * g.CostPerHour * HoursPerYear
		m.TotalGPUs += n
		m.AnnualUSD += p.AnnualUSD
	}
	return nil
}
