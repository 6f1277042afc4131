package sim

import (
	"fmt"
	"testing"
)

// TestOSDWorkerSameAsSync: in monitor mode the detectors run on the worker
// goroutine (osdasync.go); the records, the summary (verdicts, fired-at
// times, final states with their slopes) and the time series (its osd_alert
// column read at each sample) are identical to feeding them synchronously.
// The run is overloaded (the detectors fire about 30 s in, so the column
// holds both 0 and 1; the run lasts ~2,500 simulated s) and sampled every
// 0.2 s and every 1 s: with few events per sample, batches are handed over
// early at osdMaxMarks waiting samples, so hundreds of batches go round the
// osdBatches in circulation.
func TestOSDWorkerSameAsSync(t *testing.T) {
	run := func(sync bool, dt float64) ([]Record, string, []SeriesRow) {
		const n = 6000
		cfg := fleetCfg(n, 0.1,
			PoolConfig{Name: "s", GPU: "a10g", Count: 1, MaxContext: 2048},
			PoolConfig{Name: "l", GPU: "a10g", Count: 1, MaxContext: 8192})
		cfg.Workload.Rate = 40
		sink, ms := &memSink{}, &memSeries{}
		f, err := newFleet(cfg, newPoisson(n, 40, 50, 4000, 3), sink, Options{Series: SeriesOptions{Sink: ms, IntervalS: dt}})
		if err != nil {
			t.Fatal(err)
		}
		f.osd.sync = sync
		if err := f.run(); err != nil {
			t.Fatal(err)
		}
		if f.seriesClose(); f.err != nil {
			t.Fatal(f.err)
		}
		if f.osd.backwards != 0 {
			t.Errorf("sync %v: %d detector events out of time order", sync, f.osd.backwards)
		}
		return sink.recs, summaryText(f.summary()) + fmt.Sprintf("%+v%+v", f.summary().Pools[0].OSD.Final, f.summary().Fleet.OSD.Final), ms.rows
	}
	for _, dt := range []float64{0.2, 1} {
		sr, ss, srows := run(true, dt)
		ar, as, arows := run(false, dt)
		if fmt.Sprint(stripNaN(sr)) != fmt.Sprint(stripNaN(ar)) {
			t.Errorf("dt %v: records differ", dt)
		}
		if ss != as {
			t.Errorf("dt %v: summaries differ:\nsync   %s\nworker %s", dt, ss, as)
		}
		if len(srows) != len(arows) {
			t.Fatalf("dt %v: %d rows synchronously, %d with the worker", dt, len(srows), len(arows))
		}
		alerts := map[int8]int{}
		for i := range srows {
			alerts[srows[i].OSDAlert]++
			if a, b := fmt.Sprintf("%+v", srows[i]), fmt.Sprintf("%+v", arows[i]); a != b {
				t.Fatalf("dt %v: row %d differs:\nsync   %s\nworker %s", dt, i, a, b)
			}
		}
		if alerts[0] == 0 || alerts[1] == 0 {
			t.Errorf("dt %v: osd_alert values %v, want both 0 and 1", dt, alerts)
		}
		t.Logf("dt %v: %d rows (osd_alert %v), %d records", dt, len(srows), alerts, len(sr))
	}
}
