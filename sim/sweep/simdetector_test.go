package sweep

import (
	"math"
	"testing"
)

// TestSimAndReplayDetectorsAgree: the simulator's live detector and the
// replay of the records into the same detector give the same verdicts, with
// first detections within 0.05 s (issue 9's A10G around its boundary, 8
// seeds; a two-pool fleet). The times differ slightly because the live feed
// observes some events at the fleet's step rather than at the record's
// time, so the first evaluation past guidellm's 30 s minimum falls on a
// different event.
func TestSimAndReplayDetectorsAgree(t *testing.T) {
	if testing.Short() {
		t.Skip("80 runs of 300 simulated s")
	}
	a10g := smallBase()
	a10g.Workload.CDF = "../../testdata/uniform-50-2000.json"
	a10g.Pools = a10g.Pools[:1]
	a10g.Pools[0].GPU, a10g.Pools[0].Count, a10g.Pools[0].MaxContext = "a10g", 1, 2048
	two := smallBase()
	for _, tc := range []struct {
		g   *Grid
		tol float64 // s
	}{
		{&Grid{Base: a10g, DurationS: 300, Axes: []Axis{mustAxis(t, "rate", "11,12.5,13,14"), mustAxis(t, "seed", "1:8:1")}}, 0.05},
		{&Grid{Base: two, DurationS: 120, Axes: []Axis{mustAxis(t, "rate", "20,60,120,200")}}, 0.05},
	} {
		g := tc.g
		live, err := Run(g, Options{Detector: SimDetector{}})
		if err != nil {
			t.Fatal(err)
		}
		replay, err := Run(g, Options{Detector: ReplayDetector{}})
		if err != nil {
			t.Fatal(err)
		}
		fired := 0
		for i := range live {
			a, b := append([]Verdict{live[i].Fleet}, live[i].Pools...), append([]Verdict{replay[i].Fleet}, replay[i].Pools...)
			for k := range a {
				same := a[k].Fired == b[k].Fired && (math.Abs(a[k].AtS-b[k].AtS) <= tc.tol || math.IsNaN(a[k].AtS) && math.IsNaN(b[k].AtS))
				if !same {
					t.Errorf("%s, verdict %d: live %+v, replay %+v", live[i].Label, k, a[k], b[k])
				}
				if a[k].Fired {
					fired++
				}
			}
		}
		if fired == 0 {
			t.Errorf("%v: no verdict fired; the comparison is empty", g.Axes)
		}
	}
}
