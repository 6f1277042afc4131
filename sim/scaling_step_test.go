package sim

import (
	"testing"

	"github.com/fleetsim/fleetsim/pools/autoscale"
	"github.com/fleetsim/fleetsim/workload"
)

// TestStepLoadThreshold: the FleetOpt Azure pool-routing fleet (short a100
// pool at 4,096 tokens, long at 65,536) sized for 200 req/s (13 + 34
// instances) takes a step to 1,000 req/s at 120 s under the threshold
// policy on the arrival rate per instance (targets 16 and 0.6 req/s: the
// FleetOpt fleet of 43 + 131 at 1,000 req/s, with headroom), start-up
// delay 130.6 s (catalog: 60 s + 141.2 GB at 2 GB/s). The run reports the
// 60 s windows whose P99 TTFT is above the 0.5 s SLO: they start with the
// step and end before the end of the run (it recovers), and every request
// that arrived left once (served or rejected: none lost, none twice).
func TestStepLoadThreshold(t *testing.T) {
	const n = 420_000
	cfg := Defaults()
	cfg.Timing = "kv"
	cfg.WarmupFraction = 0
	cfg.Workload = workload.Spec{CDF: "azure", Requests: n, RateProfile: "step:0=200,120=1000"}
	cfg.Pools[0].Count, cfg.Pools[1].Count = 13, 34
	for i := range cfg.Pools {
		cfg.Pools[i].ScalingBlock = &PoolScaling{MinInstances: ip(1), MaxInstances: ip(0)}
	}
	cfg.Autoscale = &autoscale.Config{Policy: autoscale.PolicyThreshold, Metric: autoscale.MetricRate,
		Targets: map[string]float64{"short": 16, "long": 0.6}}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	src, err := workload.NewSource(cfg.Workload, cfg.Seed)
	if err != nil {
		t.Fatal(err)
	}
	var seen counter
	sum, err := Run(cfg, src, &seen, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if seen.n != n || sum.Fleet.Arrived != n || sum.Fleet.Completed+sum.Fleet.Rejected != n || seen.dup {
		t.Fatalf("arrived %d, completed %d + rejected %d, %d records (duplicate: %v); want %d each way",
			sum.Fleet.Arrived, sum.Fleet.Completed, sum.Fleet.Rejected, seen.n, seen.dup, n)
	}
	w := sum.Scaling.TTFTWindows
	if w.Above == 0 || w.FirstAboveS < 120 || w.LastAboveEndS >= sum.SimTimeS-60 {
		t.Errorf("P99 TTFT windows above the SLO: %+v; want some from the step at 120 s, over before the end %v s", w, sum.SimTimeS)
	}
	t.Logf("P99 TTFT (60 s windows) above %.1f s from %v s, back under it from %v s (step at 120 s; worst window %.1f s); %d scale-ups; %.1f GPU-hours, $%.0f",
		cfg.SLO.TTFTS, w.FirstAboveS, w.LastAboveEndS, w.WorstP99S, sum.Scaling.ScaleUps, sum.Scaling.GPUHours, sum.Scaling.CostUSD)
}

// counter counts records and notices a request emitted twice (IDs are
// 0..n−1).
type counter struct {
	n    int
	dup  bool
	seen []bool
}

func (c *counter) Write(r *Record) error {
	for int(r.ID) >= len(c.seen) {
		c.seen = append(c.seen, make([]bool, len(c.seen)+1024)...)
	}
	c.dup = c.dup || c.seen[r.ID]
	c.seen[r.ID] = true
	c.n++
	return nil
}
