package occupancy

import (
	"fmt"

	"github.com/fleetsim/fleetsim/pools/catalog"
	"github.com/fleetsim/fleetsim/pools/fleetopt"
	"github.com/fleetsim/fleetsim/workload"
)

// Service models of the planner (`fleetsim plan --service-model`).
const (
	ModelPaper     = "paper"     // M/G/c at the full-slot iteration time (the papers)
	ModelOccupancy = "occupancy" // this package
)

// PartsOf returns a planned pool's traffic parts: its mixture when it was
// calibrated on one (short-calibration mix), else its slice.
func PartsOf(p fleetopt.PoolPlan) []Part {
	if len(p.Mix) == 0 {
		return []Part{{Lo: p.SliceLo, Hi: p.SliceHi, Share: 1}}
	}
	parts := make([]Part, len(p.Mix))
	for i, m := range p.Mix {
		parts[i] = Part{Lo: m.Lo, Hi: m.Hi, Share: m.Share, CompressTo: m.CompressTo}
	}
	return parts
}

// PoolOf returns the occupancy model of a planned pool (at its planned GPU
// count and arrival rate) on the planner's GPU and timing preset.
func PoolOf(cdf *workload.CDF, frac float64, g catalog.GPU, timing string, p fleetopt.PoolPlan) (Pool, error) {
	tm, err := g.Timing(timing)
	if err != nil {
		return Pool{}, err
	}
	tr, err := NewTraffic(cdf, frac, g.ChunkTokens, PartsOf(p))
	if err != nil {
		return Pool{}, fmt.Errorf("pool %s: %w", p.Name, err)
	}
	return Pool{Timing: tm, Slots: p.Slots, GPUs: p.GPUs, Rate: p.ArrivalRate, Traffic: tr}, nil
}

// Resize re-sizes every pool of m with the occupancy model for the targets
// tg, on the same traffic (the planner's slices, rates and, for a C&R fleet,
// its B and γ: the paper model chooses the cell, the occupancy model sizes
// its pools). Each pool's GPUs, utilization, mean service, P99 wait,
// iteration time, P99 prefill and TTFT become the occupancy model's, and
// the totals and cost follow; the savings and closed forms are left as the
// paper model computed them. gpu returns a pool's GPU profile.
func Resize(cdf *workload.CDF, frac float64, timing string, m *fleetopt.MethodPlan, gpu func(name string) (catalog.GPU, error), tg Targets) ([]Prediction, error) {
	preds := make([]Prediction, len(m.Pools))
	m.TotalGPUs, m.AnnualUSD = 0, 0
	for i := range m.Pools {
		p := &m.Pools[i]
		g, err := gpu(p.GPU)
		if err != nil {
			return nil, err
		}
		op, err := PoolOf(cdf, frac, g, timing, *p)
		if err != nil {
			return nil, err
		}
		n, pr, err := Size(op, tg)
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
		p.AnnualUSD = float64(n) * g.CostPerHour * fleetopt.HoursPerYear
		m.TotalGPUs += n
		m.AnnualUSD += p.AnnualUSD
	}
	return preds, nil
}
