package router

import (
	"container/heap"
	"math"
	"slices"
	"testing"

	"github.com/fleetsim/fleetsim/workload"
)

// toyPool is a FCFS multi-server queue used to exercise the router's
// spillover in time: servers = GPUs·Slots, service time = fixed + per-token.
// Requests are assigned in arrival order to the earliest free server, which
// is exactly FCFS for a central queue (Kiefer and Wolfowitz); the queue depth
// at time t is the number of assigned requests that have not started by t.
type toyPool struct {
	free   []float64 // per-server next free time, s
	starts floatHeap // start times of requests not yet started, s
	waits  []float64 // queue waits of the requests served, s
}

type floatHeap []float64

func (h floatHeap) Len() int           { return len(h) }
func (h floatHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h floatHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *floatHeap) Push(x any)        { *h = append(*h, x.(float64)) }
func (h *floatHeap) Pop() any          { o := *h; x := o[len(o)-1]; *h = o[:len(o)-1]; return x }

func (p *toyPool) queued(t float64) int {
	for p.starts.Len() > 0 && p.starts[0] <= t {
		heap.Pop(&p.starts)
	}
	return p.starts.Len()
}

func (p *toyPool) serve(t, service float64) {
	k := 0
	for i, f := range p.free {
		if f < p.free[k] {
			k = i
		}
	}
	start := math.Max(t, p.free[k])
	p.free[k] = start + service
	p.waits = append(p.waits, start-t)
	if start > t {
		heap.Push(&p.starts, start)
	}
}

func p99(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)*99/100]
}

// burstyRun routes n Azure-CDF prose requests arriving in a two-state
// bursty process (calm 2 s at rate λ, bursts 0.5 s at 6λ) over a short pool
// of 8 servers and a long pool of 8 servers with service time 0.05 s +
// 20 µs per token, and returns the pools' P99 queue waits and the number of
// spilled requests.
func burstyRun(t *testing.T, kind string) (short, long float64, spilled int) {
	cdf := loadAzureCDF(t)
	pools := []Pool{{Name: "short", MaxContext: 8192, GPUs: 2, Slots: 4}, {Name: "long", MaxContext: 65536, GPUs: 2, Slots: 4}}
	rt := mustNew(t, Config{Kind: kind, BShort: 4096, SpillQueuePerGPU: 2}, pools, 3).(*TokenBudget)
	rng := workload.NewRand(3, workload.StreamArrivals)
	lrng := workload.NewRand(3, workload.StreamLengths)
	tp := []*toyPool{{free: make([]float64, 8)}, {free: make([]float64, 8)}}
	now, burst, switchAt := 0.0, false, 2.0
	const rate = 40.0 // calm arrivals per second
	var r workload.Request
	loads := make([]Load, 2)
	for i := 0; i < 40000; i++ {
		lam := rate
		if burst {
			lam = 6 * rate
		}
		now += rng.ExpFloat64() / lam
		for now > switchAt {
			burst = !burst
			if burst {
				switchAt += 0.5
			} else {
				switchAt += 2
			}
		}
		makeRequest(&r, lrng, int64(i), cdf.sample(lrng), workload.Prose, 0)
		for j := range loads {
			loads[j].Queued = tp[j].queued(now)
		}
		d := rt.Route(&r, loads)
		if d.Spilled {
			spilled++
		}
		tp[d.Pool].serve(now, 0.05+20e-6*float64(r.TotalTokens()))
		rt.Observe(&r, r.InputTokens)
	}
	return p99(tp[0].waits), p99(tp[1].waits), spilled
}

// TestSpilloverUnderBursts: in a bursty run the spillover router lowers the
// short (target) pool's P99 queue wait compared with the rigid threshold
// (token-budget paper §2.2, "Load-aware spillover"), and spills only
// requests the other pool can serve (checked by TestSpillover and the hard
// constraint property test).
func TestSpilloverUnderBursts(t *testing.T) {
	s0, l0, n0 := burstyRun(t, "token-budget")
	s1, l1, n1 := burstyRun(t, "spillover")
	t.Logf("rigid threshold: short P99 wait %.3f s, long P99 wait %.3f s, spilled %d", s0, l0, n0)
	t.Logf("spillover:       short P99 wait %.3f s, long P99 wait %.3f s, spilled %d", s1, l1, n1)
	if n0 != 0 || n1 == 0 {
		t.Fatalf("spilled %d (rigid) and %d (spillover); want 0 and > 0", n0, n1)
	}
	if !(s1 < s0) {
		t.Errorf("spillover short-pool P99 wait %.3f s not below the rigid threshold's %.3f s", s1, s0)
	}
}
