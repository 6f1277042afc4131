package sweep

import (
	"math"
	"os"
	"testing"

	"github.com/fleetsim/fleetsim/router"
	"github.com/fleetsim/fleetsim/sim"
	"github.com/fleetsim/fleetsim/workload"
)

// wholeFleet simulates res's fleet at its simulated counts as `fleetsim
// simulate --requests n --warmup 0.2 --seed seed --timing kv` would.
func wholeFleet(t *testing.T, res *SizeResult, n int, seed uint64) *sim.Summary {
	t.Helper()
	cfg := sim.Defaults()
	cfg.Seed = seed
	cfg.Timing = res.Timing
	cfg.WarmupFraction = 0.2
	cfg.Router = sim.RouterConfig{Config: router.Config{Kind: res.Router, BShort: res.BShort, Gamma: res.Gamma, PC: res.PC}}
	if res.Router == sim.RouterLength {
		cfg.Router = sim.RouterConfig{Config: router.Config{Kind: sim.RouterLength}}
	}
	cfg.Workload = workload.Spec{CDF: res.Workload, Rate: res.Rate, Requests: n}
	cfg.Pools = nil
	for _, p := range res.Pools {
		cfg.Pools = append(cfg.Pools, sim.PoolConfig{Name: p.Name, GPU: p.GPU, Count: p.GPUsSim, MaxContext: p.MaxCtx})
	}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	src, err := workload.NewSource(cfg.Workload, seed)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := sim.Run(cfg, src, nil, sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

// Issue 20 item 5: the per-pool harness reported a worst long-pool P99
// TTFT of 0.403 s for Azure where a whole-fleet simulate gave ~0.20 s, and
// an LMSYS short pool at 0.16–0.36 s that the whole fleet ran at
// 0.35–0.53 s: its run (50,000 pool requests after five mean slot times)
// was a different window from simulate's (N requests, the first 20%
// warm-up), too short for a pool near saturation to reach its steady
// state. Each pool's run is now its part of a whole-fleet `simulate
// --requests N --warmup 0.2`: the same arrivals, the same warm-up up to
// the binomial noise of counting it in the pool's arrivals. Here the two
// agree on a small LMSYS fleet (pool routing, 60 req/s) for every pool and
// seed: P99 TTFT within 2%, slot utilization within 0.01.
func TestSizeHarnessMatchesWholeFleet(t *testing.T) {
	cfg := SizeConfig{Workload: "lmsys", Rate: 60, BShort: 1536, SLOTTFTS: 0.5, Seeds: 1, ConfirmSeeds: 1, Requests: 20000, Workers: 1}
	res, err := Size(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, seed := range []uint64{1, 7} {
		for i, p := range res.Pools {
			s, err := newSizer(cfg, res)
			if err != nil {
				t.Fatal(err)
			}
			o := s.run(i, p.GPUsSim, seed, 1)
			if o.err != nil {
				t.Fatal(o.err)
			}
			whole := wholeFleet(t, res, s.runRequests(i, 1), seed).Pools[i]
			t.Logf("seed %d pool %s: harness %.4f s %.4f, whole %.4f s %.4f", seed, p.Name, o.P99TTFT, o.Util, whole.TTFT.P99, whole.SlotUtilization)
			if math.Abs(o.P99TTFT-whole.TTFT.P99) > 0.02*whole.TTFT.P99 || math.Abs(o.Util-whole.SlotUtilization) > 0.01 {
				t.Errorf("seed %d pool %s at %d GPUs: harness P99 TTFT %.4f s util %.4f, whole fleet %.4f s util %.4f",
					seed, p.Name, p.GPUsSim, o.P99TTFT, o.Util, whole.TTFT.P99, whole.SlotUtilization)
			}
		}
	}
}

// TestSizeGuarantee checks the guarantee of docs/experiments.md "Sizing by
// simulation" on the three workloads at 1,000 req/s (azure 4,096 and lmsys
// 1,536 at P99 TTFT ≤ 500 ms, agent-heavy 8,192 at 3 s): the sized fleet,
// simulated whole (`simulate --requests N --warmup 0.2`, N each pool's run
// length) on every seed of the search and of its confirmation, meets the
// target in every pool. It also logs five seeds neither stage used at
// 300,000 requests, without asserting them: the guarantee does not cover
// them, and seed 104 misses in azure's short and lmsys's long pool
// (docs/experiments.md). Minutes of CPU: opt-in with FLEETSIM_LONG=1;
//
//	FLEETSIM_LONG=1 go test ./sim/sweep -run TestSizeGuarantee -v -timeout 60m
func TestSizeGuarantee(t *testing.T) {
	if testing.Short() || os.Getenv("FLEETSIM_LONG") == "" {
		t.Skip("minutes of CPU: set FLEETSIM_LONG=1 (and no -short)")
	}
	for _, c := range sizeWorkloads {
		t.Run(c.name, func(t *testing.T) {
			cfg := SizeConfig{Workload: c.name, Rate: 1000, BShort: c.b, SLOTTFTS: c.slo, Seeds: DefaultSeeds}
			res, err := Size(cfg)
			if err != nil {
				t.Fatal(err)
			}
			s, err := newSizer(cfg, res)
			if err != nil {
				t.Fatal(err)
			}
			for i, p := range res.Pools {
				for seed := uint64(1); seed <= uint64(s.cfg.Seeds+s.cfg.ConfirmSeeds); seed++ {
					scale := 1
					for _, r := range append(append([]SizeSeed(nil), p.Seeds...), p.Confirm...) {
						if r.Seed == seed {
							scale = r.Scale
						}
					}
					w := wholeFleet(t, res, s.runRequests(i, scale), seed).Pools[i]
					if w.Overloaded || w.TTFT.P99 > c.slo {
						t.Errorf("seed %d pool %s at %d GPUs: whole-fleet P99 TTFT %.3f s > %g s", seed, p.Name, p.GPUsSim, w.TTFT.P99, c.slo)
					}
				}
			}
			for seed := uint64(101); seed <= 105; seed++ {
				for i, p := range wholeFleet(t, res, 300000, seed).Pools {
					t.Logf("fresh seed %d pool %s (%d GPUs): P99 TTFT %.3f s, util %.3f", seed, p.Name, res.Pools[i].GPUsSim, p.TTFT.P99, p.SlotUtilization)
				}
			}
		})
	}
}
