package fleetopt

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/fleetsim/fleetsim/pools/catalog"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/ (mix_sweep_golden.txt) from the current code")

// goldenSweepLines evaluates every FleetOpt cell (every candidate B × the
// 11 γ) of the three workloads under the mix model with σ = 0 and 0.05 (the
// CLI default), and with a 10 s TTFT target (the P99 path): the sweep's
// count-only cost and GPUs (cellCost), and each pool's full calibration
// (Split). One line per cell and pool.
func goldenSweepLines(t *testing.T) []string {
	var out []string
	for _, w := range paperPR {
		for _, sigma := range []float64{0, 0.05} {
			for _, slo := range []float64{0, 10} {
				pl := newPlanner(t, w.workload, Config{BShort: w.bShort, PC: w.pc, ShortCalibration: ShortCalibMix, EstimateNoise: sigma, SLO: slo})
				for _, b := range pl.Candidates() {
					for _, g := range pl.cfg.Gammas {
						key := fmt.Sprintf("%s σ=%g slo=%g B=%d γ=%.1f", w.workload, sigma, slo, b, g)
						usd, n, err := pl.cellCost(b, g)
						if err != nil {
							out = append(out, key+" cell err")
							continue
						}
						out = append(out, fmt.Sprintf("%s cell %d %.17g", key, n, usd))
						m, err := pl.Split(MethodFleetOpt, b, g, pl.cfg.PC)
						if err != nil {
							out = append(out, key+" split err")
							continue
						}
						for _, p := range m.Pools {
							st := p.Stats()
							out = append(out, fmt.Sprintf("%s %s %d %.17g %.17g %.17g %.17g %.17g %d %d %.17g %.17g %.17g",
								key, p.Name, p.GPUs, p.ArrivalRate, st.MeanS, st.VarS, st.MeanPrefill, st.KVLen, st.P99Len, st.P99Iters, st.Mass, st.MeanLen, p.P99TTFTS))
						}
					}
				}
			}
		}
	}
	return out
}

// TestMixSweepGolden pins every cell of the mix sweep (counts exactly,
// floats to 1e-9 relative) to testdata/mix_sweep_golden.txt, written by the
// code before the sweep was made faster (docs/planner.md §8): the
// speed-ups change no result. Regenerate with -update only when a
// model change is intended.
func TestMixSweepGolden(t *testing.T) {
	got := goldenSweepLines(t)
	const path = "testdata/mix_sweep_golden.txt"
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(strings.Join(got, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var want []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		want = append(want, sc.Text())
	}
	if len(got) != len(want) {
		t.Fatalf("%d golden lines, want %d", len(got), len(want))
	}
	bad := 0
	for i := range got {
		if !sameGoldenLine(got[i], want[i]) {
			if bad++; bad <= 10 {
				t.Errorf("line %d:\n got %s\nwant %s", i+1, got[i], want[i])
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d lines differ", bad, len(got))
	}
}

// sameGoldenLine compares two lines field by field: integers and words
// exactly, floats to 1e-9 relative.
func sameGoldenLine(a, b string) bool {
	fa, fb := strings.Fields(a), strings.Fields(b)
	if len(fa) != len(fb) {
		return false
	}
	for i := range fa {
		if fa[i] == fb[i] {
			continue
		}
		if !strings.ContainsAny(fa[i], ".e") || !strings.ContainsAny(fb[i], ".e") {
			return false
		}
		x, err1 := strconv.ParseFloat(fa[i], 64)
		y, err2 := strconv.ParseFloat(fb[i], 64)
		if err1 != nil || err2 != nil || math.Abs(x-y) > 1e-9*math.Max(math.Abs(x), math.Abs(y)) {
			return false
		}
	}
	return true
}

// TestFleetOptPruningKeepsWinner: the sweep's pruning (cellLowerBound,
// mix with estimate noise) picks the same cell and the same fleet as a
// sweep that evaluates every cell, over workloads, noise levels,
// compressibilities, fixed or free B and equal or different GPU prices —
// and it does prune (the point of it: docs/planner.md §8).
func TestFleetOptPruningKeepsWinner(t *testing.T) {
	a100, _ := catalog.LookupGPU("a100")
	h100, _ := catalog.LookupGPU("h100-est")
	pruned := 0
	for _, w := range paperPR {
		for _, sigma := range []float64{0.01, 0.05, 0.2} {
			for _, pc := range []float64{1, 0.75, 0.3} {
				for _, fixB := range []bool{false, true} {
					for _, long := range []catalog.GPU{a100, h100} {
						cfg := Config{BShort: w.bShort, PC: pc, ShortCalibration: ShortCalibMix, EstimateNoise: sigma, FixB: fixB, LongGPU: long}
						fast := newPlanner(t, w.workload, cfg)
						full := newPlanner(t, w.workload, cfg)
						full.noPrune = true
						a, errA := fast.FleetOpt()
						b, errB := full.FleetOpt()
						if (errA == nil) != (errB == nil) {
							t.Fatalf("%s σ %g p_c %g fixB %v long %s: errors %v / %v", w.workload, sigma, pc, fixB, long.Name, errA, errB)
						}
						ja, _ := json.Marshal(a)
						jb, _ := json.Marshal(b)
						if string(ja) != string(jb) {
							t.Errorf("%s σ %g p_c %g fixB %v long %s: pruned sweep picks B %d γ %g (%d GPUs, $%.0f), full sweep B %d γ %g (%d GPUs, $%.0f)",
								w.workload, sigma, pc, fixB, long.Name, a.BShort, a.Gamma, a.TotalGPUs, a.AnnualUSD, b.BShort, b.Gamma, b.TotalGPUs, b.AnnualUSD)
						}
						if full.pruned != 0 {
							t.Errorf("noPrune planner pruned %d cells", full.pruned)
						}
						pruned += fast.pruned
					}
				}
			}
		}
	}
	if pruned == 0 {
		t.Error("no cell was pruned")
	}
	// The CLI default (σ = 0.05, free B) skips most cells.
	pl := newPlanner(t, "azure", Config{BShort: 4096, PC: 1, ShortCalibration: ShortCalibMix, EstimateNoise: 0.05})
	if _, err := pl.FleetOpt(); err != nil {
		t.Fatal(err)
	}
	if pl.pruned < 187/2 {
		t.Errorf("azure default sweep pruned %d of 187 cells, want most", pl.pruned)
	}
	t.Logf("azure default sweep: %d of 187 cells pruned", pl.pruned)
}
