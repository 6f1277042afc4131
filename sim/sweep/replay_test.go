package sweep

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/fleetsim/fleetsim/sim"
)

// TestReplayDetectorA10G is issue 9's acceptance scenario: one A10G at
// 2,048 tokens, lengths uniform on 50–2,000 split 80/20, kv timing, 300
// simulated seconds. Its saturated throughput is about 12.5–13.1 req/s
// (measured by FindMaxRate's saturation run, seeds 1–8), so 11 req/s (ρ ≈ 0.86)
// must hold on every seed and 14 req/s must fire on every seed.
func TestReplayDetectorA10G(t *testing.T) {
	cdf := filepath.Join(t.TempDir(), "uniform.json")
	if err := os.WriteFile(cdf, []byte(`[[49, 0], [2000, 1]]`), 0o644); err != nil {
		t.Fatal(err)
	}
	base := sim.PapersDefaults() // kv timing, as the capacities above were measured
	base.Workload.CDF = cdf
	base.Pools = []sim.PoolConfig{{Name: "a", GPU: "a10g", Count: 1, MaxContext: 2048}}
	g := &Grid{Base: base, DurationS: 300, Axes: []Axis{mustAxis(t, "rate", "11,14"), mustAxis(t, "seed", "1:8:1")}}
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	res, err := Run(g, Options{Detector: ReplayDetector{}})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		fire := r.Config.Workload.Rate == 14
		if r.Pools[0].Fired != fire || r.Fleet.Fired != fire {
			t.Errorf("%s: pool fired %v, fleet fired %v; want %v", r.Label, r.Pools[0].Fired, r.Fleet.Fired, fire)
		}
		// guidellm's minimum_duration: never before 30 s.
		if fire && !(r.Pools[0].AtS >= 30 && r.Pools[0].AtS <= 300) {
			t.Errorf("%s: fired at %v s, want within [30, 300]", r.Label, r.Pools[0].AtS)
		}
		if !fire && !math.IsNaN(r.Pools[0].AtS) {
			t.Errorf("%s: not fired but a time %v", r.Label, r.Pools[0].AtS)
		}
	}
}
