package capacity

import (
	"math"
	"slices"
)

// QueueDelays fills w (len(s.T)) with each request's queue delay W_j in a
// single-server FCFS fluid queue served at rate adjusted tokens per second
// (rate > 0): before request j the backlog drains at that rate for the time
// since the previous arrival (never below 0), W_j = backlog/rate, then B_j
// joins the backlog. This is slosizer's queue; it is deliberately simple
// (one aggregate server, work as a fluid, fixed rate) and underestimates
// tails under bursts, mixed request sizes and near saturation
// (docs/capacity.md measures by how much).
func QueueDelays(s Series, rate float64, w []float64) {
	backlog, last := 0.0, 0.0
	for j, t := range s.T {
		backlog = math.Max(0, backlog-rate*(t-last))
		w[j] = backlog / rate
		backlog += s.B[j]
		last = t
	}
}

// LatencyStats are the fluid model's latencies at G units. Percentiles are
// the inverse empirical CDF (see quantileInverse).
type LatencyStats struct {
	Units       float64 `json:"units"`       // G
	RateTokS    float64 `json:"rate_tok_s"`  // G·τ, adjusted tokens/s
	Utilization float64 `json:"utilization"` // ΣB/(span·G·τ); 0 when the span is 0
	QueuedShare float64 `json:"queued_share"`
	MeanQueueS  float64 `json:"mean_queue_s"`
	P95QueueS   float64 `json:"p95_queue_s"`
	P99QueueS   float64 `json:"p99_queue_s"`
	MeanS       float64 `json:"mean_e2e_s"` // R = L_base + W
	P50S        float64 `json:"p50_e2e_s"`
	P95S        float64 `json:"p95_e2e_s"`
	P99S        float64 `json:"p99_e2e_s"`
}

// FluidLatency runs the fluid queue at g units of tau adjusted tokens/s
// each (g·tau > 0) with per-request baseline latencies base (s) and returns
// its statistics; r, when not nil (len(s.T)), receives each R_j.
func FluidLatency(s Series, base []float64, g, tau float64, r []float64) LatencyStats {
	n := len(s.T)
	rate := g * tau
	w := make([]float64, n)
	QueueDelays(s, rate, w)
	if r == nil {
		r = make([]float64, n)
	}
	st := LatencyStats{Units: g, RateTokS: rate}
	if span := s.Span(); span > 0 {
		st.Utilization = s.Total / (span * rate)
	}
	queued, sumW, sumR := 0, 0.0, 0.0
	for j := range w {
		r[j] = base[j] + w[j]
		if w[j] > 0 {
			queued++
		}
		sumW += w[j]
		sumR += r[j]
	}
	st.QueuedShare = float64(queued) / float64(n)
	st.MeanQueueS, st.MeanS = sumW/float64(n), sumR/float64(n)
	slices.Sort(w)
	st.P95QueueS, st.P99QueueS = quantileInverse(w, 0.95), quantileInverse(w, 0.99)
	sr := slices.Clone(r)
	slices.Sort(sr)
	st.P50S, st.P95S, st.P99S = quantileInverse(sr, 0.50), quantileInverse(sr, 0.95), quantileInverse(sr, 0.99)
	return st
}

// Percentile returns the inverse-empirical-CDF p-quantile of x (any order;
// x is not modified), p in (0, 1]: the smallest value with at least a share
// p of x at or below it. It is the latency convention of this package.
func Percentile(x []float64, p float64) float64 {
	s := slices.Clone(x)
	slices.Sort(s)
	return quantileInverse(s, p)
}
