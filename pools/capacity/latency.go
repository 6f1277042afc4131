package capacity

import (
	"fmt"
	"math"

	"github.com/fleetsim/fleetsim/workload"
)

// Latency metrics a target can bound.
const (
	MetricE2E   = "e2e"   // R = L_base + W
	MetricQueue = "queue" // W alone
)

// LatencyTarget is what a latency plan must meet: at least a share
// Percentile of requests with the metric <= ThresholdS.
type LatencyTarget struct {
	ThresholdS float64 // > 0, s
	Percentile float64 // in (0, 1)
	Metric     string  // MetricE2E (default when "") or MetricQueue
	Headroom   float64 // extra fraction bought on top of the smallest G (>= 0)
	MaxUnits   int     // search bound, units (>= 1)
}

// Validate checks the target's fields.
func (t LatencyTarget) Validate() error {
	bad := func(f string, v any, allowed string) error {
		return &workload.FieldError{Field: f, Value: v, Allowed: allowed}
	}
	if !(t.ThresholdS > 0) || math.IsInf(t.ThresholdS, 1) {
		return bad("latency_slo", t.ThresholdS, "a latency threshold in seconds > 0")
	}
	if !(t.Percentile > 0 && t.Percentile < 1) {
		return bad("latency_percentile", t.Percentile, "a fraction in (0, 1), e.g. 0.99")
	}
	if t.Metric != "" && t.Metric != MetricE2E && t.Metric != MetricQueue {
		return bad("latency_metric", t.Metric, "allowed: e2e, queue")
	}
	return validateSearch(t.Headroom, t.MaxUnits)
}

// LatencyPlan is the reserved capacity a latency target needs.
type LatencyPlan struct {
	ThresholdS float64 `json:"threshold_s"`
	Percentile float64 `json:"percentile"`
	Metric     string  `json:"metric"`
	Headroom   float64 `json:"headroom"`
	// MinUnits is the smallest purchasable G meeting the target; Units is
	// MinUnits·(1 + headroom) rounded up to the increment.
	MinUnits int `json:"min_units"`
	Units    int `json:"units"`
	// AtMin and At are the fluid model's latencies at MinUnits and Units.
	AtMin LatencyStats `json:"at_min_units"`
	At    LatencyStats `json:"at_units"`
}

// PlanLatency returns the smallest purchasable G (a multiple of the
// increment, >= the minimum, <= t.MaxUnits) at which at least a share
// t.Percentile of requests have the metric within t.ThresholdS in the fluid
// model, base being each request's L_base, s. The share grows with G (the
// fluid backlog shrinks as the rate grows), so the grid is bisected.
func PlanLatency(s Series, base []float64, p Profile, t LatencyTarget) (LatencyPlan, error) {
	if err := t.Validate(); err != nil {
		return LatencyPlan{}, err
	}
	if err := p.Validate(); err != nil {
		return LatencyPlan{}, err
	}
	if len(base) != len(s.T) || len(s.T) == 0 {
		return LatencyPlan{}, fmt.Errorf("capacity: %d baseline latencies for %d requests", len(base), len(s.T))
	}
	metric := t.Metric
	if metric == "" {
		metric = MetricE2E
	}
	n := len(s.T)
	need := int(math.Ceil(float64(n)*t.Percentile - rankTolerance)) // requests that must be within the threshold
	need = max(1, min(n, need))
	if metric == MetricE2E {
		within := 0
		for _, b := range base {
			if b <= t.ThresholdS {
				within++
			}
		}
		if within < need {
			return LatencyPlan{}, &InfeasibleError{Msg: fmt.Sprintf(
				"no capacity meets p%g e2e <= %g s: the baseline latency alone exceeds it for %.2f%% of requests (allowed %.2f%%)",
				100*t.Percentile, t.ThresholdS, 100*float64(n-within)/float64(n), 100*(1-t.Percentile))}
		}
	}
	w := make([]float64, n)
	ok := func(g float64) bool {
		QueueDelays(s, g*p.Tau, w)
		within := 0
		for j := range w {
			v := w[j]
			if metric == MetricE2E {
				v += base[j]
			}
			if v <= t.ThresholdS {
				within++
			}
		}
		return within >= need
	}
	inc := float64(p.Increment)
	g0 := RoundUp(0, p.Minimum, p.Increment)
	steps := int(math.Floor((float64(t.MaxUnits) - g0) / inc)) // grid g0 + k·inc, k in [0, steps]
	if steps < 0 || !ok(g0+float64(steps)*inc) {
		return LatencyPlan{}, &InfeasibleError{Msg: fmt.Sprintf(
			"no G <= max-units %d meets p%g %s <= %g s in the fluid model (raise --max-units or relax the target)",
			t.MaxUnits, 100*t.Percentile, metric, t.ThresholdS)}
	}
	lo, hi := -1, steps // ok(hi) holds, ok(lo) does not (lo = −1: below the grid)
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if ok(g0 + float64(mid)*inc) {
			hi = mid
		} else {
			lo = mid
		}
	}
	gMin := g0 + float64(hi)*inc
	g := RoundUp(gMin*(1+t.Headroom), p.Minimum, p.Increment)
	if g > float64(t.MaxUnits) {
		return LatencyPlan{}, &InfeasibleError{Msg: fmt.Sprintf(
			"no G <= max-units %d meets p%g %s <= %g s with headroom %g: it needs G = %.0f %ss (raise --max-units or relax the target)",
			t.MaxUnits, 100*t.Percentile, metric, t.ThresholdS, t.Headroom, g, p.Unit)}
	}
	plan := LatencyPlan{ThresholdS: t.ThresholdS, Percentile: t.Percentile, Metric: metric, Headroom: t.Headroom,
		MinUnits: int(gMin), Units: int(g)}
	plan.AtMin = FluidLatency(s, base, gMin, p.Tau, nil)
	plan.At = FluidLatency(s, base, g, p.Tau, nil)
	return plan, nil
}
