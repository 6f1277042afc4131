package router

import (
	"math"
	"math/rand/v2"

	"github.com/fleetsim/fleetsim/workload"
)

// TokenBudget is the token-budget router of the token-budget paper
// (Algorithm 1) with the FleetOpt paper's compress-and-route (§5). New
// builds it for the kinds "token-budget", "spillover" and "cr".
//
// Route, for a request r of category k:
//
//  1. Estimate L_total = ceil(|r| / c*_k) + max_output_tokens, with c*_k the
//     Estimator's conservative ratio. A request without a byte length
//     (Bytes ≤ 0) is estimated from its declared prompt length, as a
//     gateway that tokenizes would; a request without MaxOutputTokens uses
//     OutputTokens.
//  2. Threshold: the target is the first pool i whose threshold holds the
//     estimate; pool 0's threshold is BShort, pool i > 0's is its
//     MaxContext (the hard constraint: an estimate above a pool's max
//     context never goes there). An estimate above every pool goes to the
//     largest pool, which rejects it.
//  3. C&R (kind "cr"): if the target is not pool 0 (the conservative
//     estimate exceeds BShort), the unbiased estimate (ĉ_k instead of c*_k)
//     is at most ⌊Gamma·BShort⌋, k is compressible and T_c = BShort −
//     max_output_tokens > 0, a success is drawn with probability PC. The
//     band's top uses the unbiased estimate because compression, not the
//     estimate, is what keeps the request inside the short pool: the
//     conservative bias would only push requests near γ·BShort to the long
//     pool for no safety gain (docs/router.md quantifies it). On success
//     the prompt is compressed to T_c tokens and sent to pool 0:
//     Decision.InputTokens = min(L_in, T_c) (true tokens: the compressor
//     enforces its budget on the prompt itself, not on the estimate), so
//     L_in' + L_out ≤ T_c + max_output_tokens = BShort ≤ pool 0's
//     MaxContext: overflow of the short pool is impossible by construction,
//     whatever the estimate's error. Decision.DelayS is a draw of the
//     compression latency.
//  4. Spillover (kind "spillover", or "cr" with a spillover limit): a pool
//     is overloaded when its Queued/GPUs exceeds SpillQueuePerGPU or (if
//     SpillKVOccupancy > 0) its KVOccupancy exceeds SpillKVOccupancy. If the
//     target is overloaded, the request moves to the other pool with the
//     smallest Queued/GPUs among those whose MaxContext holds the
//     (uncompressed) estimate and that are not overloaded themselves; ties
//     go to the smaller pool. A compressed request that spills is sent
//     uncompressed (no delay). When no pool qualifies the request stays on
//     its target. Spillover needs one Load per pool; with fewer loads it is
//     skipped.
//
// Decision.EstimatedTokens is always the estimate of the original request.
// Observe feeds the Estimator with Bytes and the original prompt's true
// token count, compressed or not (see Router: the compressor measured it;
// the compressed prompt's bytes scale with its tokens, so the ratio is the
// same).
//
// A TokenBudget is not safe for concurrent use (the simulator calls it from
// one goroutine).
type TokenBudget struct {
	pools    []Pool
	thr      []int     // per-pool threshold on the estimate, tokens
	spillQ   []float64 // per-pool queue limit: SpillQueuePerGPU·GPUs, requests (0: no queue trigger)
	spillKV  float64   // KV occupancy limit (0: no KV trigger)
	spill    bool
	cr       bool
	bShort   int
	bandHi   int // ⌊γ·BShort⌋, tokens
	gamma    float64
	pc       float64
	gate     [256]bool // compressible categories
	est      *Estimator
	rng      *rand.Rand // C&R success draws (workload.StreamRouter)
	lat      *rand.Rand // compression latency draws (workload.StreamCompressor)
	latMu    float64    // ln(p50 latency)
	latSigma float64    // lognormal σ
}

func newTokenBudget(cfg Config, pools []Pool, seed uint64) *TokenBudget {
	sk := cfg.SigmaWeight
	if sk < 0 {
		sk = 0
	}
	t := &TokenBudget{
		pools:   pools,
		thr:     make([]int, len(pools)),
		spillQ:  make([]float64, len(pools)),
		spill:   (cfg.SpillQueuePerGPU > 0 || cfg.SpillKVOccupancy > 0) && (cfg.Kind == KindSpillover || cfg.Kind == KindCR),
		spillKV: cfg.SpillKVOccupancy,
		cr:      cfg.Kind == KindCR,
		bShort:  cfg.BShort,
		bandHi:  int(math.Floor(cfg.Gamma * float64(cfg.BShort))),
		gamma:   cfg.Gamma,
		pc:      cfg.PC,
		est:     NewEstimator(cfg.EMADecay, sk, cfg.ColdStart, cfg.MinObservations),
		rng:     workload.NewRand(seed, workload.StreamRouter),
		lat:     workload.NewRand(seed, workload.StreamCompressor),
		latMu:   math.Log(cfg.CompressP50S),
		// z_0.99 of the standard normal.
		latSigma: (math.Log(cfg.CompressP99S) - math.Log(cfg.CompressP50S)) / 2.3263478740408408,
	}
	for i, p := range pools {
		t.thr[i] = p.MaxContext
		t.spillQ[i] = cfg.SpillQueuePerGPU * float64(p.GPUs)
	}
	t.thr[0] = cfg.BShort
	for _, k := range cfg.Compressible {
		t.gate[k] = true
	}
	return t
}

// Estimator returns the router's bytes-per-token estimator (for inspection
// in tests and reports).
func (t *TokenBudget) Estimator() *Estimator { return t.est }

// Estimate returns the router's estimate of r's L_total, tokens.
func (t *TokenBudget) Estimate(r *workload.Request) int {
	in := r.InputTokens
	if r.Bytes > 0 {
		in = t.est.InputTokens(r.Category, r.Bytes)
	}
	return in + maxOut(r)
}

// meanEstimate is Estimate with the unbiased ratio ĉ_k instead of the
// conservative c*_k: the C&R band's upper edge uses it (see Route).
func (t *TokenBudget) meanEstimate(r *workload.Request) int {
	in := r.InputTokens
	if r.Bytes > 0 {
		in = t.est.MeanInputTokens(r.Category, r.Bytes)
	}
	return in + maxOut(r)
}

func maxOut(r *workload.Request) int {
	if r.MaxOutputTokens > 0 {
		return r.MaxOutputTokens
	}
	return r.OutputTokens
}

// Route implements Router.
func (t *TokenBudget) Route(r *workload.Request, loads []Load) Decision {
	est := t.Estimate(r)
	target := len(t.pools) - 1
	for i, th := range t.thr {
		if est <= th {
			target = i
			break
		}
	}
	d := Decision{Pool: target, EstimatedTokens: est, InputTokens: r.InputTokens}
	if t.cr && target > 0 && est > t.bShort && t.gate[r.Category] && t.meanEstimate(r) <= t.bandHi {
		if tc := t.bShort - maxOut(r); tc > 0 {
			if t.rng.Float64() < t.pc {
				d.Pool = 0
				d.Compressed = true
				d.InputTokens = min(r.InputTokens, tc)
				d.DelayS = math.Exp(t.latMu + t.latSigma*t.lat.NormFloat64())
			}
		}
	}
	if t.spill && len(loads) >= len(t.pools) {
		p := d.Pool
		if t.overloaded(p, &loads[p]) {
			best, bestQ := -1, 0.0
			for j, pj := range t.pools {
				if j == p || est > pj.MaxContext || t.overloaded(j, &loads[j]) {
					continue
				}
				q := float64(loads[j].Queued) / float64(pj.GPUs)
				if best < 0 || q < bestQ {
					best, bestQ = j, q
				}
			}
			if best >= 0 {
				d.Pool = best
				d.Spilled = true
				d.Compressed = false
				d.InputTokens = r.InputTokens
				d.DelayS = 0
			}
		}
	}
	return d
}

// overloaded reports whether pool p, in state l, is over a spillover limit.
func (t *TokenBudget) overloaded(p int, l *Load) bool {
	return (t.spillQ[p] > 0 && float64(l.Queued) > t.spillQ[p]) ||
		(t.spillKV > 0 && l.KVOccupancy > t.spillKV)
}

// Observe implements Router: it feeds the request's byte length and its
// prompt's true token count (promptTokens, see Router) to the Estimator.
func (t *TokenBudget) Observe(r *workload.Request, promptTokens int) {
	t.est.Observe(r.Category, r.Bytes, promptTokens)
}
