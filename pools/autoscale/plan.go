package autoscale

import (
	"fmt"
	"math"
)

// PlanSchedule builds the "perfect forecast" schedule of one pool: for each
// step of stepS seconds over [0, periodS), size (an analytic planner, e.g.
// one FleetOpt or Erlang-C sizing) gives the instances for the step's peak
// rate, the largest of rate(t) sampled at the step's ends and at 64 evenly
// spaced points inside it (exact for step and linear profiles whose points
// lie on the grid; within the sampling for a sinusoid). The schedule repeats
// every periodS.
func PlanSchedule(rate func(t float64) float64, stepS, periodS float64, size func(rate float64) (int, error)) (Schedule, error) {
	if !finite(stepS) || !(stepS > 0) || !finite(periodS) || !(periodS >= stepS) {
		return Schedule{}, fmt.Errorf("autoscale: plan schedule: step %g s and period %g s: want 0 < step <= period", stepS, periodS)
	}
	steps := int(math.Ceil(periodS/stepS - 1e-9))
	s := Schedule{PeriodS: periodS}
	for k := range steps {
		t0 := float64(k) * stepS
		t1 := min(t0+stepS, periodS)
		peak := 0.0
		const samples = 64
		for i := 0; i <= samples; i++ {
			t := t0 + (t1-t0)*float64(i)/samples
			if i == samples {
				t = math.Nextafter(t1, t0) // the step's end, inside it
			}
			peak = max(peak, rate(t))
		}
		n, err := size(peak)
		if err != nil {
			return Schedule{}, fmt.Errorf("autoscale: plan schedule: step at %g s (peak %g req/s): %w", t0, peak, err)
		}
		s.Times, s.Counts = append(s.Times, t0), append(s.Counts, n)
	}
	return s, nil
}
