package router

import (
	"fmt"
	"math"
)

// Defaults of the adaptive threshold (docs/day.md, "Adaptive B_short").
const (
	DefaultAdaptPreemptRate = 0.01 // preemptions per completed request in a pool
	DefaultAdaptRejectRate  = 0.001
	DefaultAdaptQueuePerGPU = DefaultSpillQueuePerGPU // 4 queued requests per GPU
	DefaultAdaptCalm        = 0.5                     // stress under which a pool is calm
	DefaultAdaptHold        = 3                       // calm intervals before a relaxing step
	DefaultAdaptSteps       = 16                      // default step: (max - min) / 16
)

// AdaptiveConfig is the adaptive B_short controller (the token-budget
// paper's Future Work, error-driven threshold discovery). Zero values of
// the optional fields mean their defaults.
type AdaptiveConfig struct {
	MinBShort int `json:"min_b_short" yaml:"min_b_short"` // tokens, >= 1
	MaxBShort int `json:"max_b_short" yaml:"max_b_short"` // tokens, >= MinBShort (at most the short pool's max context)
	Step      int `json:"step,omitempty" yaml:"step,omitempty"`
	// Targets: a pool's stress is the largest of its preemption rate,
	// rejection rate and queue per GPU, each over its target.
	PreemptRate float64 `json:"preempt_rate,omitempty" yaml:"preempt_rate,omitempty"`
	RejectRate  float64 `json:"reject_rate,omitempty" yaml:"reject_rate,omitempty"`
	QueuePerGPU float64 `json:"queue_per_gpu,omitempty" yaml:"queue_per_gpu,omitempty"`
	Calm        float64 `json:"calm,omitempty" yaml:"calm,omitempty"` // in (0, 1)
	Hold        int     `json:"hold,omitempty" yaml:"hold,omitempty"` // intervals, >= 1
}

// WithDefaults fills the zero optional fields.
func (c AdaptiveConfig) WithDefaults() AdaptiveConfig {
	if c.Step == 0 {
		c.Step = max((c.MaxBShort-c.MinBShort)/DefaultAdaptSteps, 1)
	}
	def := func(p *float64, v float64) {
		if *p == 0 {
			*p = v
		}
	}
	def(&c.PreemptRate, DefaultAdaptPreemptRate)
	def(&c.RejectRate, DefaultAdaptRejectRate)
	def(&c.QueuePerGPU, DefaultAdaptQueuePerGPU)
	def(&c.Calm, DefaultAdaptCalm)
	if c.Hold == 0 {
		c.Hold = DefaultAdaptHold
	}
	return c
}

// Validate checks c; the error names the field.
func (c AdaptiveConfig) Validate() error {
	c = c.WithDefaults()
	pos := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) && x > 0 }
	switch {
	case c.MinBShort < 1:
		return fmt.Errorf("router: adaptive.min_b_short = %d: must be >= 1 token", c.MinBShort)
	case c.MaxBShort < c.MinBShort:
		return fmt.Errorf("router: adaptive.max_b_short = %d: must be >= min_b_short = %d", c.MaxBShort, c.MinBShort)
	case c.Step < 1:
		return fmt.Errorf("router: adaptive.step = %d: must be >= 1 token", c.Step)
	case !pos(c.PreemptRate):
		return fmt.Errorf("router: adaptive.preempt_rate = %v: must be a finite number > 0 (preemptions per completed request)", c.PreemptRate)
	case !pos(c.RejectRate):
		return fmt.Errorf("router: adaptive.reject_rate = %v: must be a finite number > 0 (rejections per arrival)", c.RejectRate)
	case !pos(c.QueuePerGPU):
		return fmt.Errorf("router: adaptive.queue_per_gpu = %v: must be a finite number > 0", c.QueuePerGPU)
	case !pos(c.Calm) || c.Calm >= 1:
		return fmt.Errorf("router: adaptive.calm = %v: must be in (0, 1)", c.Calm)
	case c.Hold < 1:
		return fmt.Errorf("router: adaptive.hold = %d: must be >= 1 interval", c.Hold)
	}
	return nil
}

// PoolSignals is what the controller observes of one pool over an interval.
type PoolSignals struct {
	Arrivals    int64   // requests routed to the pool
	Completed   int64   // requests that finished
	Preemptions int64   // preemptions
	Rejections  int64   // requests rejected (too long, or beyond the queue limit)
	QueuePerGPU float64 // requests waiting per GPU at the end of the interval
}

// Stress returns the pool's stress under c: the largest of preemptions per
// completed request, rejections per arrival and queue per GPU, each divided
// by its target (1 = at target).
func (c AdaptiveConfig) Stress(s PoolSignals) float64 {
	pre := float64(s.Preemptions) / float64(max(s.Completed, 1))
	rej := float64(s.Rejections) / float64(max(s.Arrivals, 1))
	return max(pre/c.PreemptRate, rej/c.RejectRate, s.QueuePerGPU/c.QueuePerGPU)
}

// Adaptive moves B_short between bounds, one step per interval at most
// (docs/day.md, "Adaptive B_short"). With σ_s and σ_l the stresses of the
// short and the long pool:
//
//   - tighten (B ← max(Min, B − Step)) when σ_s > 1 and σ_s >= σ_l: the
//     short pool is past a target and the worse of the two, so send its
//     longest requests to the long pool;
//   - relax (B ← min(Max, B + Step)) when σ_l > 1 and σ_s < Calm: the
//     long pool is past a target while the short one has room;
//   - relax when σ_s < Calm and σ_l < Calm for Hold intervals in a row:
//     both calm, so hand the short pool back the requests it can serve;
//   - else hold.
//
// Tightening reacts in one interval, relaxing only after Hold calm ones:
// the asymmetry keeps the threshold from oscillating around a load level
// where the short pool just starts to preempt.
type Adaptive struct {
	cfg    AdaptiveConfig
	bShort int
	calm   int // calm intervals in a row
}

// NewAdaptive returns the controller of a validated c, starting at B_short
// start (clamped to the bounds).
func NewAdaptive(c AdaptiveConfig, start int) *Adaptive {
	c = c.WithDefaults()
	return &Adaptive{cfg: c, bShort: min(max(start, c.MinBShort), c.MaxBShort)}
}

// BShort returns the current threshold, tokens.
func (a *Adaptive) BShort() int { return a.bShort }

// Update takes an interval's signals of the short and the long pool and
// returns the new B_short.
func (a *Adaptive) Update(short, long PoolSignals) int {
	ss, sl := a.cfg.Stress(short), a.cfg.Stress(long)
	switch {
	case ss > 1 && ss >= sl:
		a.bShort = max(a.cfg.MinBShort, a.bShort-a.cfg.Step)
		a.calm = 0
	case sl > 1 && ss < a.cfg.Calm:
		a.bShort = min(a.cfg.MaxBShort, a.bShort+a.cfg.Step)
		a.calm = 0
	case ss < a.cfg.Calm && sl < a.cfg.Calm:
		a.calm++
		if a.calm >= a.cfg.Hold {
			a.bShort = min(a.cfg.MaxBShort, a.bShort+a.cfg.Step)
			a.calm = 0
		}
	default:
		a.calm = 0
	}
	return a.bShort
}

// SetBShort moves the short-pool threshold B_short to b tokens (the
// adaptive threshold's output; b within [1, the smallest pool's max
// context]). The C&R band's upper edge ⌊γ·B_short⌋ moves with it.
func (t *TokenBudget) SetBShort(b int) {
	b = min(max(b, 1), t.pools[0].MaxContext)
	if b == t.bShort {
		return
	}
	t.bShort, t.thr[0] = b, b
	t.bandHi = int(math.Floor(t.gamma * float64(b)))
}
