package sim

import (
	"fmt"
	"math"

	"github.com/fleetsim/fleetsim/pools/catalog"
)

// InstanceState is where a pool instance is in its life (docs/day.md).
type InstanceState uint8

// The states of an instance. Billing runs from the scale-up decision
// (Starting) to the release.
const (
	Starting InstanceState = iota // decided, provisioning and loading weights; admits nothing
	Serving                       // admits new work
	Draining                      // admits nothing; finishes what it holds, then is released
	Released                      // gone; no longer billed
)

func (s InstanceState) String() string {
	return [...]string{"starting", "serving", "draining", "released"}[s]
}

// Scaling is a pool's scaling bounds and prices (docs/day.md).
type Scaling struct {
	Min, Max int // instances the autoscaler may ask for, 0 <= Min <= Max (Max 0: no upper bound)
	// Reserved instances are paid for the whole run at ReservedRate whether
	// they serve or not; instances above Reserved are paid at OnDemandRate
	// from their scale-up decision to their release. Reserved <= Max.
	Reserved     int
	ReservedRate float64 // USD per instance-hour, >= 0
	OnDemandRate float64 // USD per instance-hour, >= 0
	StartupS     float64 // start-up delay, seconds >= 0 (catalog.Startup.DelayS)
	GPUsPerInst  int     // GPUs of one instance (0: 1), for GPU-seconds
}

// Validate checks the bounds and prices; the error names the field.
func (s Scaling) Validate() error {
	fin := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	switch {
	case s.Min < 0:
		return fmt.Errorf("min_instances = %d: must be >= 0", s.Min)
	case s.Max < 0:
		return fmt.Errorf("max_instances = %d: must be >= 0 (0: no upper bound)", s.Max)
	case s.Max > 0 && s.Min > s.Max:
		return fmt.Errorf("min_instances = %d: must be <= max_instances = %d", s.Min, s.Max)
	case s.Reserved < 0 || (s.Max > 0 && s.Reserved > s.Max):
		return fmt.Errorf("reserved_instances = %d: must be in [0, max_instances = %d]", s.Reserved, s.Max)
	case !fin(s.ReservedRate) || s.ReservedRate < 0:
		return fmt.Errorf("reserved_rate = %v: must be a finite price >= 0 USD per instance-hour", s.ReservedRate)
	case !fin(s.OnDemandRate) || s.OnDemandRate < 0:
		return fmt.Errorf("on_demand_rate = %v: must be a finite price >= 0 USD per instance-hour", s.OnDemandRate)
	case !fin(s.StartupS) || s.StartupS < 0:
		return fmt.Errorf("startup_s = %v: must be a finite delay >= 0 seconds", s.StartupS)
	case s.GPUsPerInst < 0:
		return fmt.Errorf("gpus_per_instance = %d: must be >= 0", s.GPUsPerInst)
	}
	return nil
}

// Clamp returns n within [Min, Max].
func (s Scaling) Clamp(n int) int {
	if s.Max > 0 {
		n = min(n, s.Max)
	}
	return max(n, s.Min)
}

// lifeInst is one instance's record.
type lifeInst struct {
	state   InstanceState
	serveAt float64 // when a starting instance may serve, seconds
}

// Lifecycle is the pure accounting of one pool's instances as their count
// changes: states, start-up delays, GPU-seconds and cost. It does no
// simulation: the pool calls it at its events (docs/day.md, "Wiring") and
// asks it which instances admit work. Instance ids are indices 0, 1, ...
// in order of creation, never reused. Times are seconds, non-decreasing
// over the calls.
type Lifecycle struct {
	cfg   Scaling
	inst  []lifeInst
	count [4]int  // instances per state
	t0    float64 // start of the accounting, seconds
	t     float64 // time accounted up to, seconds
	// Integrals up to t: instance-seconds billed (starting + serving +
	// draining) and on-demand instance-seconds (above Reserved).
	instS, onDemandS float64
	ups, downs       int // scale events: instances started, drains or cancellations
}

// NewLifecycle returns the accounting of a pool of cfg (validated by the
// caller) holding initial instances, serving from time t0 seconds (the
// pools of today's runs: ids 0..initial-1).
func NewLifecycle(cfg Scaling, initial int, t0 float64) *Lifecycle {
	l := &Lifecycle{cfg: cfg, t0: t0, t: t0}
	for range initial {
		l.inst = append(l.inst, lifeInst{state: Serving, serveAt: t0})
	}
	l.count[Serving] = initial
	return l
}

// advance integrates the billed instances up to t.
func (l *Lifecycle) advance(t float64) {
	if dt := t - l.t; dt > 0 {
		n := l.count[Starting] + l.count[Serving] + l.count[Draining]
		l.instS += float64(n) * dt
		l.onDemandS += float64(max(n-l.cfg.Reserved, 0)) * dt
		l.t = t
	}
}

func (l *Lifecycle) set(id int, s InstanceState) {
	l.count[l.inst[id].state]--
	l.inst[id].state = s
	l.count[s]++
}

// Active returns the instances that count towards the pool's size: starting
// plus serving (draining ones are on their way out).
func (l *Lifecycle) Active() int { return l.count[Starting] + l.count[Serving] }

// Count returns the instances in state s.
func (l *Lifecycle) Count(s InstanceState) int { return l.count[s] }

// State returns instance id's state.
func (l *Lifecycle) State(id int) InstanceState { return l.inst[id].state }

// Admits reports whether instance id takes new work: only a serving one.
func (l *Lifecycle) Admits(id int) bool { return l.inst[id].state == Serving }

// ServeAt returns when instance id may serve (its scale-up time plus the
// start-up delay), seconds.
func (l *Lifecycle) ServeAt(id int) float64 { return l.inst[id].serveAt }

// Len returns the number of instances ever created (ids 0..Len()-1).
func (l *Lifecycle) Len() int { return len(l.inst) }

// Change is what ScaleTo decided: instances to create (ids Start[i], each
// serving from ServeAt[i]), starting instances cancelled (released at
// once), and serving instances to drain.
type Change struct {
	Start   []int
	ServeAt []float64
	Cancel  []int
	Drain   []int
}

// ScaleTo moves the pool towards desired instances at time t, desired
// clamped to [Min, Max]. Above the active count it starts new instances
// (serving at t + StartupS); below it first cancels starting instances,
// newest first, then drains serving ones, newest first (the last started
// goes first, so a short peak is undone by the instances it added).
func (l *Lifecycle) ScaleTo(t float64, desired int) Change {
	l.advance(t)
	var c Change
	desired = l.cfg.Clamp(desired)
	for n := l.Active(); n < desired; n++ {
		id := len(l.inst)
		l.inst = append(l.inst, lifeInst{state: Released, serveAt: t + l.cfg.StartupS})
		l.count[Released]++
		l.set(id, Starting)
		c.Start, c.ServeAt = append(c.Start, id), append(c.ServeAt, t+l.cfg.StartupS)
		l.ups++
	}
	for id := len(l.inst) - 1; id >= 0 && l.Active() > desired; id-- {
		if l.inst[id].state == Starting {
			l.set(id, Released)
			c.Cancel = append(c.Cancel, id)
			l.downs++
		}
	}
	for id := len(l.inst) - 1; id >= 0 && l.Active() > desired; id-- {
		if l.inst[id].state == Serving {
			l.set(id, Draining)
			c.Drain = append(c.Drain, id)
			l.downs++
		}
	}
	return c
}

// Ready makes starting instance id serve at time t; t must be at least its
// ServeAt (an instance scaled up at s admits nothing before s + StartupS).
func (l *Lifecycle) Ready(t float64, id int) error {
	in := l.inst[id]
	switch {
	case in.state != Starting:
		return fmt.Errorf("instance %d: ready at %g s while %s", id, t, in.state)
	case t < in.serveAt:
		return fmt.Errorf("instance %d: ready at %g s, before its start-up ends at %g s", id, t, in.serveAt)
	}
	l.advance(t)
	l.set(id, Serving)
	return nil
}

// Drained releases draining instance id at time t, once it holds no work.
func (l *Lifecycle) Drained(t float64, id int) error {
	if s := l.inst[id].state; s != Draining {
		return fmt.Errorf("instance %d: drained at %g s while %s", id, t, s)
	}
	l.advance(t)
	l.set(id, Released)
	return nil
}

// Bill is a pool's accounting up to a time.
type Bill struct {
	InstanceSeconds float64 `json:"instance_seconds"` // instances billed × seconds (starting, serving, draining)
	GPUSeconds      float64 `json:"gpu_seconds"`      // InstanceSeconds × GPUs per instance
	ReservedUSD     float64 `json:"reserved_usd"`     // Reserved × elapsed × ReservedRate
	OnDemandUSD     float64 `json:"on_demand_usd"`    // instance-seconds above Reserved × OnDemandRate
	CostUSD         float64 `json:"cost_usd"`         // ReservedUSD + OnDemandUSD
	ScaleUps        int     `json:"scale_ups"`        // instances started
	ScaleDowns      int     `json:"scale_downs"`      // instances cancelled or drained
}

// Bill returns the accounting from the start (NewLifecycle's t0) to t (at
// least the time of the last state change), the instances billed now held
// until t. It changes nothing: reading a bill mid-run does not move the
// accounting.
func (l *Lifecycle) Bill(t float64) Bill {
	instS, onDemandS, end := l.instS, l.onDemandS, max(t, l.t)
	if dt := end - l.t; dt > 0 {
		n := l.count[Starting] + l.count[Serving] + l.count[Draining]
		instS += float64(n) * dt
		onDemandS += float64(max(n-l.cfg.Reserved, 0)) * dt
	}
	g := float64(max(l.cfg.GPUsPerInst, 1))
	b := Bill{
		InstanceSeconds: instS,
		GPUSeconds:      instS * g,
		ReservedUSD:     float64(l.cfg.Reserved) * (end - l.t0) * l.cfg.ReservedRate / 3600,
		OnDemandUSD:     onDemandS * l.cfg.OnDemandRate / 3600,
		ScaleUps:        l.ups,
		ScaleDowns:      l.downs,
	}
	b.CostUSD = b.ReservedUSD + b.OnDemandUSD
	return b
}

// DefaultScaling returns the scaling of a pool of count instances of
// profile g when the scenario gives none: min = max = reserved = count (a
// fixed, fully reserved pool: today's runs), both rates the profile's
// CostPerHour, and the start-up delay st.DelayS of the profile's weights
// (catalog.WeightBytes; provisioning only when the profile's model is not
// known).
func DefaultScaling(gpu string, g catalog.GPU, count int, st catalog.Startup) Scaling {
	w, err := catalog.WeightBytes(gpu)
	if err != nil {
		w = 0
	}
	return Scaling{Min: count, Max: count, Reserved: count, ReservedRate: g.CostPerHour, OnDemandRate: g.CostPerHour,
		StartupS: st.DelayS(w), GPUsPerInst: g.GPUsPerInstance()}
}
