package sim

import (
	"testing"

	"github.com/fleetsim/fleetsim/router"
	"github.com/fleetsim/fleetsim/workload"
)

// Simulator-level acceptance tests of load-aware spillover (issue #4): the
// spillover router inside sim.Run, on requests from workload.NewSource.

// spillStats counts, per run, the requests served away from the pool the
// token-budget thresholds pick for their estimate, and checks that each
// such request went to a pool that can serve it.
type spillStats struct {
	t          *testing.T
	maxCtx     map[string]int // pool name -> max context
	thresholds []int          // threshold of each pool in router order
	names      []string       // pool names in router order
	total      int
	spilled    int
	byRoute    map[[2]string]int // (target, served) -> count
}

// newSpillStats: pools in router order (max context ascending); the
// threshold of pool 0 is bShort, of the others their max context
// (docs/router.md, Dispatch).
func newSpillStats(t *testing.T, bShort int, ps []PoolConfig) *spillStats {
	s := &spillStats{t: t, maxCtx: map[string]int{}, byRoute: map[[2]string]int{}}
	for i, p := range ps {
		s.maxCtx[p.Name] = p.MaxContext
		s.names = append(s.names, p.Name)
		th := p.MaxContext
		if i == 0 {
			th = bShort
		}
		s.thresholds = append(s.thresholds, th)
	}
	return s
}

func (s *spillStats) Write(r *Record) error {
	s.total++
	target := s.names[len(s.names)-1]
	for i, th := range s.thresholds {
		if int(r.EstimatedTokens) <= th {
			target = s.names[i]
			break
		}
	}
	if r.Pool == target {
		return nil
	}
	s.spilled++
	s.byRoute[[2]string{target, r.Pool}]++
	if r.Retries > 0 {
		s.t.Errorf("request %d retried; retries are off in this test", r.ID)
	}
	// The rule under test: a request only spills to a pool that can serve
	// it, i.e. whose max context holds the router's estimate.
	if int(r.EstimatedTokens) > s.maxCtx[r.Pool] {
		s.t.Errorf("request %d (estimate %d tokens, target %s) spilled to %s, whose max context is %d",
			r.ID, r.EstimatedTokens, target, r.Pool, s.maxCtx[r.Pool])
	}
	return nil
}

// TestSpilloverOnlyToPoolsThatCanServe: three pools (4K, 16K, 64K) on the
// Azure CDF with the spillover router (queue limit 1 request per GPU).
// Both smaller pools are undersized, so requests spill constantly; each
// spilled request lands in a pool whose max context holds its estimate:
// long requests never spill down, 16K-class requests never reach the 4K
// pool. With a generous fleet (no queue anywhere) nothing spills: the rule
// fires only when the target is overloaded.
func TestSpilloverOnlyToPoolsThatCanServe(t *testing.T) {
	const n = 30_000
	run := func(short, mid, long int) *spillStats {
		ps := []PoolConfig{
			{Name: "short", GPU: "a100", Count: short, MaxContext: 4096},
			{Name: "mid", GPU: "a100", Count: mid, MaxContext: 16384},
			{Name: "long", GPU: "a100", Count: long, MaxContext: 65536},
		}
		cfg := Config{
			Seed:     21,
			Workload: workload.Spec{CDF: "azure", Rate: 200, Requests: n},
			Pools:    ps, Timing: "kv",
			Router:         RouterConfig{Config: router.Config{Kind: RouterSpillover, SpillQueuePerGPU: 1}},
			WarmupFraction: 0.2, SLO: SLO{TTFTS: 0.5, TPOTS: 0.08},
		}
		st := newSpillStats(t, 4096, ps)
		runWorkload(t, cfg, st)
		if st.total != n {
			t.Fatalf("%d records, want %d", st.total, n)
		}
		return st
	}

	// Undersized short and mid pools (about 180 and 17 req/s offered to
	// capacities of ~100 and ~10 req/s), a large long pool.
	st := run(4, 4, 60)
	t.Logf("undersized: %d of %d requests spilled: %v", st.spilled, st.total, st.byRoute)
	if st.byRoute[[2]string{"short", "mid"}] == 0 || st.byRoute[[2]string{"mid", "long"}] == 0 {
		t.Errorf("spills %v: want short→mid and mid→long spills (the test must exercise spillover)", st.byRoute)
	}
	for route, c := range st.byRoute {
		if route[0] == "long" || route == [2]string{"mid", "short"} {
			t.Errorf("%d requests spilled %s → %s, a pool that cannot serve them", c, route[0], route[1])
		}
	}

	// Generous fleet: no pool ever queues more than 1 request per GPU.
	st = run(40, 40, 80)
	if st.spilled != 0 {
		t.Errorf("generous fleet: %d requests spilled (%v), want 0: spillover fired without an overloaded pool", st.spilled, st.byRoute)
	}
}

// TestSpilloverBurstyP99Wait: in a bursty run (two-state MMPP, burst
// ratio 4: the high state arrives at 2.5× the mean rate for 5 s on average,
// the low state at 0.625× for 20 s), the short pool is sized for the mean
// but not for the bursts, and the long pool has spare capacity. Load-aware
// spillover lowers the short pool's P99 queue wait compared with the rigid
// token-budget thresholds (issue #4 acceptance). Both runs use the same
// seed, hence the same requests.
func TestSpilloverBurstyP99Wait(t *testing.T) {
	const n = 40_000
	wait := func(kind string) (p99 float64, s *Summary) {
		cfg := Config{
			Seed: 5,
			Workload: workload.Spec{CDF: "azure", Rate: 100, Requests: n,
				Arrival: workload.ArrivalBursty},
			// Short: ~90 req/s mean (F(4096) ≈ 0.9), ~225 req/s in a
			// burst; 4 A100s at 4K context keep up on average (median
			// wait ~10 ms) but queue in bursts. Long: ~10 req/s at ~0.64
			// req/s per GPU, 40 GPUs (~40% busy): room for spilled
			// requests.
			Pools: []PoolConfig{
				{Name: "short", GPU: "a100", Count: 4, MaxContext: 4096},
				{Name: "long", GPU: "a100", Count: 40, MaxContext: 65536},
			},
			Timing:         "kv",
			Router:         RouterConfig{Config: router.Config{Kind: kind}},
			WarmupFraction: 0.2, SLO: SLO{TTFTS: 0.5, TPOTS: 0.08},
		}
		s = runWorkload(t, cfg, nil)
		return s.Pools[0].QueueWait.P99, s
	}
	rigid, sr := wait(RouterTokenBudget)
	spill, ss := wait(RouterSpillover)
	t.Logf("bursty Azure, %d requests at 100 req/s mean, short:a100:4:4096 + long:a100:40:65536: short-pool P99 queue wait %.3f s with token-budget, %.3f s with spillover (limit %g queued per GPU)",
		n, rigid, spill, 4.0)
	t.Logf("short-pool arrivals %d (token-budget) vs %d (spillover); short-pool P50 queue wait %.3f s vs %.3f s; long-pool P99 queue wait %.3f s vs %.3f s",
		sr.Pools[0].Arrived, ss.Pools[0].Arrived, sr.Pools[0].QueueWait.P50, ss.Pools[0].QueueWait.P50, sr.Pools[1].QueueWait.P99, ss.Pools[1].QueueWait.P99)
	if sr.Pools[0].Overloaded || ss.Pools[0].Overloaded {
		t.Errorf("short pool reported overloaded: the scenario is meant to be sized for the mean rate")
	}
	if !(rigid > 0) {
		t.Fatalf("token-budget: short-pool P99 queue wait %v s: the bursts do not overload the short pool, the comparison tests nothing", rigid)
	}
	if !(spill < rigid) {
		t.Errorf("spillover: short-pool P99 queue wait %.3f s, not below the rigid threshold's %.3f s", spill, rigid)
	}
}
