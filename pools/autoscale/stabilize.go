package autoscale

// Stabilized applies the HPA's scale-down stabilization to another policy:
// each pool scales down only to the highest count Inner gave it over the
// last DownWindowS seconds (scale-ups pass at once). The wva policy runs
// under it (its replica counts reach a cluster through an HPA, whose
// window keeps them from flapping with every interval's noise).
type Stabilized struct {
	Inner       Autoscaler
	DownWindowS float64
	hist        [][]rec
}

// Decide returns Inner's counts, stabilized.
func (s *Stabilized) Decide(obs []Observation) []int {
	out := s.Inner.Decide(obs)
	for len(s.hist) < len(obs) {
		s.hist = append(s.hist, nil)
	}
	for i, o := range obs {
		h := s.hist[i]
		j := 0
		for j < len(h) && !(h[j].t > o.TimeS-s.DownWindowS) {
			j++
		}
		h = append(h[j:], rec{o.TimeS, out[i]})
		s.hist[i] = h
		for _, x := range h {
			out[i] = max(out[i], x.n)
		}
	}
	return out
}

// Failed returns Inner's first error, if it reports one.
func (s *Stabilized) Failed() error {
	if f, ok := s.Inner.(interface{ Failed() error }); ok {
		return f.Failed()
	}
	return nil
}
