package fleetopt

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/fleetsim/fleetsim/pools/catalog"
)

// TestPaperCellCostMatchesGeneral: the paper model's count-only sweep path
// (cellCostPaper, docs/planner.md §8) gives every cell the same cost (bit
// for bit), GPU count and error as the general path (shape + sizeCount),
// and FleetOpt the same plan, over the three workloads, compressibilities,
// both timing presets, equal or different GPUs, high and tiny rates, and
// boundaries and γ values off the default grid (including ones that are
// errors or leave no long pool). The general path is the reference: it is
// what the paper-mode CLI output was produced with before the fast path.
func TestPaperCellCostMatchesGeneral(t *testing.T) {
	a100, _ := catalog.LookupGPU("a100")
	h100, _ := catalog.LookupGPU("h100-est")
	gammas := append(DefaultGammas(), 1.05, 3, 7.5, 1000)
	hits := 0
	for _, w := range paperPR {
		cal := mustCal(t, mustCDF(t, w.workload))
		for _, pc := range []float64{w.pc, 1, 0.3, 0} {
			for _, timing := range []string{catalog.TimingKV, catalog.TimingPaper} {
				for _, long := range []catalog.GPU{a100, h100} {
					for _, rate := range []float64{1000, 0.37, 1e6} {
						cfg := Config{Rate: rate, ShortGPU: a100, LongGPU: long, BShort: w.bShort, PC: pc, Timing: timing, ShortCalibration: ShortCalibPaper}
						fast, err := NewPlanner(cal, cfg)
						if err != nil {
							t.Fatal(err)
						}
						gen, _ := NewPlanner(cal, cfg)
						gen.noFast = true
						bs := append(fast.Candidates(), -1, 0, 1, 3, 65535, 65536, 70000)
						for _, b := range bs {
							for _, g := range gammas {
								u1, n1, e1 := fast.cellCost(b, g)
								u2, n2, e2 := gen.cellCost(b, g)
								if math.Float64bits(u1) != math.Float64bits(u2) || n1 != n2 || (e1 == nil) != (e2 == nil) || (e1 != nil && e1.Error() != e2.Error()) {
									t.Fatalf("%s p_c %g %s long %s rate %g B %d γ %g: fast %v $%.17g %d GPUs, general %v $%.17g %d GPUs",
										w.workload, pc, timing, long.Name, rate, b, g, e1, u1, n1, e2, u2, n2)
								}
								if _, _, ok := fast.cellCostPaper(b, g); ok {
									hits++
								}
							}
						}
						a, errA := fast.FleetOpt()
						b, errB := gen.FleetOpt()
						ja, _ := json.Marshal(a)
						jb, _ := json.Marshal(b)
						if string(ja) != string(jb) || (errA == nil) != (errB == nil) {
							t.Errorf("%s p_c %g %s long %s rate %g: FleetOpt differs: %v %s / %v %s", w.workload, pc, timing, long.Name, rate, errA, ja, errB, jb)
						}
					}
				}
			}
		}
	}
	// The comparison is only worth something if the fast path runs.
	if hits < 10000 {
		t.Errorf("fast path taken for %d cells; want most of them", hits)
	}
}

// TestPaperFastPathScope: the fast path is off for the models it does not
// reproduce (mix, Monte Carlo, a TTFT target), which keep the general path.
func TestPaperFastPathScope(t *testing.T) {
	for _, cfg := range []Config{
		{ShortCalibration: ShortCalibMix, PC: 1},
		{Calibration: CalibMonteCarlo, PC: 1},
		{SLO: 10, PC: 1},
	} {
		pl := newPlanner(t, "azure", cfg)
		if _, _, err := pl.cellCost(4096, 1.5); err != nil {
			t.Fatal(err)
		}
		if pl.paper.init {
			t.Errorf("%+v: the paper fast path ran", cfg)
		}
	}
	pl := newPlanner(t, "azure", Config{PC: 1})
	if _, _, err := pl.cellCost(4096, 1.5); err != nil {
		t.Fatal(err)
	}
	if !pl.paper.init || pl.paper.b != 4096 {
		t.Errorf("paper model, exact, no SLO: the fast path did not run")
	}
}
