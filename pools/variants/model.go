package variants

import (
	"errors"
	"fmt"
	"math"
)

// Constants of the queue model (the upstream's values).
const (
	// QueueToBatch is Q/N: the waiting room of a replica is ten times its
	// batch, so the chain has K = N + 10·N states above 0.
	QueueToBatch = 10
	// RangeEpsilon sets the rate range [ε·μ_1, (1−ε)·μ_N].
	RangeEpsilon = 0.001
	// TPSFraction is the share of λ_max a throughput (TPS) target allows.
	TPSFraction = 0.9
	// SearchTolerance is the bisection's relative tolerance on the target.
	SearchTolerance = 1e-6
	// SearchIterations bounds the bisection.
	SearchIterations = 100
)

// Targets are a workload's SLOs; 0 means no target.
type Targets struct {
	TTFT float64 `json:"ttft_ms" yaml:"ttft_ms"`             // mean time to first token (queueing + prefill), ms
	ITL  float64 `json:"itl_ms" yaml:"itl_ms"`               // mean inter-token latency, ms
	TPS  float64 `json:"tps,omitempty" yaml:"tps,omitempty"` // token throughput, tokens/s (any value > 0 caps the rate at 0.9·λ_max)
}

// Model is the queue model of one replica serving requests of In prompt
// and Out output tokens (means) with batch limit N:
//
//	μ_n = n / (prefill(n) + d·decode(n)),  n = 1..N,  d = Out − 1
//
// (d = 1 when In = 0 and Out = 1: a decode-only request of one token), a
// birth–death chain on 0..K, K = N + 10·N, whose death rate is μ_min(n,N).
type Model struct {
	Profile Profile
	N       int     // batch limit
	K       int     // most requests in a replica
	In, Out int     // mean prompt and output tokens per request
	MinRate float64 // lowest rate analyzed, 0.001·μ_1, req/s
	MaxRate float64 // highest rate analyzed, 0.999·μ_N, req/s
	decodes float64 // decode steps per request
	ch      *chain
}

// NewModel builds the queue model of one replica. n is the batch limit
// (>= 1), in >= 0 and out >= 1 the mean token counts.
func NewModel(p Profile, n, in, out int) (*Model, error) {
	if err := p.Validate("profile."); err != nil {
		return nil, err
	}
	switch {
	case n < 1:
		return nil, bad("max_batch", n, "must be >= 1")
	case n > MaxBatchLimit:
		return nil, bad("max_batch", n, "must be <= %d", MaxBatchLimit)
	case in < 0:
		return nil, bad("in_tokens", in, "must be >= 0")
	case out < 1:
		return nil, bad("out_tokens", out, "must be >= 1")
	}
	m := &Model{Profile: p, N: n, K: n + QueueToBatch*n, In: in, Out: out, decodes: float64(out - 1)}
	if in == 0 && out == 1 {
		m.decodes = 1
	}
	mu := make([]float64, n)
	for i := 1; i <= n; i++ {
		mu[i-1] = float64(i) / m.serviceTime(float64(i))
	}
	m.ch = newChain(m.K, mu)
	m.MinRate = mu[0] * RangeEpsilon * 1000
	m.MaxRate = mu[n-1] * (1 - RangeEpsilon) * 1000
	return m, nil
}

// MaxBatchLimit bounds a replica's batch (the chain has 11·N+1 states).
const MaxBatchLimit = 1 << 16

// serviceTime returns prefill(b) + d·decode(b), ms: a request's time in a
// batch of b.
func (m *Model) serviceTime(b float64) float64 {
	return m.Profile.Prefill(m.In, b) + m.decodes*m.Profile.Decode(b)
}

// BatchSize returns the upstream's N = max(maxBatch·atTokens/out, 1) (integer
// division) for a profile, or override when it is > 0.
func BatchSize(p Profile, out, override int) (int, error) {
	if override > 0 {
		return override, nil
	}
	if p.MaxBatch == 0 {
		return 0, errors.New("the profile has no max_batch and the workload sets none")
	}
	if out < 1 {
		return 0, bad("out_tokens", out, "must be >= 1")
	}
	return min(max(p.MaxBatch*p.AtTokens/out, 1), MaxBatchLimit), nil
}

// Metrics are a replica's predicted performance at one arrival rate.
type Metrics struct {
	Rate        float64 `json:"rate_rps"`       // offered rate, req/s
	Throughput  float64 `json:"throughput_rps"` // served rate λ(1 − p_K), req/s
	TTFT        float64 `json:"ttft_ms"`        // wait + prefill(n*), ms
	ITL         float64 `json:"itl_ms"`         // decode(n*), ms
	Wait        float64 `json:"wait_ms"`        // mean queueing time, ms
	Prefill     float64 `json:"prefill_ms"`     // prefill(n*), ms
	Batch       float64 `json:"batch"`          // effective batch n*
	InService   float64 `json:"in_service"`     // mean requests in the batch
	Utilization float64 `json:"utilization"`    // InService / N
	PFull       float64 `json:"p_full"`         // probability an arrival finds the replica full
}

// ErrRate reports a rate outside the model's range.
var ErrRate = errors.New("rate outside the model's range")

// Analyze returns the replica's metrics at rate req/s, which must be in
// (0, MaxRate].
func (m *Model) Analyze(rate float64) (Metrics, error) {
	if !(rate > 0) || rate > m.MaxRate || math.IsNaN(rate) {
		return Metrics{}, fmt.Errorf("%w: %v req/s (allowed (0, %.6g])", ErrRate, rate, m.MaxRate)
	}
	return m.at(rate / 1000), nil
}

// at evaluates the model at lambda requests per ms.
func (m *Model) at(lambda float64) Metrics {
	s := m.ch.solve(lambda)
	n := m.effectiveBatch(s.ServTime)
	pre := m.Profile.Prefill(m.In, n)
	return Metrics{
		Rate: lambda * 1000, Throughput: s.Throughput * 1000,
		TTFT: s.WaitTime + pre, ITL: m.Profile.Decode(n), Wait: s.WaitTime, Prefill: pre,
		Batch: n, InService: s.InService, Utilization: s.Utilization, PFull: s.PFull,
	}
}

// effectiveBatch solves prefill(n) + d·decode(n) = t for n, clamped to
// [0, N]: n* = (t − γ' − d·α) / (δ·in + d·β), with γ' = γ when in > 0 and 0
// otherwise (prefill is 0 without prompt tokens). With a zero slope the
// service time does not depend on n and n* = 0.
func (m *Model) effectiveBatch(t float64) float64 {
	p := m.Profile
	base, slope := m.decodes*p.Alpha, m.decodes*p.Beta
	if m.In > 0 {
		base += p.Gamma
		slope += p.Delta * float64(m.In)
	}
	if slope == 0 {
		return 0
	}
	return math.Min(math.Max((t-base)/slope, 0), float64(m.N))
}

// Sizing is the largest per-replica rate meeting a workload's targets.
type Sizing struct {
	RateTTFT float64 `json:"rate_ttft_rps"` // max rate for the TTFT target (MaxRate without one), req/s
	RateITL  float64 `json:"rate_itl_rps"`  // max rate for the ITL target, req/s
	RateTPS  float64 `json:"rate_tps_rps"`  // 0.9·MaxRate with a TPS target, MaxRate without, req/s
	Rate     float64 `json:"rate_rps"`      // the smallest of the three, req/s
	At       Metrics `json:"at"`            // the metrics at Rate
}

// ErrInfeasible reports a target no rate in the model's range meets (it is
// missed even at MinRate).
var ErrInfeasible = errors.New("target not met at the lowest rate")

// Size returns the largest rate per replica meeting t: each target's rate
// by bisection over [MinRate, MaxRate] (relative tolerance 1e-6 on the
// target, at most 100 halvings; a target met at MaxRate gives MaxRate),
// then the minimum.
func (m *Model) Size(t Targets) (Sizing, error) {
	lo, hi := m.MinRate/1000, m.MaxRate/1000
	var s Sizing
	var err error
	s.RateTTFT, s.RateITL, s.RateTPS = hi, hi, hi
	if t.TTFT > 0 {
		if s.RateTTFT, err = m.search(lo, hi, t.TTFT, func(x Metrics) float64 { return x.TTFT }); err != nil {
			return s, fmt.Errorf("TTFT target %v ms: %w (%.6g ms at %.6g req/s)", t.TTFT, err, m.at(lo).TTFT, lo*1000)
		}
	}
	if t.ITL > 0 {
		if s.RateITL, err = m.search(lo, hi, t.ITL, func(x Metrics) float64 { return x.ITL }); err != nil {
			return s, fmt.Errorf("ITL target %v ms: %w (%.6g ms at %.6g req/s)", t.ITL, err, m.at(lo).ITL, lo*1000)
		}
	}
	if t.TPS > 0 {
		s.RateTPS = hi * TPSFraction
	}
	s.RateTTFT *= 1000
	s.RateITL *= 1000
	s.RateTPS *= 1000
	s.Rate = min(s.RateTTFT, s.RateITL, s.RateTPS)
	s.At = m.at(s.Rate / 1000)
	return s, nil
}

// search finds λ in [lo, hi] (req/ms) where f(at(λ)) = target for an f
// increasing in λ: lo or hi when f is within the tolerance there, hi when
// the target is above f(hi), ErrInfeasible when it is below f(lo), else the
// bisection midpoint once |f − target| <= 1e-6·target or after 100 halvings.
func (m *Model) search(lo, hi, target float64, f func(Metrics) float64) (float64, error) {
	near := func(y float64) bool { return math.Abs(y-target) <= SearchTolerance*target }
	ylo, yhi := f(m.at(lo)), f(m.at(hi))
	switch {
	case near(ylo):
		return lo, nil
	case near(yhi):
		return hi, nil
	case target < ylo:
		return 0, ErrInfeasible
	case target > yhi:
		return hi, nil
	}
	var x float64
	for range SearchIterations {
		x = (lo + hi) / 2
		y := f(m.at(x))
		if near(y) {
			break
		}
		if y > target {
			hi = x
		} else {
			lo = x
		}
	}
	return x, nil
}
