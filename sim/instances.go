package sim

// gpusPerInstance is the physical GPUs of one instance of the pool: the
// tensor-parallel degree of a computed profile, 1 for a profile that does
// not state it (the hand-written ones) or one that does not resolve (a
// validated configuration always resolves).
func (p PoolConfig) gpusPerInstance() int {
	g, err := p.InstanceProfile()
	if err != nil {
		return 1
	}
	return g.GPUsPerInstance()
}

// InstanceCount is the serving instances: Instances, or GPUs when they are
// the same (Instances = 0).
func (m *PoolMetrics) InstanceCount() int {
	if m.Instances > 0 {
		return m.Instances
	}
	return m.GPUs
}
