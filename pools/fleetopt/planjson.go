package fleetopt

import "encoding/json"

// PhysicalGPUs is the pool's GPUs: its instances × TP (the instances of a
// profile that does not state TP are GPUs).
func (p PoolPlan) PhysicalGPUs() int { return p.GPUs * max(p.TP, 1) }

// TotalPhysicalGPUs is the method's GPUs, Σ PhysicalGPUs over its pools.
func (m MethodPlan) TotalPhysicalGPUs() int {
	n := 0
	for _, p := range m.Pools {
		n += p.PhysicalGPUs()
	}
	return n
}

// poolPlanJSON is PoolPlan's JSON form: for a computed profile (TP > 0),
// "gpus" is the physical GPUs and "instances" the instances; for a
// hand-written profile "gpus" is the instances and there is no
// "instances" (the papers' plans are unchanged).
type poolPlanJSON struct {
	poolPlanAlias
	Instances int `json:"instances,omitempty"`
}

type poolPlanAlias PoolPlan

// MarshalJSON writes gpus = instances × tp and instances for a computed
// profile.
func (p PoolPlan) MarshalJSON() ([]byte, error) {
	j := poolPlanJSON{poolPlanAlias: poolPlanAlias(p)}
	if p.TP > 0 {
		j.Instances, j.GPUs = p.GPUs, p.PhysicalGPUs()
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads MarshalJSON's form, and a plan file written before
// "instances" existed (its "gpus" counted instances).
func (p *PoolPlan) UnmarshalJSON(b []byte) error {
	var j poolPlanJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*p = PoolPlan(j.poolPlanAlias)
	if j.Instances > 0 {
		p.GPUs = j.Instances
	}
	return nil
}

// methodPlanJSON is MethodPlan's JSON form: when a pool has a computed
// profile, "total_gpus" is the physical GPUs and "total_instances" the
// instances.
type methodPlanJSON struct {
	methodPlanAlias
	TotalInstances int `json:"total_instances,omitempty"`
}

type methodPlanAlias MethodPlan

// MarshalJSON writes total_gpus = Σ physical GPUs and total_instances when
// a pool has a computed profile.
func (m MethodPlan) MarshalJSON() ([]byte, error) {
	j := methodPlanJSON{methodPlanAlias: methodPlanAlias(m)}
	if n := m.TotalPhysicalGPUs(); n != m.TotalGPUs {
		j.TotalInstances, j.TotalGPUs = m.TotalGPUs, n
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads MarshalJSON's form (and older plan files).
func (m *MethodPlan) UnmarshalJSON(b []byte) error {
	var j methodPlanJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*m = MethodPlan(j.methodPlanAlias)
	if j.TotalInstances > 0 {
		m.TotalGPUs = j.TotalInstances
	}
	return nil
}
