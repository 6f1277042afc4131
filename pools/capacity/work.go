package capacity

import (
	"fmt"
	"math"

	"github.com/fleetsim/fleetsim/workload"
)

// Request is one request as the planner sees it.
type Request struct {
	Arrival  float64 // arrival time, s (any origin; plans use times relative to the first)
	Input    int     // input tokens I, cached ones included (>= 0)
	Cached   int     // cached input tokens C, part of I (0 <= C <= I)
	Output   int     // output tokens O (>= 0)
	Thinking int     // thinking tokens H (>= 0)
	// Latency is the observed end-to-end latency, s, used to fit the
	// baseline model; NaN when not observed.
	Latency float64
}

// MaxTokens bounds each token count of a request.
const MaxTokens = 1 << 30

// Validate checks the request's fields; i is its 0-based index, used in the
// error (a *workload.FieldError such as `requests[3].cached = 900: ...`).
func (r Request) Validate(i int) error {
	f := func(name string) string { return fmt.Sprintf("requests[%d].%s", i, name) }
	bad := func(name string, v any, allowed string) error {
		return &workload.FieldError{Field: f(name), Value: v, Allowed: allowed}
	}
	if !isFinite(r.Arrival) {
		return bad("arrival_s", r.Arrival, "a finite time in seconds")
	}
	for _, t := range []struct {
		name string
		v    int
	}{{"input_tokens", r.Input}, {"cached_tokens", r.Cached}, {"output_tokens", r.Output}, {"thinking_tokens", r.Thinking}} {
		if t.v < 0 || t.v > MaxTokens {
			return bad(t.name, t.v, fmt.Sprintf("tokens: an integer in [0, %d]", MaxTokens))
		}
	}
	if r.Cached > r.Input {
		return bad("cached_tokens", r.Cached, fmt.Sprintf("cached tokens are part of the input: at most input_tokens (%d)", r.Input))
	}
	if !math.IsNaN(r.Latency) && !(r.Latency >= 0 && r.Latency < math.Inf(1)) {
		return bad("latency_s", r.Latency, "an observed latency in seconds, >= 0 (or absent)")
	}
	return nil
}

// Series is a trace turned into work under one profile: arrival times
// relative to the first request and each request's work, in arrival order.
type Series struct {
	T []float64 // arrival time since the first request, s (T[0] = 0, non-decreasing)
	B []float64 // work B_j, adjusted tokens
	// Total is ΣB_j, adjusted tokens.
	Total float64
}

// Span returns the time from the first to the last arrival, s.
func (s *Series) Span() float64 {
	if len(s.T) == 0 {
		return 0
	}
	return s.T[len(s.T)-1]
}

// NewSeries validates reqs (at least one, sorted by arrival time) and
// returns their work under p.
func NewSeries(reqs []Request, p Profile) (Series, error) {
	if err := p.Validate(); err != nil {
		return Series{}, err
	}
	if len(reqs) == 0 {
		return Series{}, &workload.FieldError{Field: "requests", Value: 0, Allowed: "at least one request is needed"}
	}
	s := Series{T: make([]float64, len(reqs)), B: make([]float64, len(reqs))}
	t0 := reqs[0].Arrival
	for i, r := range reqs {
		if err := r.Validate(i); err != nil {
			return Series{}, err
		}
		if i > 0 && r.Arrival < reqs[i-1].Arrival {
			return Series{}, &workload.FieldError{Field: fmt.Sprintf("requests[%d].arrival_s", i), Value: r.Arrival,
				Allowed: fmt.Sprintf("earlier than the previous request's %v s: requests must be sorted by arrival", reqs[i-1].Arrival)}
		}
		s.T[i] = r.Arrival - t0
		s.B[i] = p.Work(r)
		s.Total += s.B[i]
	}
	return s, nil
}
