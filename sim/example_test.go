package sim_test

import (
	"fmt"

	"github.com/fleetsim/fleetsim/sim"
	"github.com/fleetsim/fleetsim/workload"
)

// countSink counts records and rejections.
type countSink struct{ n, rejected int }

func (c *countSink) Write(r *sim.Record) error {
	c.n++
	if r.Rejected {
		c.rejected++
	}
	return nil
}

// ExampleRun simulates the FleetOpt paper's two-pool Azure fleet for 20,000
// requests and prints a few fleet metrics.
func ExampleRun() {
	spec := workload.Spec{CDF: "azure", Rate: 1000, Requests: 20000}
	cfg := sim.Config{
		Seed:     1,
		Workload: spec,
		Pools: []sim.PoolConfig{
			{Name: "short", GPU: "a100", Count: 43, MaxContext: 4096},
			{Name: "long", GPU: "a100", Count: 131, MaxContext: 65536},
		},
		Timing:         "kv",
		WarmupFraction: 0.2,
		SLO:            sim.SLO{TTFTS: 0.5, TPOTS: 0.1},
	}
	src, err := workload.NewSource(spec, cfg.Seed)
	if err != nil {
		fmt.Println(err)
		return
	}
	sink := &countSink{}
	s, err := sim.Run(cfg, src, sink, sim.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	f := s.Fleet
	fmt.Printf("records %d, rejected %d\n", sink.n, sink.rejected)
	fmt.Printf("measured %d = completed %d + rejected %d + in flight %d\n", f.Arrived, f.Completed, f.Rejected, f.InFlight)
	fmt.Printf("overloaded %v, SLO attainment %.2f\n", f.Overloaded, f.SLOAttainment)
	// Output:
	// records 20000, rejected 0
	// measured 16000 = completed 16000 + rejected 0 + in flight 0
	// overloaded false, SLO attainment 1.00
}
