package fleetopt

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/fleetsim/fleetsim/pools/catalog"
)

// PlannedPool is what a simulation needs of one planned pool: its name, GPU
// profile, instance count and max context. The router threshold of a
// two-pool plan is the short pool's MaxCtx (B_short).
type PlannedPool struct {
	Name   string // "short", "long" or "homogeneous"
	GPU    string // catalog name (LookupGPU)
	Count  int    // instances (GPUs or TP groups)
	MaxCtx int    // max context, tokens
}

// ReadPlan reads a plan written by `fleetsim plan --format json` (a Plan)
// and returns the pools of the named method ("homo", "pr", "retrofit",
// "fleetopt"). With method "" the plan must hold exactly one method. Every
// pool's GPU must be in the catalog, its count >= 1 and its max context
// within the GPU's KV budget.
func ReadPlan(r io.Reader, method string) ([]PlannedPool, error) {
	m, err := ReadPlanMethod(r, method)
	if err != nil {
		return nil, err
	}
	out := make([]PlannedPool, 0, len(m.Pools))
	for _, pp := range m.Pools {
		out = append(out, PlannedPool{Name: pp.Name, GPU: strings.ToLower(pp.GPU), Count: pp.GPUs, MaxCtx: pp.MaxCtx})
	}
	return out, nil
}

// ReadPlanMethod is ReadPlan returning the whole validated method: besides
// the pools, its router settings B_short (BShort, 0 for homo), γ (Gamma, > 1
// when the fleet relies on compress-and-route) and p_c (PC).
func ReadPlanMethod(r io.Reader, method string) (MethodPlan, error) {
	var p Plan
	dec := json.NewDecoder(r)
	if err := dec.Decode(&p); err != nil {
		return MethodPlan{}, fmt.Errorf("plan: not a fleetsim plan JSON document: %v", err)
	}
	if len(p.Methods) == 0 {
		return MethodPlan{}, fmt.Errorf("plan: no methods (want the output of `fleetsim plan --format json`)")
	}
	var m *MethodPlan
	names := make([]string, len(p.Methods))
	for i := range p.Methods {
		names[i] = p.Methods[i].Method
		if p.Methods[i].Method == method {
			m = &p.Methods[i]
		}
	}
	if method == "" {
		if len(p.Methods) != 1 {
			return MethodPlan{}, fmt.Errorf("plan: holds methods %s; name one", strings.Join(names, ", "))
		}
		m = &p.Methods[0]
	}
	if m == nil {
		return MethodPlan{}, fmt.Errorf("plan: method %q not in the plan (it holds %s)", method, strings.Join(names, ", "))
	}
	if len(m.Pools) == 0 {
		return MethodPlan{}, fmt.Errorf("plan: method %q has no pools", m.Method)
	}
	for i, pp := range m.Pools {
		g, err := catalog.LookupGPU(pp.GPU)
		if err != nil {
			return MethodPlan{}, fmt.Errorf("plan: method %q pool %d (%q): %v", m.Method, i, pp.Name, err)
		}
		if pp.GPUs < 1 {
			return MethodPlan{}, fmt.Errorf("plan: method %q pool %d (%q): gpus %d must be >= 1", m.Method, i, pp.Name, pp.GPUs)
		}
		if pp.MaxCtx < 1 || g.Slots(pp.MaxCtx) < 1 {
			return MethodPlan{}, fmt.Errorf("plan: method %q pool %d (%q): max_ctx %d tokens does not fit one %s instance", m.Method, i, pp.Name, pp.MaxCtx, g.Name)
		}
	}
	if m.Gamma != 0 && !(m.Gamma >= 1) {
		return MethodPlan{}, fmt.Errorf("plan: method %q: gamma %v must be >= 1", m.Method, m.Gamma)
	}
	if !(m.PC >= 0 && m.PC <= 1) {
		return MethodPlan{}, fmt.Errorf("plan: method %q: p_c %v must be in [0, 1]", m.Method, m.PC)
	}
	return *m, nil
}
