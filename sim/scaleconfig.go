package sim

import (
	"fmt"
	"math"

	"github.com/fleetsim/fleetsim/pools/autoscale"
	"github.com/fleetsim/fleetsim/pools/catalog"
)

// PoolScaling is a pool's scaling block in a scenario file (key scaling,
// docs/day.md): its bounds, reserved floor, prices and start-up. Absent
// fields take sim.DefaultScaling's values: min = max = reserved = count,
// both rates the instance profile's cost per hour, the start-up delay of
// its weights.
type PoolScaling struct {
	MinInstances      *int     `json:"min_instances,omitempty" yaml:"min_instances,omitempty"`
	MaxInstances      *int     `json:"max_instances,omitempty" yaml:"max_instances,omitempty"` // 0: no upper bound
	ReservedInstances *int     `json:"reserved_instances,omitempty" yaml:"reserved_instances,omitempty"`
	ReservedRate      *float64 `json:"reserved_rate,omitempty" yaml:"reserved_rate,omitempty"`   // USD per instance-hour
	OnDemandRate      *float64 `json:"on_demand_rate,omitempty" yaml:"on_demand_rate,omitempty"` // USD per instance-hour
	// StartupS is the start-up delay, s; without it, ProvisionS + the
	// weights / LoadBandwidth (catalog.Startup; zero fields: defaults).
	StartupS      *float64 `json:"startup_s,omitempty" yaml:"startup_s,omitempty"`
	ProvisionS    float64  `json:"provision_s,omitempty" yaml:"provision_s,omitempty"`
	LoadBandwidth float64  `json:"load_bandwidth,omitempty" yaml:"load_bandwidth,omitempty"` // bytes/s
}

// Scaling returns the pool's effective scaling (its bounds, prices and
// start-up delay), the scaling block over DefaultScaling.
func (p PoolConfig) Scaling() (Scaling, error) {
	g, err := p.gpu()
	if err != nil {
		return Scaling{}, err
	}
	var st catalog.Startup
	sc := PoolScaling{}
	if p.ScalingBlock != nil {
		sc = *p.ScalingBlock
		st = catalog.Startup{ProvisionS: sc.ProvisionS, LoadBandwidth: sc.LoadBandwidth}
		if err := st.Validate(); err != nil {
			return Scaling{}, err
		}
	}
	name := p.GPU
	if p.Model != "" {
		name = g.Name
	}
	s := DefaultScaling(name, g, p.Count, st)
	setI := func(dst *int, v *int) {
		if v != nil {
			*dst = *v
		}
	}
	setF := func(dst *float64, v *float64) {
		if v != nil {
			*dst = *v
		}
	}
	setI(&s.Max, sc.MaxInstances)
	if s.Max > 0 {
		s.Min = min(s.Min, s.Max)
	}
	setI(&s.Min, sc.MinInstances)
	setI(&s.Reserved, sc.ReservedInstances)
	setF(&s.ReservedRate, sc.ReservedRate)
	setF(&s.OnDemandRate, sc.OnDemandRate)
	setF(&s.StartupS, sc.StartupS)
	if sc.ReservedInstances == nil {
		// Without an explicit floor the reserved instances are the minimum.
		s.Reserved = s.Min
	}
	if err := s.Validate(); err != nil {
		return s, err
	}
	if p.Count < s.Min || (s.Max > 0 && p.Count > s.Max) {
		return s, fmt.Errorf("count = %d: the initial instances must be in [min_instances = %d, max_instances = %d]", p.Count, s.Min, s.Max)
	}
	return s, nil
}

// autoscaled reports whether the run changes pool sizes or accounts for
// them: an autoscaler is configured (static included, for the cost
// accounting) or the router adapts B_short.
func (c *Config) autoscaled() bool { return c.Autoscale != nil || c.Router.Adaptive != nil }

// ticking reports whether the run needs control ticks: a policy other than
// static, or an adaptive B_short. A static run without one schedules no
// event at all (today's run, byte for byte).
func (c *Config) ticking() bool {
	return (c.Autoscale != nil && c.Autoscale.WithDefaults().Policy != autoscale.PolicyStatic) || c.Router.Adaptive != nil
}

// PoolNames returns the pools' names in Config.Pools order.
func (c *Config) PoolNames() []string {
	names := make([]string, len(c.Pools))
	for i, p := range c.Pools {
		names[i] = p.Name
	}
	return names
}

// validateScaling checks the scaling blocks, the autoscaler and the
// adaptive threshold (called by Validate once the pools are valid).
func (c *Config) validateScaling() error {
	for i, p := range c.Pools {
		if c.autoscaled() && (p.Disaggregated != nil || p.PrefixCache != nil) {
			return bad(fmt.Sprintf("pools[%d]", i), p.Name, "an autoscaled run (autoscale, router.adaptive) does not yet support prefix_cache or disaggregated pools")
		}
		if p.ScalingBlock == nil && c.Autoscale == nil {
			continue
		}
		if _, err := p.Scaling(); err != nil {
			return fmt.Errorf("pools[%d].scaling.%w", i, err)
		}
	}
	if c.Autoscale != nil {
		if err := c.Autoscale.Validate(c.PoolNames()); err != nil {
			return err
		}
		if c.Autoscale.WithDefaults().Policy == autoscale.PolicyWVA && c.Variants == nil {
			return bad("autoscale.variants", c.Autoscale.Variants, "the variants file was not loaded (the CLI reads it)")
		}
	}
	if a := c.Router.Adaptive; a != nil {
		if err := a.Validate(); err != nil {
			return err
		}
		if len(c.Pools) < 2 {
			return bad("router.adaptive", "set", "an adaptive B_short needs at least two pools (a short and a long one)")
		}
		if c.Router.Kind == "" || c.Router.Kind == RouterLength {
			return bad("router.adaptive", "set", "an adaptive B_short needs a router with a threshold (kind token-budget, spillover or cr)")
		}
		smallest := math.MaxInt
		for _, p := range c.Pools {
			smallest = min(smallest, p.MaxContext)
		}
		if a.MaxBShort > smallest {
			return bad("router.adaptive.max_b_short", a.MaxBShort, "must be <= the smallest pool's max context %d", smallest)
		}
	}
	return nil
}

// adaptiveStart is the B_short an adaptive threshold starts from: the
// router's b_short, else the smallest pool's max context.
func (c *Config) adaptiveStart() int {
	if c.Router.BShort > 0 {
		return c.Router.BShort
	}
	smallest := math.MaxInt
	for _, p := range c.Pools {
		smallest = min(smallest, p.MaxContext)
	}
	return smallest
}

// scalingBlocks reports whether any pool has a scaling block.
func (c *Config) scalingBlocks() bool {
	for _, p := range c.Pools {
		if p.ScalingBlock != nil {
			return true
		}
	}
	return false
}
