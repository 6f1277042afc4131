package experiments

import (
	"math"
	"testing"
)

// Issue 8's acceptance for the occupancy model, single long-pool GPU: one
// A100 at 65,536 tokens (16 slots) serving the Azure slice above 4,096 at
// ρ = 0.5, 0.7, 0.85 in the planner's units; utilization within 5% and
// P99 wait within 25% of the simulation (numbers in docs/planner.md §10).
func TestOccupancySingleLongGPU(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates 3 × 100,000 requests")
	}
	for _, rho := range []float64{0.5, 0.7, 0.85} {
		pc, err := CheckPool(PoolCase{Workload: "azure", Lo: 4096, Hi: 65536, MaxCtx: 65536, GPU: "a100", GPUs: 1, Rho: rho, Requests: 100000, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		if pc.OccErr != nil {
			t.Fatal(pc.OccErr)
		}
		if e := math.Abs(pc.Occ.Utilization/pc.Sim.Util - 1); e > 0.05 {
			t.Errorf("ρ %g: utilization occ %.3f sim %.3f (%.1f%%)", rho, pc.Occ.Utilization, pc.Sim.Util, 100*e)
		}
		if e := math.Abs(pc.Occ.P99WaitS/pc.Sim.P99Wait - 1); e > 0.25 {
			t.Errorf("ρ %g: P99 wait occ %.3f sim %.3f (%.1f%%)", rho, pc.Occ.P99WaitS, pc.Sim.P99Wait, 100*e)
		}
	}
}

// Issue 8's acceptance for the occupancy model on the planner's
// pool-routing fleets at λ = 1,000: every pool's utilization within 5% and
// P99 TTFT within 15% of the simulation.
func TestOccupancyFleets(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates three fleets")
	}
	for _, c := range []struct {
		wl string
		b  int
	}{{"azure", 4096}, {"lmsys", 1536}, {"agent-heavy", 8192}} {
		v, err := Validate(ValidateConfig{Workload: c.wl, Rate: 1000, BShort: c.b, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range v.Pools {
			if e := math.Abs(p.Occ.Utilization/p.UtilSim - 1); e > 0.05 {
				t.Errorf("%s %s: utilization occ %.3f sim %.3f", c.wl, p.Name, p.Occ.Utilization, p.UtilSim)
			}
			if e := math.Abs(p.Occ.P99TTFTS/p.P99TTFTSimS - 1); e > 0.15 {
				t.Errorf("%s %s: P99 TTFT occ %.3f sim %.3f", c.wl, p.Name, p.Occ.P99TTFTS, p.P99TTFTSimS)
			}
		}
	}
}

// Issue 8's acceptance for fidelity slot: the slot-level M/G/c simulation
// against Erlang C at ρ = 0.7 and 0.9 with >= 64 servers, P(wait) within
// 2 points (mean of 3 seeds × 200,000 requests). The pools whose service
// SCV is near 1 (agent-heavy long, 64 slots, C_s² 1.18; Azure short, 256
// slots, C_s² 1.53) meet it; Azure long (C_s² 0.08, near-deterministic)
// and LMSYS long (C_s² 15.5) miss at ρ = 0.9 by about half a point beyond
// it (docs/experiments.md "Validation at three fidelities").
func TestSlotFidelityErlangC(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates 12 × 200,000 requests")
	}
	for _, c := range []PoolCase{
		{Workload: "agent-heavy", Lo: 8192, Hi: 65536, MaxCtx: 65536, GPU: "a100", GPUs: 4},
		{Workload: "azure", Lo: 0, Hi: 4096, MaxCtx: 4096, GPU: "a100", GPUs: 1},
	} {
		for _, rho := range []float64{0.7, 0.9} {
			mean, erlang := 0.0, 0.0
			for seed := uint64(1); seed <= 3; seed++ {
				c.Rho, c.Requests, c.Seed, c.Fidelities = rho, 200000, seed, []string{FidelitySlot}
				pc, err := CheckPool(c)
				if err != nil {
					t.Fatal(err)
				}
				mean += pc.Slot.PWait / 3
				erlang = pc.PaperPWait
			}
			if math.Abs(mean-erlang) > 0.02 {
				t.Errorf("%s ρ %g: slot P(wait) %.4f, Erlang C %.4f", c.Workload, rho, mean, erlang)
			}
		}
	}
}
