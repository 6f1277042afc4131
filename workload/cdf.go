package workload

import "errors"

// CONTRACT (agreed interface; parsing, embedding and sampling are
// implemented by the workload work).

// Point is one breakpoint of a token-length CDF: F is the fraction of
// requests with L_total <= Tokens.
type Point struct {
	Tokens int
	F      float64
}

// CDF is a validated token-length distribution of L_total = L_in + L_out.
// Between breakpoints the lengths are uniform integers: bucket i holds the
// integers in (Points[i-1].Tokens, Points[i].Tokens] with probability
// Points[i].F - Points[i-1].F, and the first bucket holds [1, Points[0].Tokens]
// with probability Points[0].F.
type CDF struct {
	Name   string  // built-in name or file path
	Points []Point // Tokens strictly increasing, F non-decreasing in [0,1], last F = 1
}

// LoadCDF returns a built-in CDF ("azure", "lmsys", "agent-heavy") or reads a
// CDF JSON file (either [[tokens, F], ...] or {"cdf": [...]}).
func LoadCDF(nameOrPath string) (*CDF, error) {
	return nil, errors.New("workload: LoadCDF not implemented")
}
