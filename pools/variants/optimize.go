package variants

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
)

// Candidate is one way to serve a workload: a variant with the replicas
// that meet the workload's SLOs.
type Candidate struct {
	Variant     string  `json:"variant"`
	Accelerator string  `json:"accelerator"`
	Units       int     `json:"units_per_replica"` // accelerator units per replica
	Batch       int     `json:"max_batch"`         // N
	Replicas    int     `json:"replicas"`          // max(min_replicas, ⌈rate / throughput(λ*)⌉)
	Cost        float64 `json:"cost"`              // unit cost × units × replicas
	// Value orders the candidates: the cost, or with a current allocation
	// the transition penalty from it.
	Value  float64 `json:"value"`
	Sizing Sizing  `json:"sizing"` // max rate per replica and the metrics there
	// Predicted is the model's metrics of one replica at rate/replicas
	// (nil without traffic).
	Predicted *Metrics `json:"predicted,omitempty"`
}

// Allocation is the optimizer's decision for one workload.
type Allocation struct {
	Workload string  `json:"workload"`
	Model    string  `json:"model"`
	Priority int     `json:"priority"`
	RateRPS  float64 `json:"rate_rps"`
	// Status: "ok" (SLO-meeting allocation), "partial" (best effort, fewer
	// replicas than the SLOs need), "unallocated" (nothing fitted the
	// inventory) or "infeasible" (no variant meets the SLOs at any rate).
	Status      string      `json:"status"`
	Variant     string      `json:"variant,omitempty"`
	Accelerator string      `json:"accelerator,omitempty"`
	Units       int         `json:"units,omitempty"` // accelerator units in all
	Replicas    int         `json:"replicas"`
	Needed      int         `json:"needed_replicas"` // replicas the SLOs need on this variant
	Cost        float64     `json:"cost"`
	MaxRate     float64     `json:"max_rate_rps"` // per replica, meeting the SLOs
	Predicted   *Metrics    `json:"predicted,omitempty"`
	Note        string      `json:"note,omitempty"`
	Candidates  []Candidate `json:"candidates"` // by value, best first
}

// Result is a whole optimization.
type Result struct {
	Mode              string         `json:"mode"`
	Policy            string         `json:"policy"`
	DeferBestEffort   bool           `json:"defer_best_effort"`
	TransitionPenalty float64        `json:"transition_penalty"`
	Allocations       []Allocation   `json:"allocations"` // in the file's workload order
	TotalCost         float64        `json:"total_cost"`
	Used              map[string]int `json:"used_units"`          // accelerator units allocated, by type
	Inventory         map[string]int `json:"inventory,omitempty"` // limited mode
}

// Allocation statuses.
const (
	StatusOK          = "ok"
	StatusPartial     = "partial"
	StatusUnallocated = "unallocated"
	StatusInfeasible  = "infeasible"
)

// Options override a Config's optimizer settings ("" keeps the file's).
type Options struct {
	Mode   string
	Policy string
}

// Optimize sizes every workload on every variant of its model and chooses
// the allocations (docs/variants.md, "The optimizer"). cfg must be valid
// with its profiles resolved.
func Optimize(cfg *Config, o Options) (*Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	r := &Result{Mode: cmp.Or(o.Mode, cfg.Mode, ModeUnlimited), Policy: cmp.Or(o.Policy, cfg.Policy, PolicyNone),
		DeferBestEffort: cfg.DeferBestEffort, TransitionPenalty: DefaultTransitionPenalty, Used: map[string]int{}}
	if r.Mode != ModeUnlimited && r.Mode != ModeLimited {
		return nil, bad("mode", r.Mode, "allowed: %s, %s", ModeUnlimited, ModeLimited)
	}
	p, err := ParsePolicy(r.Policy)
	if err != nil {
		return nil, err
	}
	r.Policy = p
	if cfg.TransitionPenalty != nil {
		r.TransitionPenalty = *cfg.TransitionPenalty
	}
	for i, w := range cfg.Workloads {
		a, err := candidates(cfg, w, r.TransitionPenalty)
		if err != nil {
			return nil, fmt.Errorf("workloads[%d] (%s): %w", i, w.Name, err)
		}
		r.Allocations = append(r.Allocations, a)
	}
	if r.Mode == ModeUnlimited {
		for i := range r.Allocations {
			if a := &r.Allocations[i]; len(a.Candidates) > 0 {
				a.assign(a.Candidates[0], a.Candidates[0].Replicas)
			}
		}
	} else {
		r.Inventory = map[string]int{}
		for k, v := range cfg.Inventory {
			r.Inventory[k] = v
		}
		limited(r, cfg)
	}
	for i := range r.Allocations {
		if a := &r.Allocations[i]; a.Status == StatusPartial {
			predictPartial(cfg, cfg.Workloads[i], a)
		}
	}
	for _, a := range r.Allocations {
		r.TotalCost += a.Cost
		if a.Replicas > 0 {
			r.Used[a.Accelerator] += a.Units
		}
	}
	return r, nil
}

// candidates sizes workload w on every variant of its model.
func candidates(cfg *Config, w Workload, penalty float64) (Allocation, error) {
	a := Allocation{Workload: w.Name, Model: w.Model, Priority: w.PriorityOf(), RateRPS: w.RateRPM / 60,
		Status: StatusInfeasible}
	var cur *Candidate
	var why []string
	for _, v := range cfg.Variants {
		if v.Model != w.Model {
			continue
		}
		c, err := sizeOn(v, w)
		if errors.Is(err, ErrInfeasible) {
			why = append(why, fmt.Sprintf("%s: %v", v.Name, err))
			continue
		}
		if err != nil {
			return a, fmt.Errorf("variant %s: %w", v.Name, err)
		}
		a.Candidates = append(a.Candidates, c)
		if w.Current != nil && w.Current.Variant == v.Name {
			cc := c
			cc.Replicas = w.Current.Replicas
			cc.Cost = v.UnitCost * float64(v.Units()*cc.Replicas)
			cur = &cc
		}
	}
	if w.Current != nil && cur == nil {
		// The current variant cannot meet the SLOs any more; its cost
		// still sets the transition penalties.
		v := cfg.Variants[slices.IndexFunc(cfg.Variants, func(v Variant) bool { return v.Name == w.Current.Variant })]
		cur = &Candidate{Variant: v.Name, Accelerator: v.Accelerator,
			Cost: v.UnitCost * float64(v.Units()*w.Current.Replicas), Replicas: w.Current.Replicas}
	}
	for i := range a.Candidates {
		c := &a.Candidates[i]
		c.Value = c.Cost
		if cur != nil {
			c.Value = transition(*cur, *c, penalty)
		}
	}
	// Best value first; ties keep the file's order.
	slices.SortStableFunc(a.Candidates, func(x, y Candidate) int { return cmp.Compare(x.Value, y.Value) })
	if len(a.Candidates) == 0 {
		a.Note = "no variant meets the SLOs: " + strings.Join(why, "; ")
	} else {
		a.Status = StatusUnallocated
	}
	return a, nil
}

// transition is the upstream's penalty for moving from allocation a to b:
// the cost change, plus f·(a + b) when the accelerator type changes.
func transition(a, b Candidate, f float64) float64 {
	if a.Accelerator == b.Accelerator {
		if a.Replicas == b.Replicas {
			return 0
		}
		return b.Cost - a.Cost
	}
	return f*(a.Cost+b.Cost) + (b.Cost - a.Cost)
}

// sizeOn sizes workload w on variant v.
func sizeOn(v Variant, w Workload) (Candidate, error) {
	c := Candidate{Variant: v.Name, Accelerator: v.Accelerator, Units: v.Units()}
	n, err := BatchSize(*v.Profile, w.OutTokens, w.MaxBatch)
	if err != nil {
		return c, err
	}
	c.Batch = n
	m, err := NewModel(*v.Profile, n, w.InTokens, w.OutTokens)
	if err != nil {
		return c, err
	}
	if c.Sizing, err = m.Size(w.SLO); err != nil {
		return c, err
	}
	rate := w.RateRPM / 60
	c.Replicas = v.MinReplicas
	if rate > 0 {
		need := math.Ceil(rate / c.Sizing.At.Throughput)
		if need > MaxReplicasPerWorkload {
			return c, fmt.Errorf("needs %.0f replicas (more than %d)", need, MaxReplicasPerWorkload)
		}
		c.Replicas = max(c.Replicas, int(need))
		pm, err := m.Analyze(rate / float64(c.Replicas))
		if err != nil {
			return c, err
		}
		c.Predicted = &pm
	}
	c.Cost = v.UnitCost * float64(c.Units*c.Replicas)
	return c, nil
}

// assign gives a the candidate c with replicas replicas (replicas <
// c.Replicas for a best-effort allocation).
func (a *Allocation) assign(c Candidate, replicas int) {
	a.Variant, a.Accelerator = c.Variant, c.Accelerator
	a.Replicas, a.Needed = replicas, c.Replicas
	a.Units = replicas * c.Units
	a.Cost = c.Cost
	if c.Replicas > 0 {
		a.Cost = c.Cost * float64(replicas) / float64(c.Replicas)
	}
	a.MaxRate = c.Sizing.Rate
	a.Status = StatusOK
	a.Predicted = c.Predicted
	if replicas < c.Replicas {
		a.Status = StatusPartial
		a.Predicted = nil
		a.Note = fmt.Sprintf("best effort: %d of the %d replicas the SLOs need", replicas, c.Replicas)
		a.Note += fmt.Sprintf("; %.4g req/s per replica against a max of %.4g", a.RateRPS/float64(replicas), c.Sizing.Rate)
	}
}

// predictPartial sets a best-effort allocation's predicted metrics when its
// rate per replica is still within the model's range (the SLOs are then
// missed but the replicas keep up); beyond it the note says so.
func predictPartial(cfg *Config, w Workload, a *Allocation) {
	v := cfg.Variants[slices.IndexFunc(cfg.Variants, func(v Variant) bool { return v.Name == a.Variant })]
	n, err := BatchSize(*v.Profile, w.OutTokens, w.MaxBatch)
	if err != nil {
		return
	}
	m, err := NewModel(*v.Profile, n, w.InTokens, w.OutTokens)
	if err != nil {
		return
	}
	if pm, err := m.Analyze(a.RateRPS / float64(a.Replicas)); err == nil {
		a.Predicted = &pm
		return
	}
	a.Note += fmt.Sprintf("; beyond a replica's capacity (%.4g req/s): saturated", m.MaxRate)
}
