// Package variantsim checks a variant allocation of the WVA optimizer
// (pools/variants) in fleetsim's discrete-event simulation: the allocated
// replicas become one pool whose instances follow the variant's profile,
// fed with the workload's rate and mean lengths.
package variantsim

import (
	"fmt"
	"math"

	"github.com/fleetsim/fleetsim/pools/variants"
	"github.com/fleetsim/fleetsim/router"
	"github.com/fleetsim/fleetsim/sim"
	"github.com/fleetsim/fleetsim/workload"
)

// Check is one allocation to simulate.
type Check struct {
	Profile  variants.Profile
	Batch    int     // N: the replica's batch slots
	Replicas int     // instances in the pool
	RateRPS  float64 // Poisson arrival rate, req/s (whole workload)
	In, Out  int     // prompt and output tokens of every request (the workload's means)
	SLO      variants.Targets
	Requests int    // requests to simulate (the first 20% are warm-up)
	Seed     uint64 // run seed
	Dispatch string // pool dispatch: sim.DispatchJSQ (default), central or rr
	// Stop, when set, interrupts the run (sim.Options.Stop): Run then
	// returns sim.ErrStopped.
	Stop func() bool
}

// Outcome is what the simulation measured over the post-warm-up requests.
type Outcome struct {
	TTFTMean, TTFTP99 float64 // ms
	ITLMean           float64 // mean time per output token after the first, ms
	Completed         int64
	Rejected          int64
	Preemptions       int64
	Overloaded        bool // the pool could not keep up (sim's detector)
	Utilization       float64
}

// PoolName is the name of the simulated pool.
const PoolName = "variant"

// Config returns the simulation's configuration: one pool of c.Replicas
// instances whose engine takes the profile's timing (W = α, H_seq = β,
// P = δ; see variants.Profile.EngineTiming), c.Batch slots, a KV cache that
// holds c.Batch full requests (the model has no KV limit) and a prefill
// chunk of the whole prompt (the model prefills a request in one pass).
// The GPU entry ("h100-est") only supplies the catalog fields the override
// leaves alone (block size).
func Config(c Check) sim.Config {
	blocks := c.Batch * ((c.In + c.Out + 15) / 16)
	t := c.Profile.EngineTiming()
	d := c.Dispatch
	if d == "" {
		d = sim.DispatchJSQ
	}
	return sim.Config{
		Seed:     c.Seed,
		Workload: workload.Spec{Rate: c.RateRPS, Requests: c.Requests},
		Pools: []sim.PoolConfig{{
			Name: PoolName, GPU: "h100-est", Count: c.Replicas, MaxContext: c.In + c.Out, Dispatch: d,
			Override: &sim.EngineOverride{Timing: &t, MaxSeqs: c.Batch, KVBlocks: blocks, ChunkTokens: max(c.In, 1)},
		}},
		Timing:         "paper",
		Router:         sim.RouterConfig{Config: router.Config{Kind: sim.RouterLength}},
		WarmupFraction: 0.2,
		SLO:            sim.SLO{TTFTS: slo(c.SLO.TTFT), TPOTS: slo(c.SLO.ITL)},
	}
}

func slo(ms float64) float64 {
	if ms > 0 {
		return ms / 1000
	}
	return math.MaxFloat64
}

// Run simulates c and returns its outcome.
func Run(c Check) (Outcome, error) {
	if c.Replicas < 1 || c.Batch < 1 || c.Out < 1 || c.In < 1 || !(c.RateRPS > 0) || c.Requests < 1 {
		return Outcome{}, fmt.Errorf("variantsim: replicas %d, batch %d, in %d, out %d, rate %v, requests %d: all must be positive",
			c.Replicas, c.Batch, c.In, c.Out, c.RateRPS, c.Requests)
	}
	cfg := Config(c)
	src, err := newFixed(c.RateRPS, c.In, c.Out, c.Requests, c.Seed)
	if err != nil {
		return Outcome{}, err
	}
	var m meanSink
	s, err := sim.Run(cfg, src, &m, sim.Options{Stop: c.Stop})
	if err != nil {
		return Outcome{}, err
	}
	p := s.Pools[0]
	o := Outcome{TTFTP99: p.TTFT.P99 * 1000, Completed: p.Completed, Rejected: p.Rejected,
		Preemptions: p.Preemptions, Overloaded: p.Overloaded, Utilization: p.SlotUtilization}
	if m.n > 0 {
		o.TTFTMean = m.ttft / float64(m.n) * 1000
	}
	if m.nd > 0 {
		o.ITLMean = m.tpot / float64(m.nd) * 1000
	}
	return o, nil
}

// meanSink accumulates the mean TTFT and TPOT of the measured requests.
type meanSink struct {
	n, nd      int64
	ttft, tpot float64
}

func (m *meanSink) Write(r *sim.Record) error {
	if r.Warmup || r.Rejected {
		return nil
	}
	m.n++
	m.ttft += r.TTFTS
	if r.OutputTokens > 1 {
		m.nd++
		m.tpot += r.TPOTS
	}
	return nil
}

// fixed is a Poisson source of identical requests.
type fixed struct {
	arr     *workload.Poisson
	in, out int
	left    int
	id      int64
}

func newFixed(rate float64, in, out, n int, seed uint64) (*fixed, error) {
	a, err := workload.NewPoisson(rate, workload.NewRand(seed, workload.StreamArrivals))
	if err != nil {
		return nil, err
	}
	return &fixed{arr: a, in: in, out: out, left: n}, nil
}

func (f *fixed) Next(r *workload.Request) bool {
	if f.left == 0 {
		return false
	}
	f.left--
	*r = workload.Request{ID: f.id, Arrival: f.arr.Next(), InputTokens: f.in, OutputTokens: f.out,
		MaxOutputTokens: f.out, Bytes: int(math.Round(float64(f.in) * 4.48)), Category: workload.Prose}
	f.id++
	return true
}

func (f *fixed) Err() error { return nil }
