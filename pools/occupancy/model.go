package occupancy

import (
	"errors"
	"fmt"
	"math"

	"github.com/fleetsim/fleetsim/engine"
	"github.com/fleetsim/fleetsim/pools/queueing"
)

// Tail is the quantile the model predicts: 0.99 (P99).
const Tail = 0.99

// Pool is one pool of identical GPUs under the occupancy model.
type Pool struct {
	Timing  engine.Timing // iteration-time coefficients of the preset
	Slots   int           // N: sequences one GPU runs at once
	GPUs    int           // G
	Rate    float64       // λ_p, requests/s
	Traffic *Traffic
}

// Prediction is the occupancy model's answer for one pool.
type Prediction struct {
	// Occupancy is the mean-value fixed point n̄ = (λ_p/G)·E[k]·t(n̄):
	// sequences running on one GPU (+Inf when there is none below N).
	Occupancy float64 `json:"occupancy_fixed_point"`
	// Utilization is the slot utilization E[min(J, G·N)]/(G·N) of the
	// birth–death chain, in [0, 1].
	Utilization float64 `json:"utilization"`
	// IterS is the iteration time t(r̄) at the chain's mean occupancy per
	// GPU r̄ = Utilization·N, s.
	IterS float64 `json:"iter_s"`
	// MeanServiceS is a request's mean slot time E[k]·t(r̄), s.
	MeanServiceS float64 `json:"mean_service_s"`
	// MuMax is the pool's departure rate with every slot busy, requests/s:
	// G·N/(E[k]·t(N)); the pool is stable while λ_p < MuMax.
	MuMax float64 `json:"mu_max"`
	// PWait is P(J >= G·N): the share of arrivals that find every slot busy.
	PWait    float64 `json:"p_wait"`
	P99WaitS float64 `json:"p99_wait_s"`
	P99TTFTS float64 `json:"p99_ttft_s"`
	P99TPOTS float64 `json:"p99_tpot_s"`
}

// ErrUnstable is returned for a pool whose arrival rate reaches the rate at
// which it serves with every slot busy.
var ErrUnstable = errors.New("no stable operating point: the arrival rate reaches the pool's full-batch service rate")

// beta is the iteration-time slope per running sequence: t(r) = W + β·r
// with β = H_seq + H_kv·c̄ + P·E[L_in]/E[k].
func (p Pool) beta() float64 {
	t := p.Traffic
	return p.Timing.HSeq + p.Timing.HKV*t.MeanCtx() + p.Timing.P*t.EIn/t.EK
}

// iter is t(r) = W + β·r, s.
func (p Pool) iter(r float64) float64 { return p.Timing.W + p.beta()*r }

// FixedPoint returns n̄, the solution of n̄ = (λ_p/G)·E[k]·(W + β·n̄), or
// +Inf when it is not below the slots.
func (p Pool) FixedPoint() float64 {
	a := p.Rate / float64(p.GPUs) * p.Traffic.EK
	den := 1 - a*p.beta()
	if den <= 0 {
		return math.Inf(1)
	}
	n := a * p.Timing.W / den
	if n >= float64(p.Slots) {
		return math.Inf(1)
	}
	return n
}

func (p Pool) validate() error {
	switch {
	case p.Traffic == nil:
		return fmt.Errorf("occupancy model: no traffic")
	case p.Slots < 1 || p.GPUs < 1:
		return fmt.Errorf("occupancy model: %d GPUs of %d slots: need >= 1 of each", p.GPUs, p.Slots)
	case !(p.Rate > 0) || math.IsInf(p.Rate, 0):
		return fmt.Errorf("occupancy model: rate %v: must be finite and > 0", p.Rate)
	case !(p.Timing.W > 0):
		return fmt.Errorf("occupancy model: W %v: must be > 0", p.Timing.W)
	}
	return nil
}

// Predict evaluates the model (docs/planner.md §10):
//
//   - the chain: J requests in the pool, r = min(J, G·N)/G running per GPU
//     (central dispatch keeps GPUs balanced), departures at
//     μ(J) = min(J, G·N)/(E[k]·t(r)), constant from J = G·N on;
//   - utilization E[min(J, G·N)]/(G·N), P(wait) = P(J >= G·N) (PASTA);
//   - a wait, given all slots busy, exponential with mean
//     f/(μ_max − λ_p): the chain's M/M tail scaled by the M/G/c factor f
//     of waitFactor (Kimura's (1+C_s²)/2 above C_s² = 1, the
//     Cosmetatos–Tijms M/D/c interpolation below); a request that finds a free slot waits the residual
//     of its GPU's current iteration, uniform on (0, t(r̄)), unless a GPU
//     is idle (probability P(J < G)/P(J < G·N) given a free slot);
//   - TTFT = wait + the m = ceil(L_in/C) prefill iterations, each costing
//     W + H_seq + (H_seq + P·π̄)·r' + H_kv·(K' + own context), where r' and
//     K' are the other sequences on the GPU and the KV tokens they hold:
//     normal with the chain's per-GPU occupancy (r' = N − 1 after a wait)
//     and the running sequences' context variance; the sum over m
//     iterations keeps the correlation exp(−Δ/E[k]) of a batch whose
//     members stay E[k] iterations;
//   - TPOT of a request = the mean of its L_out − 1 decode iterations, the
//     same way.
func (p Pool) Predict() (Prediction, error) {
	if err := p.validate(); err != nil {
		return Prediction{}, err
	}
	t := p.Traffic
	G, N := float64(p.GPUs), float64(p.Slots)
	full := p.GPUs * p.Slots
	pr := Prediction{Occupancy: p.FixedPoint()}
	mu := func(j int) float64 {
		r := float64(min(j, full))
		return r / (t.EK * p.iter(r/G))
	}
	ch, err := queueing.SolveChain(p.Rate, mu, full)
	if err != nil {
		if errors.Is(err, queueing.ErrUnstable) {
			pr.Utilization = 1
			pr.MuMax = mu(full)
			pr.P99WaitS, pr.P99TTFTS, pr.P99TPOTS = math.Inf(1), math.Inf(1), math.Inf(1)
			pr.PWait = 1
			return pr, ErrUnstable
		}
		return Prediction{}, err
	}
	busy := ch.MeanMin(full)
	pr.Utilization = busy / float64(full)
	pr.MuMax = ch.MuK
	pr.PWait = ch.AtLeast(full)
	rbar := busy / G
	pr.IterS = p.iter(rbar)
	pr.MeanServiceS = t.EK * pr.IterS
	// Per-GPU occupancy seen by a request that found a free slot: mean and
	// variance of J/G given J < G·N. Central dispatch (most free slots
	// first) keeps the GPUs' counts within about one of each other, so a
	// GPU's count follows the pool's J/G: variance Var[J]/G².
	var m0, m2, mass float64
	// The chain holds the states ch.Lo..ch.Hi() (all of them up to
	// queueing.MaxExactStates; beyond, all but queueing.TruncationTol of
	// the mass).
	// Moments are taken about ch.Lo (0 for an exact chain), which keeps
	// the variance free of cancellation when J is large.
	for j := ch.Lo; j < full && j <= ch.Hi(); j++ {
		pj, d := ch.P[j-ch.Lo], float64(j-ch.Lo)
		m0 += d * pj
		m2 += d * d * pj
		mass += pj
	}
	rFree, varFree := 0.0, 0.0
	if mass > 0 {
		mj := m0 / mass
		rFree = (float64(ch.Lo) + mj) / G
		varFree = math.Max(0, m2/mass-mj*mj) / (G * G)
	}
	// P(some GPU idle | a free slot) = P(J < G)/P(J < G·N): the free-slot
	// branch of the tails is already weighted by 1 − P(wait).
	idle := 0.0
	for j := ch.Lo; j < min(p.GPUs, full) && j <= ch.Hi(); j++ {
		idle += ch.P[j-ch.Lo]
	}
	if mass > 0 {
		idle = math.Min(1, idle/mass)
	}
	s := shape{
		pWait: pr.PWait,
		idle:  idle,
		resid: p.iter(rFree),
		theta: (ch.MuK - p.Rate) / waitFactor(t.Cs2(), full, p.Rate/ch.MuK),
		free:  p.others(rFree, varFree),
		busy:  p.others(N-1, 0),
		tau:   t.EK,
	}
	pr.P99WaitS = quantile(func(x float64) float64 { return s.waitTail(x) })
	pr.P99TTFTS = quantile(func(x float64) float64 { return s.ttftTail(p, x) })
	pr.P99TPOTS = quantile(func(x float64) float64 { return s.tpotTail(p, x) })
	return pr, nil
}

// waitFactor is the ratio of an M/G/c queue's mean wait to M/M/c's at
// load rho with c servers and service SCV cs2: for cs2 <= 1 Tijms'
// interpolation cs2·1 + (1 − cs2)·f_D between M/M/c and M/D/c, with
// Cosmetatos' M/D/c factor f_D = ½·(1 + (1−ϱ)(c−1)(√(4+5c) − 2)/(16ϱc))
// (capped at 1: a deterministic service never waits longer than an
// exponential one); above 1 Kimura's (1 + cs2)/2, as the paper model.
func waitFactor(cs2 float64, c int, rho float64) float64 {
	if cs2 >= 1 {
		return (1 + cs2) / 2
	}
	fc := float64(c)
	fD := 0.5 * (1 + (1-rho)*(fc-1)*(math.Sqrt(4+5*fc)-2)/(16*rho*fc))
	fD = math.Min(1, fD)
	return cs2 + (1-cs2)*fD
}

// batch is the per-iteration cost of the other sequences on a GPU: mean
// and variance, s.
type batch struct{ mean, vr float64 }

// others returns the iteration cost of r other sequences (mean r, variance
// vr of the count) beyond W and the request's own: (H_seq + P·π̄)·r +
// H_kv·Σ ctx, whose variance is (H_seq + P·π̄ + H_kv·c̄)²·Var[r] +
// H_kv²·r·Var[ctx].
func (p Pool) others(r, vr float64) batch {
	t := p.Traffic
	per := p.Timing.HSeq + p.Timing.P*t.EIn/t.EK
	c := t.MeanCtx()
	slope := per + p.Timing.HKV*c
	return batch{mean: slope * r, vr: slope*slope*vr + p.Timing.HKV*p.Timing.HKV*r*t.VarCtx()}
}

// shape is what the tails need.
type shape struct {
	pWait float64 // P(all slots busy)
	idle  float64 // P(some GPU idle | a free slot): no residual iteration
	resid float64 // iteration a free-slot arrival waits out, s
	theta float64 // rate of the exponential wait of a blocked arrival, 1/s
	free  batch   // other sequences seen after a free-slot arrival
	busy  batch   // other sequences seen after a wait (N − 1)
	tau   float64 // correlation length of the batch cost, iterations (E[k])
}

// sumVar returns the variance of the sum of n iterations' batch cost of
// variance v whose correlation decays as exp(−Δ/τ):
// v·(n + 2·Σ_{Δ=1}^{n−1} (n−Δ)·ρ^Δ), ρ = exp(−1/τ), in closed form.
func sumVar(v float64, n float64, tau float64) float64 {
	if v == 0 || n <= 0 {
		return 0
	}
	if n == 1 {
		return v
	}
	r := math.Exp(-1 / tau)
	// Σ_{Δ=1}^{n−1} (n−Δ) r^Δ = r·(n(1−r) − 1 + r^n)/(1−r)²
	s := r * (n*(1-r) - 1 + math.Pow(r, n)) / ((1 - r) * (1 - r))
	return v * (n + 2*s)
}

func (s shape) waitTail(x float64) float64 {
	free := (1 - s.pWait) * (1 - s.idle) * uniTail(x, s.resid)
	return free + s.pWait*math.Exp(-s.theta*x)
}

// ttftTail returns P(TTFT > x).
func (s shape) ttftTail(p Pool, x float64) float64 {
	W, Hs, Hk, P := p.Timing.W, p.Timing.HSeq, p.Timing.HKV, p.Timing.P
	tot := 0.0
	for _, g := range p.Traffic.groups {
		m := float64(g.m)
		base := m*(W+Hs) + Hk*g.own + P*g.in
		mf, sf := base+m*s.free.mean, math.Sqrt(sumVar(s.free.vr, m, s.tau))
		mb, sb := base+m*s.busy.mean, math.Sqrt(sumVar(s.busy.vr, m, s.tau))
		free := s.idle*normTail(x, mf, sf) + (1-s.idle)*uniNormTail(x, s.resid, mf, sf)
		tot += g.w * ((1-s.pWait)*free + s.pWait*emgTail(x, s.theta, mb, sb))
	}
	return tot
}

// tpotTail returns P(TPOT > x): a request's TPOT is the mean of its d
// decode iterations, W + H_seq + batch + H_kv·(own mean context).
func (s shape) tpotTail(p Pool, x float64) float64 {
	W, Hs, Hk := p.Timing.W, p.Timing.HSeq, p.Timing.HKV
	tot := 0.0
	for _, g := range p.Traffic.groups {
		if g.d < 0.5 {
			continue // L_out = 1: TPOT 0 (counted below x)
		}
		base := W + Hs + Hk*g.dctx
		vf := sumVar(s.free.vr, g.d, s.tau) / (g.d * g.d)
		vb := sumVar(s.busy.vr, g.d, s.tau) / (g.d * g.d)
		tot += g.w * ((1-s.pWait)*normTail(x, base+s.free.mean, math.Sqrt(vf)) + s.pWait*normTail(x, base+s.busy.mean, math.Sqrt(vb)))
	}
	return tot
}

// quantile returns the smallest x >= 0 with tail(x) <= 1 − Tail, tail
// non-increasing, to 1e-6 relative.
func quantile(tail func(float64) float64) float64 {
	q := 1 - Tail
	if tail(0) <= q {
		return 0
	}
	hi := 1e-3
	for tail(hi) > q {
		hi *= 2
		if hi > 1e12 {
			return math.Inf(1)
		}
	}
	lo := 0.0
	for hi-lo > 1e-6*hi {
		mid := (lo + hi) / 2
		if tail(mid) > q {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi
}
