package sim

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"
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

// failSeries fails (or panics) at its n-th WriteSeries.
type failSeries struct {
	n, calls int
	panics   bool
}

func (s *failSeries) WriteSeries([]SeriesRow) error {
	if s.calls++; s.calls < s.n {
		return nil
	}
	if s.panics {
		panic("series sink")
	}
	return fmt.Errorf("series sink full")
}

// failSink fails (or panics) at its n-th record.
type failSink struct {
	n, calls int
	panics   bool
}

func (s *failSink) Write(*Record) error {
	if s.calls++; s.calls < s.n {
		return nil
	}
	if s.panics {
		panic("record sink")
	}
	return fmt.Errorf("record sink full")
}

// TestOSDWorkerEndsOnEveryPath: the monitor-mode worker goroutine has ended
// when Run returns, or panics, on every path that ends a run early: a series
// or record sink that fails or panics mid-run, and Options.Stop (a signal).
// The run is the overloaded one of TestOSDWorkerSameAsSync, sampled every
// 0.2 s (many batches handed over early). The goroutine count is read after
// each run, waiting up to 2 s for it to fall back to the count before.
func TestOSDWorkerEndsOnEveryPath(t *testing.T) {
	cfg, n := overloadedCfg()
	// The polls of a whole run: the drain's are its last ones.
	polls := 0
	count := func() bool { polls++; return false }
	if _, err := Run(cfg, newPoisson(n, 40, 50, 4000, 3), &memSink{}, Options{Stop: count, Series: SeriesOptions{Sink: &memSeries{}, IntervalS: 0.2}}); err != nil {
		t.Fatal(err)
	}
	total := polls
	cases := []struct {
		name   string
		sink   Sink
		series SeriesSink
		stop   func() bool
		err    string // "" for a panic
	}{
		{"series sink fails", &memSink{}, &failSeries{n: 200}, nil, "series sink full"},
		{"series sink panics", &memSink{}, &failSeries{n: 200, panics: true}, nil, ""},
		{"record sink fails", &failSink{n: 2000}, &memSeries{}, nil, "record sink full"},
		{"record sink panics", &failSink{n: 2000, panics: true}, &memSeries{}, nil, ""},
		{"stopped", &memSink{}, &memSeries{}, func() bool { polls++; return polls > 3000 }, ErrStopped.Error()},
		{"stopped in the drain", &memSink{}, &memSeries{}, func() bool { polls++; return polls > total-2 }, ErrStopped.Error()},
	}
	for _, c := range cases {
		before := runtime.NumGoroutine()
		polls = 0
		var err error
		panicked := func() (p any) {
			defer func() { p = recover() }()
			_, err = Run(cfg, newPoisson(n, 40, 50, 4000, 3), c.sink, Options{Stop: c.stop, Series: SeriesOptions{Sink: c.series, IntervalS: 0.2}})
			return nil
		}()
		switch {
		case c.err == "" && panicked == nil:
			t.Errorf("%s: no panic (err %v)", c.name, err)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: err %v (panic %v), want %q", c.name, err, panicked, c.err)
		}
		after := runtime.NumGoroutine()
		for wait := 0; after > before && wait < 200; wait++ {
			time.Sleep(10 * time.Millisecond)
			after = runtime.NumGoroutine()
		}
		if after > before {
			t.Errorf("%s: %d goroutines before the run, %d after", c.name, before, after)
		}
	}
}

// lagSeries records the most samples waiting for the worker when a row is
// written: the fleet's samples so far minus the row's interval.
type lagSeries struct {
	f      *fleet
	maxLag int64
}

func (s *lagSeries) WriteSeries(rows []SeriesRow) error {
	s.maxLag = max(s.maxLag, int64(s.f.ts.k)-rows[0].Interval)
	return nil
}

// TestOSDWorkerSamplesWaitBounded: time-series samples waiting for the
// worker stay bounded at osdMaxMarks + osdBatches - 1 (the batch handed over
// early at osdMaxMarks holds up to osdMaxMarks of them, and each of the
// osdBatches - 1 others one more before the fleet waits for the first): the
// overloaded run of TestOSDWorkerSameAsSync sampled every 10 ms (hundreds of
// samples between two full batches). The bound is counted by hand above; the
// measured maximum depends on the scheduler (257 to 258 at GOMAXPROCS 1, 2
// and 4 here; 17 to 18 when osdMaxMarks was 16).
func TestOSDWorkerSamplesWaitBounded(t *testing.T) {
	ls := &lagSeries{}
	f := overloadedFleet(t, ls, 0.01)
	ls.f = f
	if err := f.run(); err != nil {
		t.Fatal(err)
	}
	if ls.maxLag > osdMaxMarks+osdBatches-1 {
		t.Errorf("%d samples waited for the worker, want <= %d", ls.maxLag, osdMaxMarks+osdBatches-1)
	}
	t.Logf("at most %d samples waited (GOMAXPROCS %d)", ls.maxLag, runtime.GOMAXPROCS(0))
}

// countSeries counts the rows written and keeps none.
type countSeries struct{ rows int }

func (s *countSeries) WriteSeries(rows []SeriesRow) error {
	s.rows += len(rows)
	return nil
}

// TestOSDWorkerSampleAllocs: handing a time-series sample to the worker
// allocates nothing once the marks in circulation exist (the rows are
// copied into a recycled mark; SeriesSink keeps no rows). The overloaded
// run of TestOSDWorkerSameAsSync, sampled every 10 ms (~250,000 samples),
// allocates with the worker at most 4 MiB more than synchronously: the
// osdBatches batches are 4 × 32,768 × 24 B = 3 MiB. A copy per sample was
// ~2 × 200 B of rows and its mark each, ~100 MB over the run, and in the
// overloaded 2M-request CLI run (1 s samples over 107,605 simulated s) it
// raised the peak RSS from ~125 MB to ~170 MB (GC slack).
func TestOSDWorkerSampleAllocs(t *testing.T) {
	run := func(sync bool) (uint64, int) {
		cs := &countSeries{}
		f := overloadedFleet(t, cs, 0.01)
		f.osd.sync = sync
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		if err := f.run(); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&m1)
		return m1.TotalAlloc - m0.TotalAlloc, cs.rows
	}
	syncB, syncRows := run(true)
	asyncB, asyncRows := run(false)
	if syncRows != asyncRows {
		t.Fatalf("%d rows synchronously, %d with the worker", syncRows, asyncRows)
	}
	t.Logf("%d rows; allocated %d B synchronously, %d B with the worker", syncRows, syncB, asyncB)
	if asyncB > syncB+4<<20 {
		t.Errorf("the worker allocated %d B more than the synchronous feed, want <= 4 MiB", asyncB-syncB)
	}
}

// overloadedCfg is the overloaded two-pool run of TestOSDWorkerSameAsSync
// and its n requests (at 40 req/s from newPoisson(n, 40, 50, 4000, 3)).
func overloadedCfg() (Config, int) {
	const n = 6000
	cfg := fleetCfg(n, 0.1,
		PoolConfig{Name: "s", GPU: "a10g", Count: 1, MaxContext: 2048},
		PoolConfig{Name: "l", GPU: "a10g", Count: 1, MaxContext: 8192})
	cfg.Workload.Rate = 40
	return cfg, n
}

// overloadedFleet is overloadedCfg's fleet, sampled every dt s into series.
func overloadedFleet(t *testing.T, series SeriesSink, dt float64) *fleet {
	t.Helper()
	cfg, n := overloadedCfg()
	f, err := newFleet(cfg, newPoisson(n, 40, 50, 4000, 3), &memSink{}, Options{Series: SeriesOptions{Sink: series, IntervalS: dt}})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// workerSeries remembers the run's worker (read after Run, once joined).
type workerSeries struct {
	countSeries
	f *fleet
	w *osdWorker
}

func (s *workerSeries) WriteSeries(rows []SeriesRow) error {
	if s.w == nil {
		s.w = s.f.osd.w
	}
	return s.countSeries.WriteSeries(rows)
}

// TestOSDWorkerFewEarlyHandovers: a run with few detector events per sample
// hands batches over early (osdMaxMarks samples waiting) rarely, each
// handover being a wake-up of the worker and often a wait for it. Once
// osdMaxMarks samples wait, each sample hands its batch over until the
// worker returns the first, so about osdBatches handovers per osdMaxMarks
// samples: at osdMaxMarks 16, one per 4 samples; here at most one per 32.
// At 16, the CLI's overloaded run (--pool a:a10g:1:2048 --rate 1000
// --requests 20000 --timeseries-interval 1ms --no-parquet) took 3.1-4.8 s of
// CPU against 1.9-2.5 s synchronously (c72fb8d vs 8585adf, 3 interleaved
// pairs); at 256, 2.0-2.4 s.
func TestOSDWorkerFewEarlyHandovers(t *testing.T) {
	ws := &workerSeries{}
	f := overloadedFleet(t, ws, 0.01)
	ws.f = f
	if err := f.run(); err != nil {
		t.Fatal(err)
	}
	samples := uint64(ws.rows / 3)
	t.Logf("%d samples, %d batches handed over", samples, ws.w.sent)
	if ws.w.sent > samples/32 {
		t.Errorf("%d batches handed over for %d samples, want <= %d", ws.w.sent, samples, samples/32)
	}
}

// onceSeries panics at its n-th WriteSeries and counts the rows of each
// interval it is given.
type onceSeries struct {
	n, calls int
	got      map[int64]int
}

func (s *onceSeries) WriteSeries(rows []SeriesRow) error {
	if s.calls++; s.calls == s.n {
		panic("series sink")
	}
	s.got[rows[0].Interval] += len(rows)
	return nil
}

// TestOSDWorkerSinkPanicNoRepeat: when the series sink panics, the run
// unwinds with the sink's panic (osdJoin, deferred, writes the samples still
// waiting: it met the marks the panicking write had cleared, a nil pointer,
// and panicked with that instead), and a caller that recovers finds each
// interval at most once in its sink. Write 1 and 2 come before the first
// arrival (no worker yet); write 200, from a batch handed back.
func TestOSDWorkerSinkPanicNoRepeat(t *testing.T) {
	for _, n := range []int{1, 2, 200} {
		s := &onceSeries{n: n, got: map[int64]int{}}
		f := overloadedFleet(t, s, 0.01)
		var p any
		func() {
			defer func() { p = recover() }()
			_ = f.run()
		}()
		if p != "series sink" {
			t.Errorf("panic at write %d: recovered %v, want the sink's panic", n, p)
		}
		for k, rows := range s.got {
			if rows != 3 {
				t.Errorf("panic at write %d: interval %d written %d rows, want 3 (once)", n, k, rows)
				break
			}
		}
	}
}
