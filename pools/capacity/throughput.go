package capacity

import (
	"fmt"
	"math"

	"github.com/fleetsim/fleetsim/workload"
)

// snapTolerance: a value within this relative distance of an integer counts
// as that integer when rounding up to a purchase increment, so float noise
// (10 × 1.1 = 11.000000000000002) does not buy one more increment.
const snapTolerance = 1e-9

// RoundUp returns the smallest multiple of increment that is >= max(minimum,
// x): the purchasable amount covering x units. With increment 5: 11 with
// minimum 1 gives 15; 2 with minimum 7 gives 10. Values within 1e-9
// (relative) of an integer are taken as that integer first.
func RoundUp(x float64, minimum, increment int) float64 {
	v := math.Max(float64(minimum), x)
	if r := math.Round(v); math.Abs(v-r) <= snapTolerance*math.Max(1, math.Abs(v)) {
		v = r
	}
	inc := float64(increment)
	q := v / inc
	if r := math.Round(q); math.Abs(q-r) <= snapTolerance*math.Max(1, q) {
		q = r
	}
	return math.Ceil(q) * inc
}

// NoOverloadTarget as ThroughputTarget.MaxOverloadProb means no overload
// target.
const NoOverloadTarget = -1

// DefaultWindows are the default window lengths Δ, s.
var DefaultWindows = []float64{1, 5, 30}

// ThroughputTarget is what a throughput plan must meet.
type ThroughputTarget struct {
	Percentile float64   // of X_n to cover, in (0, 1)
	Windows    []float64 // window lengths Δ, s (> 0); the worst one decides
	Headroom   float64   // extra fraction bought on top (>= 0)
	// MaxOverloadProb, unless NoOverloadTarget, is the largest allowed
	// worst-window P(X_n > G), in [0, 1).
	MaxOverloadProb float64
	MaxUnits        int // search bound, units (>= 1): a plan above it is infeasible
}

// InfeasibleError is a target no G up to the search bound meets.
type InfeasibleError struct{ Msg string }

func (e *InfeasibleError) Error() string { return e.Msg }

// Validate checks the target's fields.
func (t ThroughputTarget) Validate() error {
	bad := func(f string, v any, allowed string) error {
		return &workload.FieldError{Field: f, Value: v, Allowed: allowed}
	}
	if !(t.Percentile > 0 && t.Percentile < 1) {
		return bad("percentile", t.Percentile, "a fraction in (0, 1), e.g. 0.99")
	}
	if len(t.Windows) == 0 {
		return bad("windows", "[]", "at least one window length in seconds")
	}
	for _, d := range t.Windows {
		if !(d > 0 && d <= MaxWindowS) {
			return bad("windows", d, fmt.Sprintf("window lengths are seconds in (0, %g]", MaxWindowS))
		}
	}
	if t.MaxOverloadProb != NoOverloadTarget && !(t.MaxOverloadProb >= 0 && t.MaxOverloadProb < 1) {
		return bad("max_overload_prob", t.MaxOverloadProb, "a probability in [0, 1)")
	}
	return validateSearch(t.Headroom, t.MaxUnits)
}

// validateSearch checks the fields both plans share: the headroom and the
// search bound.
func validateSearch(headroom float64, maxUnits int) error {
	if !(headroom >= 0 && headroom <= 100) {
		return &workload.FieldError{Field: "headroom", Value: headroom, Allowed: "a fraction in [0, 100] (0.2 = 20% more)"}
	}
	if maxUnits < 1 || maxUnits > MaxPurchase {
		return &workload.FieldError{Field: "max_units", Value: maxUnits, Allowed: fmt.Sprintf("an integer in [1, %g]", float64(MaxPurchase))}
	}
	return nil
}

// ThroughputPlan is the reserved capacity a throughput target needs.
type ThroughputPlan struct {
	Percentile float64 `json:"percentile"`
	Headroom   float64 `json:"headroom"`
	// MaxOverloadProb is the overload target; nil (omitted in JSON) when
	// there is none.
	MaxOverloadProb *float64 `json:"max_overload_prob,omitempty"`
	// Required is the worst window's percentile of X_n, units (unrounded).
	Required     float64 `json:"required_units"`
	WorstWindowS float64 `json:"worst_window_s"`
	// Covered is Required raised to the minimum and rounded up to the
	// increment; WithHeadroom is Covered·(1 + headroom) rounded up again.
	Covered      int `json:"covered_units"`
	WithHeadroom int `json:"with_headroom_units"`
	// Units is the plan: WithHeadroom, or with an overload target the
	// smallest purchasable G >= WithHeadroom whose worst-window
	// P(X_n > G) is at most the target.
	Units   int           `json:"units"`
	Windows []WindowStats `json:"windows"` // statistics at Units, one per window length
}

// PlanThroughput plans s (work under a profile with unit rate tau,
// increment and minimum) for target t. The windows are bucketed once;
// callers that plan several targets on the same windows use PlanWindows.
func PlanThroughput(s Series, p Profile, t ThroughputTarget) (ThroughputPlan, error) {
	if err := t.Validate(); err != nil {
		return ThroughputPlan{}, err
	}
	ws := make([]Windowed, len(t.Windows))
	for i, d := range t.Windows {
		w, err := Bucket(s, p.Tau, d)
		if err != nil {
			return ThroughputPlan{}, err
		}
		ws[i] = w
	}
	return PlanWindows(ws, p, t)
}

// PlanWindows plans already bucketed windows (t.Windows is replaced by
// their lengths).
func PlanWindows(ws []Windowed, p Profile, t ThroughputTarget) (ThroughputPlan, error) {
	t.Windows = make([]float64, len(ws))
	for i := range ws {
		t.Windows[i] = ws[i].DeltaS
	}
	if err := t.Validate(); err != nil {
		return ThroughputPlan{}, err
	}
	if err := p.Validate(); err != nil {
		return ThroughputPlan{}, err
	}
	plan := ThroughputPlan{Percentile: t.Percentile, Headroom: t.Headroom}
	if t.MaxOverloadProb != NoOverloadTarget {
		eps := t.MaxOverloadProb
		plan.MaxOverloadProb = &eps
	}
	for i := range ws {
		if q := ws[i].Percentile(t.Percentile); i == 0 || q > plan.Required {
			plan.Required, plan.WorstWindowS = q, ws[i].DeltaS
		}
	}
	covered := RoundUp(plan.Required, p.Minimum, p.Increment)
	withH := RoundUp(covered*(1+t.Headroom), p.Minimum, p.Increment)
	g := withH
	if t.MaxOverloadProb != NoOverloadTarget {
		g = overloadUnits(ws, p, t.MaxOverloadProb, withH)
	}
	if g > float64(t.MaxUnits) {
		what := fmt.Sprintf("p%g of X_n with headroom %g", 100*t.Percentile, t.Headroom)
		if t.MaxOverloadProb != NoOverloadTarget && g > withH {
			what = fmt.Sprintf("worst-window P(X_n > G) <= %g", t.MaxOverloadProb)
		}
		return ThroughputPlan{}, &InfeasibleError{Msg: fmt.Sprintf(
			"no G <= max-units %d meets %s: it needs G = %.0f %ss (raise --max-units or relax the target)",
			t.MaxUnits, what, g, p.Unit)}
	}
	plan.Covered, plan.WithHeadroom, plan.Units = int(covered), int(withH), int(g)
	plan.Windows = make([]WindowStats, len(ws))
	for i := range ws {
		plan.Windows[i] = ws[i].Stats(g)
	}
	return plan, nil
}

// overloadUnits returns the smallest purchasable G >= from whose worst-window
// P(X_n > G) is at most eps. For each window the count of X_n > G may be at
// most m = ⌊eps·K⌋, so G must reach the (m+1)-th largest X_n.
func overloadUnits(ws []Windowed, p Profile, eps, from float64) float64 {
	allowed := make([]int, len(ws))
	need := 0.0
	for i := range ws {
		k := len(ws[i].sorted)
		m := int(math.Floor(eps*float64(k) + rankTolerance))
		allowed[i] = m
		if m < k {
			need = math.Max(need, ws[i].sorted[k-m-1])
		}
	}
	g := math.Max(from, RoundUp(need, p.Minimum, p.Increment))
	// RoundUp's snapping may land a hair below need: step up until every
	// window's strict count fits.
	for {
		ok := true
		for i := range ws {
			if ws[i].Exceed(g) > allowed[i] {
				ok = false
				break
			}
		}
		if ok {
			return g
		}
		g += float64(p.Increment)
	}
}
