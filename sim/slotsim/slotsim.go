// Package slotsim simulates the planner's own queueing model: an FCFS
// M/G/c pool of c slots in which a request holds one slot for exactly its
// analytic service time (validation fidelity "slot", docs/experiments.md).
// With no batching model in the way, it isolates the error of the Erlang-C
// and Kimura formulas from the error of the service-time model.
package slotsim

import (
	"fmt"
	"math"
	"slices"

	"github.com/fleetsim/fleetsim/workload"
)

// Config is one slot-level pool.
type Config struct {
	Servers int // c: slots of the pool (GPUs × slots per GPU)
	// Service returns a request's slot time, s (the planner's
	// S = (ceil(L_in/C) + L_out)·t_iter).
	Service func(in, out int) float64
	// Prefill returns the time from the start of service to the first
	// token, s (ceil(L_in/C)·t_iter).
	Prefill func(in, out int) float64
	// WarmupS: requests arriving before it are left out of the metrics, s.
	WarmupS float64
}

// Result is what the pool measured over the post-warm-up requests.
type Result struct {
	Measured    int     `json:"measured_requests"`
	Utilization float64 `json:"utilization"` // busy slot time in the window / (c · window)
	PWait       float64 `json:"p_wait"`      // share with a wait > 0
	P99WaitS    float64 `json:"p99_wait_s"`
	P99TTFTS    float64 `json:"p99_ttft_s"`
	MeanWaitS   float64 `json:"mean_wait_s"`
}

// slotHeap is a min-heap of the times the slots become free.
type slotHeap []float64

func (h slotHeap) down(i int) {
	n := len(h)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && h[r] < h[l] {
			m = r
		}
		if h[i] <= h[m] {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}

// Run serves src's requests FCFS: each takes the slot that frees first,
// starts at max(arrival, that time) and holds it for Service. The window is
// [first measured arrival, last arrival]; utilization counts the busy time
// of every request inside it.
func Run(src workload.Source, cfg Config) (Result, error) {
	if cfg.Servers < 1 || cfg.Service == nil || cfg.Prefill == nil {
		return Result{}, fmt.Errorf("slotsim: %d servers: need >= 1 and both time functions", cfg.Servers)
	}
	h := make(slotHeap, cfg.Servers)
	type busy struct{ s, e float64 }
	var spans []busy
	var waits, ttfts []float64
	var r workload.Request
	t0, t1 := math.NaN(), 0.0
	waited := 0
	sumW := 0.0
	for src.Next(&r) {
		start := math.Max(r.Arrival, h[0])
		svc := cfg.Service(r.InputTokens, r.OutputTokens)
		h[0] = start + svc
		h.down(0)
		t1 = r.Arrival
		if r.Arrival >= cfg.WarmupS {
			if math.IsNaN(t0) {
				t0 = r.Arrival
			}
			w := start - r.Arrival
			waits = append(waits, w)
			ttfts = append(ttfts, w+cfg.Prefill(r.InputTokens, r.OutputTokens))
			sumW += w
			if w > 0 {
				waited++
			}
		}
		spans = append(spans, busy{start, start + svc})
	}
	if err := src.Err(); err != nil {
		return Result{}, err
	}
	res := Result{Measured: len(waits)}
	if len(waits) == 0 || !(t1 > t0) {
		return res, nil
	}
	b := 0.0
	for _, s := range spans {
		b += math.Max(0, math.Min(s.e, t1)-math.Max(s.s, t0))
	}
	res.Utilization = b / (float64(cfg.Servers) * (t1 - t0))
	res.PWait = float64(waited) / float64(len(waits))
	res.MeanWaitS = sumW / float64(len(waits))
	res.P99WaitS = quantile(waits, 0.99)
	res.P99TTFTS = quantile(ttfts, 0.99)
	return res, nil
}

// quantile is the value of rank ceil(q·n) (gonum's stat.Empirical).
func quantile(x []float64, q float64) float64 {
	slices.Sort(x)
	i := int(math.Ceil(q*float64(len(x)))) - 1
	return x[max(0, min(i, len(x)-1))]
}
