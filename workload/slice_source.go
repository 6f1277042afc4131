package workload

// SliceSource replays requests held in memory, in the order given (their
// Arrival times must not decrease). It is for callers that build the
// request stream themselves, such as the reserved-capacity check.
type SliceSource struct {
	reqs []Request
	i    int
}

// NewSliceSource returns a Source over reqs (not copied; do not modify it
// during the run).
func NewSliceSource(reqs []Request) *SliceSource { return &SliceSource{reqs: reqs} }

// Next implements Source.
func (s *SliceSource) Next(r *Request) bool {
	if s.i >= len(s.reqs) {
		return false
	}
	*r = s.reqs[s.i]
	s.i++
	return true
}

// Err implements Source; a slice never fails.
func (s *SliceSource) Err() error { return nil }

// SelfContained implements SelfContained (the slice must not change during
// the run, as NewSliceSource says).
func (s *SliceSource) SelfContained() {}
