package pools

import (
	"bufio"
	"flag"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
)

var updateGolden = flag.Bool("update-golden", false, "rewrite testdata/mix_sweep_golden.txt from the current code")

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
// speed-ups change no result. Regenerate with -update-golden only when a
// model change is intended.
func TestMixSweepGolden(t *testing.T) {
	got := goldenSweepLines(t)
	const path = "testdata/mix_sweep_golden.txt"
	if *updateGolden {
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
