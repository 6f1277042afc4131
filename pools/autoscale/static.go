package autoscale

// Static keeps every pool at its current size: today's fixed fleet.
type Static struct{}

// Decide returns each pool's current count.
func (Static) Decide(obs []Observation) []int {
	out := make([]int, len(obs))
	for i, o := range obs {
		out[i] = o.Current
	}
	return out
}
