package capacity

import (
	"errors"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// NNLS solves min ‖A·x − b‖₂ subject to x >= 0 by the active-set method of
// Lawson and Hanson (Solving Least Squares Problems, 1974, ch. 23): columns
// enter the passive set one at a time by largest gradient, each step solves
// the unconstrained problem on the passive columns (QR, gonum), and a step
// that would make a coefficient negative is cut short at the boundary.
// Columns are scaled to unit norm first (the solution is unscaled after;
// positive scaling keeps x >= 0), so features in tokens and an intercept
// column of ones are handled alike. A is m×n with m >= 1; b has m entries.
func NNLS(a *mat.Dense, b []float64) ([]float64, error) {
	m, n := a.Dims()
	if len(b) != m {
		return nil, errors.New("capacity: NNLS: len(b) != rows of A")
	}
	// Scale columns.
	as := mat.DenseCopyOf(a)
	scale := make([]float64, n)
	col := make([]float64, m)
	for j := 0; j < n; j++ {
		mat.Col(col, j, as)
		nrm := floats.Norm(col, 2)
		if nrm == 0 || math.IsNaN(nrm) || math.IsInf(nrm, 0) {
			scale[j] = 0 // a zero (or broken) column stays out: x_j = 0
			continue
		}
		scale[j] = 1 / nrm
		for i := 0; i < m; i++ {
			as.Set(i, j, as.At(i, j)*scale[j])
		}
	}
	bv := mat.NewVecDense(m, append([]float64(nil), b...))
	tol := 10 * float64(max(m, n)) * 2.220446049250313e-16 * math.Max(1, floats.Norm(b, 2))

	x := make([]float64, n)
	passive := make([]bool, n)
	grad := func() []float64 { // w = Aᵀ(b − A·x)
		xv := mat.NewVecDense(n, append([]float64(nil), x...))
		var r mat.VecDense
		r.MulVec(as, xv)
		r.SubVec(bv, &r)
		var w mat.VecDense
		w.MulVec(as.T(), &r)
		return w.RawVector().Data
	}
	solve := func() ([]float64, error) { // least squares on the passive columns
		idx := []int{}
		for j := 0; j < n; j++ {
			if passive[j] {
				idx = append(idx, j)
			}
		}
		sub := mat.NewDense(m, len(idx), nil)
		for k, j := range idx {
			for i := 0; i < m; i++ {
				sub.Set(i, k, as.At(i, j))
			}
		}
		var z mat.VecDense
		if m >= len(idx) {
			var qr mat.QR
			qr.Factorize(sub)
			if err := qr.SolveVecTo(&z, false, bv); err != nil {
				return nil, err
			}
		} else {
			if err := z.SolveVec(sub, bv); err != nil {
				return nil, err
			}
		}
		s := make([]float64, n)
		for k, j := range idx {
			s[j] = z.AtVec(k)
		}
		return s, nil
	}
	for iter := 0; iter < 3*n+3; iter++ {
		w := grad()
		best, jmax := tol, -1
		for j := 0; j < n; j++ {
			if !passive[j] && scale[j] > 0 && w[j] > best {
				best, jmax = w[j], j
			}
		}
		if jmax < 0 {
			break
		}
		passive[jmax] = true
		for inner := 0; inner < 3*n+3; inner++ {
			s, err := solve()
			if err != nil {
				return nil, err
			}
			alpha, cut := 1.0, false
			for j := 0; j < n; j++ {
				if passive[j] && s[j] <= 0 {
					if d := x[j] - s[j]; d > 0 {
						if a := x[j] / d; a < alpha {
							alpha = a
						}
					} else {
						alpha = 0
					}
					cut = true
				}
			}
			if !cut {
				copy(x, s)
				break
			}
			for j := 0; j < n; j++ {
				if passive[j] {
					x[j] += alpha * (s[j] - x[j])
					if x[j] <= tol {
						x[j], passive[j] = 0, false
					}
				}
			}
		}
	}
	for j := range x {
		x[j] *= scale[j]
	}
	return x, nil
}
