package workload

import (
	"math"
	"math/rand/v2"
)

// Arrivals is an arrival process: Next returns the next arrival time,
// seconds since the start of the run, non-decreasing.
type Arrivals interface {
	Next() float64
}

// Poisson is a Poisson arrival process: exponential inter-arrival times with
// mean 1/Rate seconds.
type Poisson struct {
	rate float64 // requests per second
	t    float64 // last arrival, seconds
	r    *rand.Rand
}

// NewPoisson returns a Poisson process of rate requests per second (> 0)
// drawing from r; the first arrival is one inter-arrival time after 0.
func NewPoisson(rate float64, r *rand.Rand) (*Poisson, error) {
	if !(rate > 0) || math.IsInf(rate, 0) {
		return nil, fieldErr("rate", rate, "must be a finite number > 0 requests/s")
	}
	return &Poisson{rate: rate, r: r}, nil
}

// Next returns the next arrival time, seconds.
func (p *Poisson) Next() float64 {
	p.t += p.r.ExpFloat64() / p.rate
	return p.t
}

// Default parameters of the bursty (MMPP) arrival process.
const (
	DefaultBurstRatio = 4.0  // high-state rate / low-state rate
	DefaultBurstMeanS = 5.0  // mean sojourn in the high (burst) state, seconds
	DefaultCalmMeanS  = 20.0 // mean sojourn in the low (calm) state, seconds
)

// MMPP is a two-state Markov-modulated Poisson process: in the calm state
// arrivals are Poisson at rate λ_L, in the burst state at λ_H = B·λ_L. The
// state sojourns are exponential with means S_H (burst) and S_L (calm)
// seconds, so the long-run fraction of time in the burst state is
// π_H = S_H/(S_H+S_L), and the long-run mean rate is
//
//	λ̄ = π_H·λ_H + (1-π_H)·λ_L = λ_L·(π_H·B + 1 - π_H).
//
// NewMMPP sets λ_L = rate/(π_H·B + 1 - π_H) so that λ̄ = rate. The initial
// state is drawn from the stationary distribution (burst with probability π_H).
type MMPP struct {
	rate       [2]float64 // [calm, burst] requests per second
	mean       [2]float64 // [calm, burst] mean sojourn, seconds
	state      int        // 0 calm, 1 burst
	t          float64    // last arrival, seconds
	nextSwitch float64    // time of the next state change, seconds
	r          *rand.Rand
}

// NewMMPP returns a bursty process of long-run mean rate requests per second
// (> 0) with burst ratio B = burstRatio (>= 1) and mean sojourns burstMeanS
// and calmMeanS seconds (> 0), drawing from r.
func NewMMPP(rate, burstRatio, burstMeanS, calmMeanS float64, r *rand.Rand) (*MMPP, error) {
	switch {
	case !(rate > 0) || math.IsInf(rate, 0):
		return nil, fieldErr("rate", rate, "must be a finite number > 0 requests/s")
	case !(burstRatio >= 1) || math.IsInf(burstRatio, 0):
		return nil, fieldErr("burst_ratio", burstRatio, "must be a finite number >= 1")
	case !(burstMeanS > 0) || math.IsInf(burstMeanS, 0):
		return nil, fieldErr("burst_mean_s", burstMeanS, "must be a finite number of seconds > 0")
	case !(calmMeanS > 0) || math.IsInf(calmMeanS, 0):
		return nil, fieldErr("calm_mean_s", calmMeanS, "must be a finite number of seconds > 0")
	}
	piH := burstMeanS / (burstMeanS + calmMeanS)
	low := rate / (piH*burstRatio + 1 - piH)
	m := &MMPP{
		rate: [2]float64{low, low * burstRatio},
		mean: [2]float64{calmMeanS, burstMeanS},
		r:    r,
	}
	if r.Float64() < piH {
		m.state = 1
	}
	m.nextSwitch = r.ExpFloat64() * m.mean[m.state]
	return m, nil
}

// Next returns the next arrival time, seconds. By memorylessness, a candidate
// arrival beyond the next state change is discarded and redrawn from the
// change time at the new state's rate.
func (m *MMPP) Next() float64 {
	for {
		cand := m.t + m.r.ExpFloat64()/m.rate[m.state]
		if cand <= m.nextSwitch {
			m.t = cand
			return cand
		}
		m.t = m.nextSwitch
		m.state ^= 1
		m.nextSwitch = m.t + m.r.ExpFloat64()*m.mean[m.state]
	}
}
