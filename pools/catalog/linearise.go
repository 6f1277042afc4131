package catalog

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/fleetsim/fleetsim/engine"
)

// LinearFit is a least-squares fit of the engine's linear iteration time to
// a step model over a set of batches, with its relative residuals.
type LinearFit struct {
	Timing engine.Timing
	Median float64 // median |relative error| over the fitted batches
	P95    float64 // 95th percentile of |relative error|
	Max    float64 // largest |relative error|
	Points int     // batches fitted
}

// FitEngineTiming fits t_iter = W + H_seq·n_active + H_kv·kv_tokens +
// P·prefill_tokens (docs/model.md) to model over batches by least squares
// on the relative error, every coefficient >= 0 (a negative one is pinned to
// 0 and the rest refitted). use selects the coefficients fitted (W, H_seq,
// H_kv, P); the others stay 0 (the papers' form is {W, H_seq}).
func FitEngineTiming(model StepModel, batches []Batch, use [4]bool) (LinearFit, error) {
	if !use[0] {
		return LinearFit{}, fmt.Errorf("fit: W is always fitted")
	}
	ys := make([]float64, len(batches))
	feats := make([][4]float64, len(batches))
	for i, b := range batches {
		ys[i] = model.IterTime(b)
		feats[i] = [4]float64{1, float64(b.Active()), b.KVTokens(), float64(b.Prefill)}
	}
	x, err := nnlsRel(feats, ys, use)
	if err != nil {
		return LinearFit{}, err
	}
	f := LinearFit{Timing: engine.Timing{W: x[0], HSeq: x[1], HKV: x[2], P: x[3]}, Points: len(batches)}
	errs := make([]float64, len(batches))
	for i := range batches {
		pred := x[0]*feats[i][0] + x[1]*feats[i][1] + x[2]*feats[i][2] + x[3]*feats[i][3]
		errs[i] = RelErr(pred, ys[i])
		f.Max = math.Max(f.Max, math.Abs(errs[i]))
	}
	f.Median, f.P95 = AbsQuantile(errs, 0.5), AbsQuantile(errs, 0.95)
	return f, nil
}

// nnlsRel solves min Σ ((feat·x − y)/y)² over the columns in use with
// x >= 0, by pinning negative coefficients to 0 and refitting.
func nnlsRel(feats [][4]float64, ys []float64, use [4]bool) ([4]float64, error) {
	k := 0
	for _, u := range use {
		if u {
			k++
		}
	}
	if len(ys) < k+1 {
		return [4]float64{}, fmt.Errorf("fit: %d points for %d coefficients, need at least %d", len(ys), k, k+1)
	}
	for {
		var cols []int
		for j, u := range use {
			if u {
				cols = append(cols, j)
			}
		}
		A := mat.NewDense(len(ys), len(cols), nil)
		y := mat.NewVecDense(len(ys), nil)
		for i := range ys {
			if !(ys[i] > 0) || math.IsInf(ys[i], 0) {
				return [4]float64{}, fmt.Errorf("fit: iteration time %v at point %d: must be finite and > 0", ys[i], i)
			}
			for k, j := range cols {
				A.Set(i, k, feats[i][j]/ys[i])
			}
			y.SetVec(i, 1)
		}
		var sol mat.VecDense
		if err := sol.SolveVec(A, y); err != nil {
			return [4]float64{}, fmt.Errorf("fit: least squares: %w", err)
		}
		var x [4]float64
		neg := false
		for k, j := range cols {
			x[j] = sol.AtVec(k)
			if x[j] < 0 && j > 0 {
				use[j], neg = false, true
			}
		}
		if !neg {
			if !(x[0] > 0) {
				return [4]float64{}, fmt.Errorf("fit: W = %v: not positive", x[0])
			}
			return x, nil
		}
	}
}

// RegionBatches are the batches of a pool's operating region: up to slots
// sequences decoding at a quarter, half and all of the max context, and a
// prefill chunk of chunk tokens alone and beside a quarter of the slots
// decoding, at the start and the middle of a max-context prompt.
func RegionBatches(slots, maxCtx, chunk int) []Batch {
	var ns []int
	for n := 1; n < slots; n *= 2 {
		ns = append(ns, n)
	}
	ns = append(ns, slots)
	ctxs := []int{max(maxCtx/4, 1), max(maxCtx/2, 1), maxCtx}
	var out []Batch
	for _, n := range ns {
		for _, c := range ctxs {
			out = append(out, DecodeBatch(n, c))
		}
	}
	c := min(chunk, maxCtx)
	for _, p := range []int{0, maxCtx / 2} {
		if p+c > maxCtx {
			continue
		}
		pre := PrefillBatch(c, p)
		out = append(out, pre)
		for _, n := range slices.Compact([]int{max(slots/4, 1), slots}) {
			b := DecodeBatch(n, max(maxCtx/4, 1))
			b.Prefill, b.PrefillSeqs, b.PrefillKV, b.PrefillAttn = pre.Prefill, pre.PrefillSeqs, pre.PrefillKV, pre.PrefillAttn
			out = append(out, b)
		}
	}
	return out
}
