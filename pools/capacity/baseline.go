package capacity

import (
	"fmt"
	"math"

	"github.com/fleetsim/fleetsim/workload"
	"gonum.org/v1/gonum/mat"
)

// Baseline is the linear model of a request's latency without capacity
// contention:
//
//	L_base = a + b_in·I + b_cache·C + b_out·O + b_think·H
//
// with I the total input (cached tokens included) as in slosizer. All
// coefficients are >= 0.
type Baseline struct {
	InterceptS float64 `json:"intercept_s"`        // a, s
	InputS     float64 `json:"input_s_per_token"`  // b_in, s per input token
	CachedS    float64 `json:"cached_s_per_token"` // b_cache, s per cached input token
	OutputS    float64 `json:"output_s_per_token"` // b_out, s per output token
	ThinkingS  float64 `json:"thinking_s_per_token"`
}

// DefaultBaseline is used when fewer than MinFitObservations latencies are
// observed: slosizer's BaselineLatencyModel defaults (0.15 s + 3e-5 s per
// input token + 8e-6 s per cached token + 9e-4 s per output token + 7e-4 s
// per thinking token), which describe a hosted API model, not any fleetsim
// GPU profile.
var DefaultBaseline = Baseline{InterceptS: 0.15, InputS: 3e-5, CachedS: 8e-6, OutputS: 9e-4, ThinkingS: 7e-4}

// MinFitObservations is the number of observed latencies from which
// FitBaseline fits the model instead of returning DefaultBaseline.
const MinFitObservations = 20

// Predict returns L_base for r, s.
func (b Baseline) Predict(r Request) float64 {
	return b.InterceptS + b.InputS*float64(r.Input) + b.CachedS*float64(r.Cached) +
		b.OutputS*float64(r.Output) + b.ThinkingS*float64(r.Thinking)
}

// Validate checks that every coefficient is finite and >= 0.
func (b Baseline) Validate() error {
	for _, c := range []struct {
		name string
		v    float64
	}{{"intercept_s", b.InterceptS}, {"input_s_per_token", b.InputS}, {"cached_s_per_token", b.CachedS},
		{"output_s_per_token", b.OutputS}, {"thinking_s_per_token", b.ThinkingS}} {
		if !(c.v >= 0) || math.IsInf(c.v, 1) {
			return &workload.FieldError{Field: "baseline." + c.name, Value: c.v, Allowed: "a finite number >= 0"}
		}
	}
	return nil
}

// Fit is a fitted (or default) baseline and how it was obtained.
type Fit struct {
	Baseline     Baseline `json:"baseline"`
	Fitted       bool     `json:"fitted"`       // false: DefaultBaseline (too few observations)
	Observations int      `json:"observations"` // requests with an observed latency
	RMSES        float64  `json:"rmse_s"`       // root-mean-square error on the observations, s (0 when not fitted)
}

// FitBaseline fits the baseline by non-negative least squares (NNLS) on the
// requests with an observed latency, when there are at least
// MinFitObservations of them; otherwise it returns DefaultBaseline. Unlike
// slosizer, which solves ordinary least squares and clips negative
// coefficients to 0, the fit is constrained, so the kept coefficients are
// re-fitted once a coefficient is held at 0.
func FitBaseline(reqs []Request) (Fit, error) {
	var rows [][5]float64
	var y []float64
	for i, r := range reqs {
		if math.IsNaN(r.Latency) {
			continue
		}
		if err := r.Validate(i); err != nil {
			return Fit{}, err
		}
		rows = append(rows, [5]float64{1, float64(r.Input), float64(r.Cached), float64(r.Output), float64(r.Thinking)})
		y = append(y, r.Latency)
	}
	if len(rows) < MinFitObservations {
		return Fit{Baseline: DefaultBaseline, Observations: len(rows)}, nil
	}
	a := mat.NewDense(len(rows), 5, nil)
	for i, row := range rows {
		a.SetRow(i, row[:])
	}
	x, err := NNLS(a, y)
	if err != nil {
		return Fit{}, fmt.Errorf("capacity: baseline fit: %w", err)
	}
	b := Baseline{InterceptS: x[0], InputS: x[1], CachedS: x[2], OutputS: x[3], ThinkingS: x[4]}
	var sse float64
	for i, row := range rows {
		d := b.InterceptS + b.InputS*row[1] + b.CachedS*row[2] + b.OutputS*row[3] + b.ThinkingS*row[4] - y[i]
		sse += d * d
	}
	return Fit{Baseline: b, Fitted: true, Observations: len(rows), RMSES: math.Sqrt(sse / float64(len(rows)))}, nil
}
