package sim

import "github.com/fleetsim/fleetsim/pools/catalog"

// gpu returns the pool's GPU profile with its slot rule applied.
func (p PoolConfig) gpu() (catalog.GPU, error) {
	g, err := p.InstanceProfile()
	if err != nil {
		return g, err
	}
	return g.WithSlotRule(p.SlotRule)
}
