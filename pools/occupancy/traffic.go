// Package occupancy is the planner's occupancy service model: the iteration
// time of a GPU evaluated at the number of sequences it actually runs and
// the KV tokens they hold, instead of at a full batch (the papers' M/G/c
// model), a birth–death chain over the number of requests in a pool for the
// queueing, and the P99 wait, TTFT and TPOT that follow. docs/planner.md §10
// gives the equations.
package occupancy

import (
	"fmt"
	"math"

	"github.com/fleetsim/fleetsim/workload"
)

// Part is one component of a pool's traffic: the requests of total length
// L in (Lo, Hi] of a CDF, a Share of the pool's requests, served with the
// prompt cut to CompressTo − L_out when CompressTo > 0 (compress-and-route).
// It mirrors the planner's MixPart.
type Part struct {
	Lo, Hi     int     // length slice, tokens
	Share      float64 // fraction of the pool's requests, in (0, 1]
	CompressTo int     // C&R budget B, tokens; 0 = served as is
}

// group is the requests of one prefill-iteration count m.
type group struct {
	w    float64 // probability
	m    int     // prefill iterations ceil(L_in/C)
	in   float64 // mean served prompt, tokens
	own  float64 // mean own KV tokens summed over the prefill iterations: C·m(m−1)/2 + L_in
	d    float64 // mean decode iterations L_out − 1
	dctx float64 // mean own context over the decode iterations, L_in + (d+1)/2, tokens
}

// Traffic is what the model needs of a pool's requests: the moments of the
// iterations a request holds a slot and of the KV tokens it holds, and its
// requests grouped by prefill iterations for the latency quantiles. Every
// moment is exact over the integer lengths of the CDF slice (lengths uniform
// inside a CDF bucket, workload.CDF semantics).
type Traffic struct {
	Chunk int // prefill chunk C, tokens

	// Moments over requests. A request runs k = ceil(L_in/C) + L_out − 1
	// iterations (the engine's count, docs/model.md) and holds, summed over
	// those iterations, A = C·m(m−1)/2 + L_in + d·L_in + d(d+1)/2 KV tokens
	// (m prefill iterations, d = L_out − 1 decode iterations).
	EK   float64 // E[k], iterations
	EK2  float64 // E[k²]
	EA   float64 // E[A], token·iterations
	ECtx float64 // E[Σ ctx²] over a request's iterations, token²·iterations
	EIn  float64 // E[L_in], prompt tokens prefilled per request
	// ZeroTPOT is the share of requests with L_out = 1 (TPOT 0).
	ZeroTPOT float64

	groups []group
}

// NewTraffic builds the traffic of a pool from cdf, split with input
// fraction frac (workload.SplitFixed) and prefilled in chunks of chunk
// tokens. parts must have positive shares summing to 1 (±1e-6).
func NewTraffic(cdf *workload.CDF, frac float64, chunk int, parts []Part) (*Traffic, error) {
	if chunk < 1 {
		return nil, fmt.Errorf("chunk %d tokens: must be >= 1", chunk)
	}
	if len(parts) == 0 {
		return nil, fmt.Errorf("traffic: no part")
	}
	tr := &Traffic{Chunk: chunk}
	byM := map[int]*group{}
	var order []int
	total := 0.0
	C := float64(chunk)
	for _, p := range parts {
		if !(p.Share > 0 && p.Share <= 1+1e-9) || p.Lo < 0 || p.Hi <= p.Lo {
			return nil, fmt.Errorf("traffic part (%d, %d] share %v: need 0 <= lo < hi and share in (0, 1]", p.Lo, p.Hi, p.Share)
		}
		hi := min(p.Hi, cdf.Max())
		mass := cdf.F(float64(hi)) - cdf.F(float64(p.Lo))
		if !(mass > 0) {
			return nil, fmt.Errorf("traffic part (%d, %d]: empty slice of the CDF", p.Lo, p.Hi)
		}
		total += p.Share
		prev := cdf.F(float64(p.Lo))
		for L := p.Lo + 1; L <= hi; L++ {
			f := cdf.F(float64(L))
			pr := f - prev
			prev = f
			if pr <= 0 {
				continue
			}
			w := p.Share * pr / mass
			in, out := workload.SplitFixed(L, frac)
			if p.CompressTo > 0 {
				in = max(1, min(in, p.CompressTo-out))
			}
			m := (in + chunk - 1) / chunk
			fm, fin, d := float64(m), float64(in), float64(out-1)
			k := fm + d
			own := C*fm*(fm-1)/2 + fin
			a := own + d*fin + d*(d+1)/2
			ctx2 := C*C*(fm-1)*fm*(2*fm-1)/6 + fin*fin + d*fin*fin + fin*d*(d+1) + d*(d+1)*(2*d+1)/6
			tr.EK += w * k
			tr.EK2 += w * k * k
			tr.EA += w * a
			tr.ECtx += w * ctx2
			tr.EIn += w * fin
			if out == 1 {
				tr.ZeroTPOT += w
			}
			g := byM[m]
			if g == nil {
				g = &group{m: m}
				byM[m] = g
				order = append(order, m)
			}
			g.w += w
			g.in += w * fin
			g.own += w * own
			g.d += w * d
			g.dctx += w * (fin + (d+1)/2)
		}
	}
	if math.Abs(total-1) > 1e-6 {
		return nil, fmt.Errorf("traffic: part shares sum to %v, want 1", total)
	}
	for _, m := range order {
		g := byM[m]
		g.in /= g.w
		g.own /= g.w
		g.d /= g.w
		g.dctx /= g.w
		tr.groups = append(tr.groups, *g)
	}
	return tr, nil
}

// Cs2 is the squared coefficient of variation of the iterations a request
// holds a slot, Var[k]/E[k]² (of its slot time at a fixed iteration time).
func (t *Traffic) Cs2() float64 { return t.EK2/(t.EK*t.EK) - 1 }

// MeanCtx is c̄ = E[A]/E[k], the mean KV tokens of a running sequence
// (iteration-weighted), tokens.
func (t *Traffic) MeanCtx() float64 { return t.EA / t.EK }

// VarCtx is the variance of a running sequence's KV tokens, tokens².
func (t *Traffic) VarCtx() float64 {
	c := t.MeanCtx()
	return math.Max(0, t.ECtx/t.EK-c*c)
}
