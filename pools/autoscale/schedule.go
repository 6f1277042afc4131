package autoscale

import "sort"

// Schedule gives each pool's instances as data: Counts[k] from Times[k]
// seconds (Times[0] = 0, increasing) until the next time, repeating every
// PeriodS seconds when PeriodS > 0 (for example one analytic plan per hour
// of the day: the "perfect forecast" bound).
type Schedule struct {
	Times   []float64 `json:"times_s" yaml:"times_s"`
	Counts  []int     `json:"instances" yaml:"instances"`
	PeriodS float64   `json:"period_s,omitempty" yaml:"period_s,omitempty"`
}

// At returns the count at time t seconds.
func (s Schedule) At(t float64) int {
	if s.PeriodS > 0 {
		t -= float64(int64(t/s.PeriodS)) * s.PeriodS
	}
	k := sort.SearchFloat64s(s.Times, t)
	if k == len(s.Times) || s.Times[k] > t {
		k--
	}
	return s.Counts[max(k, 0)]
}

// Scheduled is the schedule policy: pool i follows Pools[i].
type Scheduled struct {
	Pools []Schedule
}

// Decide returns each pool's scheduled count at the observations' time.
func (p Scheduled) Decide(obs []Observation) []int {
	out := make([]int, len(obs))
	for i, o := range obs {
		out[i] = p.Pools[i].At(o.TimeS)
	}
	return out
}
