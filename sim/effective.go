package sim

import (
	"github.com/fleetsim/fleetsim/pools/autoscale"
	"github.com/fleetsim/fleetsim/sim/osd"
)

// Effective returns c with the defaults that Run applies spelled out (the
// workload's optional fields, central dispatch for pools that name none,
// the over-saturation detector's mode and guidellm's parameters), so that a
// summary records the settings a run used. The pools are copied.
func (c Config) Effective() Config {
	c.Workload = c.Workload.WithDefaults()
	c.Pools = append([]PoolConfig(nil), c.Pools...)
	for i := range c.Pools {
		if c.Pools[i].Dispatch == "" {
			c.Pools[i].Dispatch = DispatchCentral
			if c.Pools[i].PrefixCache.routing() != RouteLeastLoaded || c.Pools[i].Disaggregated != nil { // prefixroute.go, disagg.go: private queues
				c.Pools[i].Dispatch = DispatchJSQ
			}
		}
	}
	if a := c.Autoscale; a != nil && (a.Policy == "" || a.Policy == autoscale.PolicyStatic) && a.IntervalS == 0 && !c.scalingBlocks() && c.Router.Adaptive == nil {
		c.Autoscale = nil // a bare static autoscaler is today's fixed fleet
	} else if a != nil {
		d := a.WithDefaults()
		c.Autoscale = &d
	}
	if c.OSD.Mode == "" {
		c.OSD.Mode = OSDMonitor
	}
	if c.OSD.Params == nil && c.OSD.Mode != OSDOff {
		p := osd.DefaultConfig()
		c.OSD.Params = &p
	}
	return c
}
