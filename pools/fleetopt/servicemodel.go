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

// ResizeOccupancy re-sizes every pool of m with the occupancy model for the targets
// tg, on the same traffic (the planner's slices, rates and, for a C&R fleet,
// its B and γ: the paper model chooses the cell, the occupancy model sizes
// its pools). Each pool's GPUs, utilization, mean service, P99 wait,
// iteration time, P99 prefill and TTFT become the occupancy model's, and
// the totals and cost follow; the savings and closed forms are left as the
// paper model computed them. gpu returns a pool's GPU profile.
func ResizeOccupancy(cdf *workload.CDF, frac float64, timing string, m *MethodPlan, gpu func(name string) (catalog.GPU, error), tg occupancy.Targets) ([]occupancy.Prediction, error) {
	preds := make([]occupancy.Prediction, len(m.Pools))
	m.TotalGPUs, m.AnnualUSD = 0, 0
	for i := range m.Pools {
		p := &m.Pools[i]
		g, err := gpu(p.GPU)
		if err != nil {
			return nil, err
		}
		op, err := OccupancyPool(cdf, frac, g, timing, *p)
		if err != nil {
			return nil, err
		}
		n, pr, err := occupancy.Size(op, tg)
		if err != nil {
			return nil, fmt.Errorf("pool %s: %w", p.Name, err)
		}
		preds[i] = pr
		p.GPUs = n
		p.Utilization = pr.Utilization
		p.MeanServiceS = pr.MeanServiceS
		p.P99WaitS = pr.P99WaitS
		p.IterS = pr.IterS
		p.P99TTFTS = pr.P99TTFTS
		p.P99PrefillS = float64(p.Stats().P99Iters) * pr.IterS
		p.AnnualUSD = float64(n) * g.CostPerHour * HoursPerYear
		m.TotalGPUs += n
		m.AnnualUSD += p.AnnualUSD
	}
	return preds, nil
}
