package sweep

import (
	"strings"
	"testing"
)

// A reduced sizing problem (LMSYS pool routing at 60 req/s, 2 seeds, runs
// of at least 3,000 fleet requests): the simulated count meets the targets on every seed
// and the count below it fails on at least one, re-checked by simulating
// both counts again from scratch.
func TestSizeMinimal(t *testing.T) {
	cfg := SizeConfig{Workload: "lmsys", Rate: 60, BShort: 1536, SLOTTFTS: 0.5, Seeds: 2, Requests: 3000, Workers: 1}
	res, err := Size(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Pools) != 2 {
		t.Fatalf("%d pools", len(res.Pools))
	}
	for i, p := range res.Pools {
		ok, seeds, err := EvaluatePool(cfg, res, i, p.GPUsSim)
		if err != nil {
			t.Fatal(err)
		}
		if !ok || len(seeds) != cfg.Seeds {
			t.Errorf("pool %s: %d GPUs do not meet the targets on every seed: %+v", p.Name, p.GPUsSim, seeds)
		}
		for k, s := range seeds {
			if s != p.Seeds[k] {
				t.Errorf("pool %s seed %d: re-run %+v differs from the search's %+v", p.Name, k+1, s, p.Seeds[k])
			}
		}
		// The search's count is minimal on its seeds; the confirmation on
		// fresh seeds may only add to it, and its seeds all pass.
		if p.GPUsSearch > 1 {
			ok, seeds, err := EvaluatePool(cfg, res, i, p.GPUsSearch-1)
			if err != nil {
				t.Fatal(err)
			}
			if ok {
				t.Errorf("pool %s: %d GPUs also meet the targets on every seed: %+v", p.Name, p.GPUsSearch-1, seeds)
			}
		}
		if p.GPUsSim < p.GPUsSearch || len(p.Confirm) != cfg.Seeds {
			t.Errorf("pool %s: search %d, simulated %d, %d confirmation seeds", p.Name, p.GPUsSearch, p.GPUsSim, len(p.Confirm))
		}
		for _, c := range p.Confirm {
			if c.Seed <= uint64(cfg.Seeds) || c.P99TTFT > cfg.SLOTTFTS {
				t.Errorf("pool %s: confirmation seed %+v", p.Name, c)
			}
		}
		if p.GPUsPaper < 1 || p.GPUsOccupancy < 1 || p.MarginTTFT == nil || *p.MarginTTFT < 0 {
			t.Errorf("pool %+v", p)
		}
	}
	// Workers do not change the answer.
	cfg.Workers = 2
	res2, err := Size(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for i := range res.Pools {
		if res.Pools[i].GPUsSim != res2.Pools[i].GPUsSim || res.Pools[i].WorstP99TTFT != res2.Pools[i].WorstP99TTFT {
			t.Errorf("pool %d: workers 1 vs 2: %+v vs %+v", i, res.Pools[i], res2.Pools[i])
		}
	}
}

func TestSizeBadInput(t *testing.T) {
	base := SizeConfig{Workload: "azure", Rate: 100, BShort: 4096, SLOTTFTS: 0.5, Seeds: 1, Requests: 1000}
	for _, tt := range []struct {
		mut  func(*SizeConfig)
		want string
	}{
		{func(c *SizeConfig) { c.Seeds = 0 }, "seeds 0"},
		{func(c *SizeConfig) { c.SLOTTFTS = 0 }, "needs a latency target"},
		{func(c *SizeConfig) { c.SLOTTFTS = 0.01 }, "unreachable"},
		{func(c *SizeConfig) { c.Method = "spill" }, "method"},
		{func(c *SizeConfig) { c.UtilCap = 1.5 }, "util-cap"},
	} {
		c := base
		tt.mut(&c)
		_, err := Size(c)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: err %v, want %q", c, err, tt.want)
		}
	}
}
