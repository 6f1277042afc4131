package router

import (
	"math"

	"github.com/fleetsim/fleetsim/workload"
)

// Estimator turns a request's byte length into a token estimate with a
// per-category bytes-per-token ratio learned from feedback (token-budget
// paper §2.1, Eqs. 3–5).
//
// Per category k it keeps an exponential moving average ĉ_k of the observed
// ratio c_obs = bytes / prompt tokens with decay β, and an EMA σ̂_k of the
// absolute prediction error |c_obs − ĉ_k| (measured before ĉ_k absorbs
// c_obs: the error the router would have made on that request). Both EMAs
// are bias-corrected (divided by 1 − β^n, the total weight of n
// observations), so they are weighted means of the observations alone and
// carry no trace of the cold-start value; this is what lets CJK traffic,
// whose true ratio (2.01) is half the cold-start 4.0, converge within 5% in
// 50 observations (an EMA started at 4.0 would still be 7.6% off).
//
// Routing uses the conservative ratio c* = ĉ_k − γσ̂_k (Eq. 5), which
// over-counts tokens and so biases borderline requests toward the larger
// pool. Until a category has MinObservations observations the router uses
// the cold-start ratio c0 instead. c* is floored at ĉ_k/2 so that a noisy
// category can never drive the ratio to zero or below.
//
// An Estimator is not safe for concurrent use.
type Estimator struct {
	decay     float64 // β
	sigmaK    float64 // γ of Eq. 5 (σ multiplier)
	coldStart float64 // c0, bytes/token
	minObs    int
	cat       [256]catState // indexed by workload.Category (uint8): never out of range
}

type catState struct {
	n     int     // observations
	m     float64 // raw EMA of c_obs
	mPow  float64 // β^n for m's bias correction
	s     float64 // raw EMA of |c_obs − ĉ|
	sPow  float64 // β^(n−1) for s's bias correction
	mean  float64 // ĉ, bias-corrected, bytes/token
	dev   float64 // σ̂, bias-corrected, bytes/token
	ratio float64 // ratio used for routing, bytes/token
}

// NewEstimator returns an estimator with EMA decay β (0 < β < 1), σ
// multiplier sigmaK (γ of Eq. 5, ≥ 0), cold-start ratio coldStart
// (bytes/token, > 0) and minObs, the observations a category needs before its
// learned ratio replaces the cold start (≥ 1). Arguments are not checked
// here; Config.Validate checks them.
func NewEstimator(decay, sigmaK, coldStart float64, minObs int) *Estimator {
	e := &Estimator{decay: decay, sigmaK: sigmaK, coldStart: coldStart, minObs: minObs}
	for i := range e.cat {
		e.cat[i] = catState{mPow: 1, sPow: 1, mean: coldStart, ratio: coldStart}
	}
	return e
}

// Observe feeds back one request of category k: its prompt's byte length and
// its true prompt token count. Non-positive values are ignored.
func (e *Estimator) Observe(k workload.Category, bytes, promptTokens int) {
	if bytes <= 0 || promptTokens <= 0 {
		return
	}
	st := &e.cat[k]
	c := float64(bytes) / float64(promptTokens)
	b := e.decay
	if st.n > 0 {
		st.s = b*st.s + (1-b)*math.Abs(c-st.mean)
		st.sPow *= b
		st.dev = st.s / (1 - st.sPow)
	}
	st.m = b*st.m + (1-b)*c
	st.mPow *= b
	st.mean = st.m / (1 - st.mPow)
	st.n++
	if st.n >= e.minObs {
		r := st.mean - e.sigmaK*st.dev
		if r < st.mean/2 {
			r = st.mean / 2
		}
		st.ratio = r
	}
}

// MeanInputTokens returns the unbiased estimate ceil(bytes / ĉ_k) of a
// prompt's tokens: the learned mean ratio once the category has
// MinObservations observations, the cold start before, tokens.
func (e *Estimator) MeanInputTokens(k workload.Category, bytes int) int {
	if bytes <= 0 {
		return 0
	}
	st := &e.cat[k]
	r := e.coldStart
	if st.n >= e.minObs {
		r = st.mean
	}
	return int(math.Ceil(float64(bytes)/r - 1e-9))
}

// Ratio returns the learned mean ratio ĉ_k (the cold start before any
// observation), bytes/token.
func (e *Estimator) Ratio(k workload.Category) float64 { return e.cat[k].mean }

// Deviation returns σ̂_k, the EMA of the absolute prediction error, bytes/token.
func (e *Estimator) Deviation(k workload.Category) float64 { return e.cat[k].dev }

// RouteRatio returns the ratio the router divides by: the cold start until
// MinObservations, then the conservative ĉ_k − γσ̂_k, bytes/token.
func (e *Estimator) RouteRatio(k workload.Category) float64 { return e.cat[k].ratio }

// Observations returns the number of observations of category k.
func (e *Estimator) Observations(k workload.Category) int { return e.cat[k].n }

// InputTokens returns the estimate ceil(bytes / c*) of a prompt of the given
// byte length and category, tokens. A quotient within 1e-9 above an integer
// counts as that integer (the learned ratio carries rounding noise).
func (e *Estimator) InputTokens(k workload.Category, bytes int) int {
	if bytes <= 0 {
		return 0
	}
	return int(math.Ceil(float64(bytes)/e.cat[k].ratio - 1e-9))
}
