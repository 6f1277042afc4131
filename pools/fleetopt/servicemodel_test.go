package fleetopt

import (
	"math"
	"testing"

	"github.com/fleetsim/fleetsim/pools/catalog"
	"github.com/fleetsim/fleetsim/pools/occupancy"
	"github.com/fleetsim/fleetsim/workload"
)

// The engine runs one iteration fewer than the planner's eq. 4 count
// (docs/model.md), so E[k] + 1 is the planner's E[S]/t under the paper
// preset, whose iteration time is the constant W + H·slots.
func TestOccupancyTrafficMatchesCalibrator(t *testing.T) {
	cdf, err := workload.LoadCDF("azure")
	if err != nil {
		t.Fatal(err)
	}
	tr, err := occupancy.NewTraffic(cdf, workload.DefaultInputFraction, 512, []occupancy.Part{{Lo: 4096, Hi: 65536, Share: 1}})
	if err != nil {
		t.Fatal(err)
	}
	cal, err := NewCalibrator(cdf, workload.DefaultInputFraction, 512)
	if err != nil {
		t.Fatal(err)
	}
	g, _ := catalog.LookupGPU("a100")
	pt, _ := PoolTimingOf(g, 65536, catalog.TimingPaper)
	st, err := cal.Exact(4096, 65536, pt)
	if err != nil {
		t.Fatal(err)
	}
	it := pt.W + pt.H*float64(pt.Slots)
	if got, want := tr.EK+1, st.MeanS/it; math.Abs(got-want) > 1e-9*want {
		t.Errorf("E[k]+1 = %v, planner E[S]/t = %v", got, want)
	}
	// Var[k] is the planner's Var[S]/t².
	if got, want := tr.EK2-tr.EK*tr.EK, st.VarS/(it*it); math.Abs(got-want) > 1e-6*want {
		t.Errorf("Var[k] = %v, planner %v", got, want)
	}
}

// BenchmarkApplyOccupancy is `fleetsim plan --method pr --service-model
// occupancy` once the planner exists: both PR pools and the homogeneous
// baseline sized with the occupancy model (BENCHMARKS.md).
func BenchmarkApplyOccupancy(b *testing.B) {
	for _, c := range []struct {
		name string
		bs   int
	}{{"azure", 4096}, {"lmsys", 1536}, {"agent-heavy", 8192}} {
		b.Run(c.name, func(b *testing.B) {
			cdf, err := workload.LoadCDF(c.name)
			if err != nil {
				b.Fatal(err)
			}
			cal, err := NewCalibrator(cdf, workload.DefaultInputFraction, 512)
			if err != nil {
				b.Fatal(err)
			}
			g, _ := catalog.LookupGPU("a100")
			for range b.N {
				pl, err := NewPlanner(cal, Config{Rate: 1000, ShortGPU: g, LongGPU: g, BShort: c.bs, PC: 1})
				if err != nil {
					b.Fatal(err)
				}
				plan, err := pl.Run([]string{MethodPR})
				if err != nil {
					b.Fatal(err)
				}
				if err := pl.ApplyOccupancy(&plan, occupancy.Targets{P99TTFTS: 0}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
