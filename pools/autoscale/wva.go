package autoscale

import (
	"fmt"
	"math"

	"github.com/fleetsim/fleetsim/pools/variants"
)

// WVA runs the variant optimizer (variants.Optimize, what `fleetsim
// optimize` runs) every interval on the load measured over it: workload
// Pools[i] of Config gets pool i's arrival rate (RateRPS·60 requests per
// minute) and its mean prompt and output tokens (rounded, at least 1),
// and the pool's count is that workload's replicas. A pool that saw no
// arrivals keeps its previous means (or the file's) at rate 0. In limited
// mode the inventory bounds the replicas of all pools together. Config must
// be valid with its profiles resolved; give each pool's workload only the
// variant the pool runs, so that a replica is one of the pool's instances.
type WVA struct {
	Config  *variants.Config
	Options variants.Options
	Pools   []int // workload index of each pool
	Err     error // first optimizer error (the counts then stay as they were)
}

// NewWVA returns the policy; pools[i] is the index in cfg.Workloads of pool
// i's workload.
func NewWVA(cfg *variants.Config, o variants.Options, pools []int) (*WVA, error) {
	for i, w := range pools {
		if w < 0 || w >= len(cfg.Workloads) {
			return nil, fmt.Errorf("autoscale.wva: pool %d: workload index %d not in the variants file's %d workloads", i, w, len(cfg.Workloads))
		}
	}
	c := *cfg
	c.Workloads = append([]variants.Workload(nil), cfg.Workloads...)
	return &WVA{Config: &c, Options: o, Pools: pools}, nil
}

// Load returns the optimizer's input for the observations: the config with
// each pool's workload set to its measured load.
func (p *WVA) Load(obs []Observation) *variants.Config {
	for i, o := range obs {
		w := &p.Config.Workloads[p.Pools[i]]
		w.RateRPM = o.RateRPS * 60
		if o.Arrivals > 0 {
			w.InTokens = max(int(math.Round(o.MeanIn)), 1)
			w.OutTokens = max(int(math.Round(o.MeanOut)), 1)
		}
	}
	return p.Config
}

// Failed returns the first optimizer error (nil when none).
func (p *WVA) Failed() error { return p.Err }

// Decide returns each pool's replicas as the optimizer allocates them for
// the load of the last interval.
func (p *WVA) Decide(obs []Observation) []int {
	out := make([]int, len(obs))
	for i, o := range obs {
		out[i] = o.Current
	}
	res, err := variants.Optimize(p.Load(obs), p.Options)
	if err != nil {
		if p.Err == nil {
			p.Err = err
		}
		return out
	}
	for i := range obs {
		out[i] = res.Allocations[p.Pools[i]].Replicas
	}
	return out
}
