package variants

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat"
)

// LinearFit is a least-squares line y = Intercept + Slope·x with its
// quality. For the decode fit x is the batch size and y the ITL (ms); for
// the prefill fit x is in·batch (prompt tokens in the batch) and y the
// prefill time (ms).
type LinearFit struct {
	Intercept float64   `json:"intercept_ms" yaml:"intercept_ms"`
	Slope     float64   `json:"slope_ms" yaml:"slope_ms"`
	R2        float64   `json:"r2" yaml:"r2"`                     // coefficient of determination (1 when y is constant and fitted exactly)
	Points    int       `json:"points" yaml:"points"`             // observations
	Residuals []float64 `json:"residuals_ms" yaml:"residuals_ms"` // y − fitted, ms, in input order
}

// FitLine fits y = a + b·x by ordinary least squares (gonum's
// stat.LinearRegression). It needs at least two distinct x values and
// finite data; field names the quantity in error messages ("bb", ...).
func FitLine(x, y []float64, field string) (LinearFit, error) {
	if len(x) != len(y) {
		return LinearFit{}, fmt.Errorf("fit: %d x values and %d y values", len(x), len(y))
	}
	if len(x) == 0 {
		return LinearFit{}, bad(field, "none", "the group has no rows: at least 2 distinct values are needed")
	}
	for i := range x {
		if !finite(x[i]) || !finite(y[i]) {
			return LinearFit{}, bad(field, fmt.Sprintf("(%v, %v)", x[i], y[i]), "row %d: values must be finite numbers", i+1)
		}
	}
	distinct := slices.Clone(x)
	slices.Sort(distinct)
	distinct = slices.Compact(distinct)
	if len(distinct) < 2 {
		what := fmt.Sprintf("all %d rows have this value", len(x))
		if len(x) == 1 {
			what = "one row only"
		}
		return LinearFit{}, bad(field, distinct[0], "%s: at least 2 distinct values are needed for a line", what)
	}
	a, b := stat.LinearRegression(x, y, nil, false)
	f := LinearFit{Intercept: a, Slope: b, Points: len(x), Residuals: make([]float64, len(x))}
	var ssRes, ssTot float64
	mean := stat.Mean(y, nil)
	for i := range x {
		r := y[i] - (a + b*x[i])
		f.Residuals[i] = r
		ssRes += r * r
		ssTot += (y[i] - mean) * (y[i] - mean)
	}
	switch {
	case ssTot > 0:
		f.R2 = 1 - ssRes/ssTot
	case ssRes == 0:
		f.R2 = 1
	}
	return f, nil
}

// RMS returns the root mean square of the residuals, ms.
func (f LinearFit) RMS() float64 {
	var s float64
	for _, r := range f.Residuals {
		s += r * r
	}
	if len(f.Residuals) == 0 {
		return 0
	}
	return math.Sqrt(s / float64(len(f.Residuals)))
}
