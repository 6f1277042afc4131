package capacity

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestNNLS(t *testing.T) {
	for _, c := range []struct {
		name string
		a    *mat.Dense
		b    []float64
		want []float64
	}{
		// Identity: the unconstrained solution (1, −1) is clipped to (1, 0),
		// which is also the constrained optimum (hand computation).
		{"identity", mat.NewDense(2, 2, []float64{1, 0, 0, 1}), []float64{1, -1}, []float64{1, 0}},
		// Line through (1,3), (2,2), (3,1): least squares gives intercept 4,
		// slope −1; with slope >= 0 the optimum is slope 0 and the intercept
		// is the mean, 2 (hand computation). Clipping the OLS slope to 0 and
		// keeping the intercept 4, as slosizer does, would be worse.
		{"decreasing line", mat.NewDense(3, 2, []float64{1, 1, 1, 2, 1, 3}), []float64{3, 2, 1}, []float64{2, 0}},
		// A zero column stays at 0.
		{"zero column", mat.NewDense(3, 2, []float64{1, 0, 1, 0, 1, 0}), []float64{1, 2, 3}, []float64{2, 0}},
	} {
		x, err := NNLS(c.a, c.b)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for i := range x {
			if math.Abs(x[i]-c.want[i]) > 1e-9 {
				t.Errorf("%s: x = %v, want %v", c.name, x, c.want)
				break
			}
		}
	}
}

// Noiseless latencies of a non-negative model are recovered exactly, and
// fewer than 20 observations give the documented defaults.
func TestFitBaseline(t *testing.T) {
	want := Baseline{InterceptS: 0.05, InputS: 2e-5, CachedS: 0, OutputS: 0.012, ThinkingS: 0.01}
	rng := rand.New(rand.NewPCG(7, 8))
	reqs := make([]Request, 200)
	for i := range reqs {
		in := 1 + rng.IntN(8000)
		r := Request{Input: in, Cached: rng.IntN(in + 1), Output: 1 + rng.IntN(600), Thinking: rng.IntN(100)}
		r.Latency = want.Predict(r)
		reqs[i] = r
	}
	fit, err := FitBaseline(reqs)
	if err != nil {
		t.Fatal(err)
	}
	got := []float64{fit.Baseline.InterceptS, fit.Baseline.InputS, fit.Baseline.CachedS, fit.Baseline.OutputS, fit.Baseline.ThinkingS}
	exp := []float64{want.InterceptS, want.InputS, want.CachedS, want.OutputS, want.ThinkingS}
	for i := range got {
		if math.Abs(got[i]-exp[i]) > 1e-9*math.Max(1, exp[i]) {
			t.Errorf("fit %+v, want %+v", fit.Baseline, want)
			break
		}
	}
	if !fit.Fitted || fit.Observations != 200 || fit.RMSES > 1e-9 {
		t.Errorf("fit = %+v", fit)
	}
	for i := range reqs[19:] {
		reqs[19+i].Latency = math.NaN()
	}
	fit, _ = FitBaseline(reqs)
	if fit.Fitted || fit.Baseline != DefaultBaseline || fit.Observations != 19 {
		t.Errorf("19 observations: %+v", fit)
	}
}
