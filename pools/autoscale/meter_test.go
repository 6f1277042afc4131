package autoscale

import (
	"math"
	"testing"
)

func TestMeter(t *testing.T) {
	m := NewMeter(10)
	m.Arrive(100, 10)
	m.Arrive(300, 30)
	var o Observation
	m.Take(14, &o) // 2 arrivals over 4 s
	if o.TimeS != 14 || o.Arrivals != 2 || o.RateRPS != 0.5 || o.MeanIn != 200 || o.MeanOut != 20 {
		t.Errorf("first interval %+v", o)
	}
	m.Take(29, &o) // none over 15 s
	if o.Arrivals != 0 || o.RateRPS != 0 || o.MeanIn != 0 {
		t.Errorf("empty interval %+v", o)
	}
}

// TestPlanSchedule: one size per hour of a step profile, by hand: rates
// 100, 300, 200 req/s for an hour each; size = ⌈rate/40⌉.
func TestPlanSchedule(t *testing.T) {
	rate := func(t float64) float64 { return []float64{100, 300, 200}[int(t/3600)%3] }
	size := func(r float64) (int, error) { return int(math.Ceil(r / 40)), nil }
	s, err := PlanSchedule(rate, 3600, 3*3600, size)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{3, 8, 5}; !equal(s.Counts, want) || s.Times[2] != 7200 || s.PeriodS != 10800 {
		t.Errorf("schedule %+v, want counts %v", s, want)
	}
	// A sinusoid's peak inside a step: λ = 100(1 + 0.5 cos(2π(t − 1800)/7200))
	// peaks at 150 at t = 1800, inside the first hour.
	sin := func(t float64) float64 { return 100 * (1 + 0.5*math.Cos(2*math.Pi*(t-1800)/7200)) }
	s, _ = PlanSchedule(sin, 3600, 7200, size)
	if s.Counts[0] != 4 { // ⌈150/40⌉
		t.Errorf("sinusoid first hour: %d, want 4", s.Counts[0])
	}
	if _, err := PlanSchedule(rate, 0, 3600, size); err == nil {
		t.Errorf("step 0: no error")
	}
}
