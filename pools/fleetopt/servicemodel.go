package fleetopt

import (
	"fmt"

	"github.com/fleetsim/fleetsim/pools/catalog"
	"github.com/fleetsim/fleetsim/pools/occupancy"
)

// Service models of the planner (`fleetsim plan --service-model`).
const (
	ServicePaper     = "paper"     // M/G/c at the full-slot iteration time (the papers; the default)
	ServiceOccupancy = "occupancy" // the occupancy model, pools/occupancy (docs/planner.md §10)
)

// occupancyParts returns the traffic pool p of method m receives, as the
// planner models it: its plain slice, or (short-calibration mix) every run
// of its mixture with the run's weight — the estimate-noise model's
// compress probability included, which the plan's merged Mix report does
// not keep.
func (pl *Planner) occupancyParts(m MethodPlan, p PoolPlan) ([]occupancy.Part, error) {
	parts := plain(0, pl.cfg.LongCtx)
	if p.Name != "homogeneous" {
		sh, err := pl.shape(m.BShort, max(1, m.Gamma), m.PC, false)
		if err != nil {
			return nil, err
		}
		parts = sh.short
		if p.Name == "long" {
			parts = sh.long
		}
	}
	if lo, hi, one := parts.slice(); one {
		return []occupancy.Part{{Lo: lo, Hi: hi, Share: 1}}, nil
	}
	maxT := pl.cal.CDF().Max()
	var out []occupancy.Part
	total := 0.0
	for _, sp := range parts.parts {
		w := sp.Scale * (pl.cal.F(min(sp.Hi, maxT)) - pl.cal.F(sp.Lo))
		if !(w > 0) {
			continue
		}
		total += w
		out = append(out, occupancy.Part{Lo: sp.Lo, Hi: sp.Hi, Share: w, CompressTo: sp.CompressTo})
	}
	if !(total > 0) {
		return nil, fmt.Errorf("pool %s: no traffic", p.Name)
	}
	for i := range out {
		out[i].Share /= total
	}
	return out, nil
}

// OccupancyPool returns the occupancy model of pool p of method m (planned
// by pl) at its planned GPU count and arrival rate.
func (pl *Planner) OccupancyPool(m MethodPlan, p PoolPlan) (occupancy.Pool, error) {
	g, err := catalog.LookupGPU(p.GPU)
	if err != nil {
		return occupancy.Pool{}, err
	}
	tm, err := g.Timing(pl.cfg.Timing)
	if err != nil {
		return occupancy.Pool{}, err
	}
	parts, err := pl.occupancyParts(m, p)
	if err != nil {
		return occupancy.Pool{}, err
	}
	tr, err := occupancy.NewTraffic(pl.cal.CDF(), pl.cal.InputFraction(), g.ChunkTokens, parts)
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
	// The plan records the targets it was sized for.
	plan.SLOTTFTP99S, plan.SLOTPOTP99S = tg.P99TTFTS, tg.P99TPOTS
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
		op, err := pl.OccupancyPool(*m, *p)
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
