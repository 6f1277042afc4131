package sim

import (
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/fleetsim/fleetsim/workload"
)

// failingSource is a self-contained, sized Poisson source of n requests
// that fails (or panics) after yielding its first failAt (-1: never).
type failingSource struct {
	*poissonSource
	n, failAt, i int
	panics       bool
	err          error
}

func newFailing(n, failAt int, panics bool) *failingSource {
	return &failingSource{poissonSource: newPoisson(n, 1000, 50, 3000, 7), n: n, failAt: failAt, panics: panics}
}

func (s *failingSource) Next(r *workload.Request) bool {
	if s.i == s.failAt {
		if s.panics {
			panic(fmt.Sprintf("source broke at request %d", s.i))
		}
		s.err = fmt.Errorf("row %d does not parse", s.i)
		return false
	}
	if !s.poissonSource.Next(r) {
		return false
	}
	s.i++
	return true
}

func (s *failingSource) Err() error      { return s.err }
func (s *failingSource) Len() int64      { return int64(s.n) }
func (s *failingSource) SelfContained()  {}
func (s *failingSource) direct() *hidden { return &hidden{s} }

// hidden shows only workload.Source, so Run reads it directly.
type hidden struct{ src workload.Source }

func (h *hidden) Next(r *workload.Request) bool { return h.src.Next(r) }
func (h *hidden) Err() error                    { return h.src.Err() }

// TestReadAheadSameStream: the read-ahead yields exactly the requests of
// the source read directly, and its error after the same request, whether
// the source ends or fails at a batch boundary, inside a batch, or before
// its first request.
func TestReadAheadSameStream(t *testing.T) {
	b := readAheadBatch
	for _, c := range []struct{ n, failAt int }{
		{readAheadMin, -1}, {3 * b, -1}, {3*b + 1, -1}, {7*b - 5, -1},
		{5 * b, 0}, {5 * b, b}, {5 * b, 2*b + 17}, {5 * b, 5*b - 1}, {readAheadMin, 1},
	} {
		want, wantErr := readAll(newFailing(c.n, c.failAt, false).direct())
		ra := newReadAhead(newFailing(c.n, c.failAt, false))
		if ra == nil {
			t.Fatalf("n %d: not read ahead", c.n)
		}
		var got []workload.Request
		var r workload.Request
		for ra.Next(&r) {
			got = append(got, r)
		}
		if ra.Next(&r) { // the end stays the end
			t.Errorf("n %d fail at %d: a request after the end", c.n, c.failAt)
		}
		ra.stop()
		if !reflect.DeepEqual(got, want) {
			t.Errorf("n %d fail at %d: %d requests read ahead, %d directly (or they differ)", c.n, c.failAt, len(got), len(want))
		}
		if fmt.Sprint(ra.err) != fmt.Sprint(wantErr) {
			t.Errorf("n %d fail at %d: error %v, want %v", c.n, c.failAt, ra.err, wantErr)
		}
	}
}

func readAll(src workload.Source) ([]workload.Request, error) {
	var out []workload.Request
	var r workload.Request
	for src.Next(&r) {
		out = append(out, r)
	}
	return out, src.Err()
}

// TestReadAheadOnlyWhenSafe: sources that do not say they are
// self-contained, or that are not sized, or shorter than readAheadMin, are
// read directly (no goroutine for a one-request run).
func TestReadAheadOnlyWhenSafe(t *testing.T) {
	if newReadAhead(newFailing(readAheadMin, -1, false).direct()) != nil {
		t.Error("a source not marked SelfContained was read ahead")
	}
	if newReadAhead(workload.NewSliceSource(make([]workload.Request, 3*readAheadMin))) != nil {
		t.Error("an unsized source was read ahead")
	}
	before := runtime.NumGoroutine()
	if ra := newReadAhead(newFailing(readAheadMin-1, -1, false)); ra != nil {
		t.Errorf("a source of %d requests was read ahead (min %d)", readAheadMin-1, readAheadMin)
	}
	if ra := newReadAhead(newFailing(1, -1, false)); ra != nil || runtime.NumGoroutine() != before {
		t.Error("a one-request source started a goroutine")
	}
	spec := workload.Spec{CDF: "azure", Rate: 1000, Requests: readAheadMin}
	src, err := workload.NewSource(spec, 1)
	if err != nil {
		t.Fatal(err)
	}
	ra := newReadAhead(src)
	if ra == nil {
		t.Error("a CDF source of readAheadMin requests was not read ahead")
	}
	ra.stop()
}

// TestReadAheadRunIdentical: a run reading its source ahead writes the same
// records and summary as one reading it directly, on a CDF source (every
// request), a trace-like failing source (the same error, after the same
// request), with a time series and with an early stop.
func TestReadAheadRunIdentical(t *testing.T) {
	const n = 3*readAheadBatch + 123
	cfg := fleetCfg(n, 0.2,
		PoolConfig{Name: "short", GPU: "a100", Count: 2, MaxContext: 4096},
		PoolConfig{Name: "long", GPU: "a100", Count: 3, MaxContext: 65536})
	cfg.Workload.Rate = 1000
	run := func(src workload.Source, series bool) (*Summary, []Record, []SeriesRow, error) {
		sink := &memSink{}
		var opts Options
		ms := &memSeries{}
		if series {
			opts.Series = SeriesOptions{Sink: ms, IntervalS: 0.5}
		}
		s, err := Run(cfg, src, sink, opts)
		return s, sink.recs, ms.rows, err
	}
	for _, c := range []struct {
		name   string
		failAt int
		series bool
	}{{"whole", -1, false}, {"whole, series", -1, true}, {"fails in the third batch", 2*readAheadBatch + 5, true}} {
		s1, r1, ts1, err1 := run(newFailing(n, c.failAt, false), c.series)
		s2, r2, ts2, err2 := run(newFailing(n, c.failAt, false).direct(), c.series)
		if fmt.Sprint(err1) != fmt.Sprint(err2) {
			t.Fatalf("%s: error %v read ahead, %v directly", c.name, err1, err2)
		}
		if c.failAt >= 0 && (err1 == nil || !strings.Contains(err1.Error(), fmt.Sprintf("row %d does not parse", c.failAt))) {
			t.Errorf("%s: error %v, want the source's", c.name, err1)
		}
		if err1 != nil {
			continue
		}
		if !reflect.DeepEqual(stripNaN(r1), stripNaN(r2)) || len(r1) != n {
			t.Errorf("%s: %d records read ahead, %d directly (or they differ)", c.name, len(r1), len(r2))
		}
		if summaryText(s1) != summaryText(s2) {
			t.Errorf("%s: summaries differ", c.name)
		}
		if fmt.Sprintf("%v", ts1) != fmt.Sprintf("%v", ts2) {
			t.Errorf("%s: time series differ", c.name)
		}
	}
}

// TestReadAheadEndsOnEveryPath: the producer goroutine has ended when Run
// returns on every path that ends a run before its source: stopped by
// Options.Stop, a failing record sink, a source that fails, or panics (the
// panic reaches Run's caller, as when read directly); and a run halted by
// an enforce-mode detector. The goroutine count is read after each run,
// waiting up to 2 s for it to fall back to the count before.
func TestReadAheadEndsOnEveryPath(t *testing.T) {
	const n = 16 * readAheadBatch
	cfg := fleetCfg(n, 0.1, PoolConfig{Name: "p", GPU: "a10g", Count: 1, MaxContext: 4096})
	cfg.Workload.Rate = 1000
	enforce := cfg
	enforce.OSD = OSDConfig{Mode: OSDEnforce}
	polls := 0
	cases := []struct {
		name string
		cfg  Config
		src  *failingSource
		sink Sink
		stop func() bool
		err  string // "" for a panic, "-" for no error
	}{
		{"stopped", cfg, newFailing(n, -1, false), &memSink{}, func() bool { polls++; return polls > 500 }, ErrStopped.Error()},
		{"record sink fails", cfg, newFailing(n, -1, false), &failSink{n: 50}, nil, "record sink full"},
		{"source fails", cfg, newFailing(n, 2*readAheadBatch+1, false), &memSink{}, nil, "does not parse"},
		{"source panics", cfg, newFailing(n, readAheadBatch+1, true), &memSink{}, nil, ""},
		{"enforce halt", enforce, newFailing(n, -1, false), &memSink{}, nil, "-"},
	}
	for _, c := range cases {
		before := runtime.NumGoroutine()
		polls = 0
		var err error
		var s *Summary
		panicked := func() (p any) {
			defer func() { p = recover() }()
			s, err = Run(c.cfg, c.src, c.sink, Options{Stop: c.stop})
			return nil
		}()
		switch {
		case c.err == "" && panicked == nil:
			t.Errorf("%s: no panic (err %v)", c.name, err)
		case c.err == "" && !strings.Contains(fmt.Sprint(panicked), "source broke at request"):
			t.Errorf("%s: panicked with %v, want the source's panic", c.name, panicked)
		case c.err == "-" && (err != nil || s.OSDStop == nil):
			t.Errorf("%s: err %v, summary %+v: want a halted run", c.name, err, s)
		case c.err != "" && c.err != "-" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: err %v (panic %v), want %q", c.name, err, panicked, c.err)
		}
		if c.src.i >= n {
			t.Errorf("%s: the whole source was read (%d requests): the run did not end early", c.name, c.src.i)
		}
		if after := goroutinesBack(before); after > before {
			t.Errorf("%s: %d goroutines before the run, %d after", c.name, before, after)
		}
	}
}

// goroutinesBack returns the number of goroutines once it has fallen back
// to before, or after 2 s.
func goroutinesBack(before int) int {
	after := runtime.NumGoroutine()
	for wait := 0; after > before && wait < 200; wait++ {
		time.Sleep(10 * time.Millisecond)
		after = runtime.NumGoroutine()
	}
	return after
}

// TestReadAheadPanicsAtSameRequest: a source that panics is re-raised at
// the same request as when read directly: the run has taken every request
// the source yielded before its panic (those of the batch it was filling
// included), so it has written the same records when the panic reaches
// Run's caller. (Review of branch thread: the partial batch was dropped and
// the run panicked up to 4,095 requests early.)
func TestReadAheadPanicsAtSameRequest(t *testing.T) {
	b := readAheadBatch
	for _, failAt := range []int{0, 1, b - 1, b, 2*b + 17, 5*b - 1} {
		ra := newReadAhead(newFailing(5*b, failAt, true))
		n := 0
		p := func() (p any) {
			defer func() { p = recover() }()
			var r workload.Request
			for ra.Next(&r) {
				n++
			}
			return nil
		}()
		ra.stop()
		if p == nil || n != failAt {
			t.Errorf("fail at %d: panic %v after %d requests, want one after %d", failAt, p, n, failAt)
		}
	}
	const n = 3*readAheadBatch + 123
	cfg := fleetCfg(n, 0.2,
		PoolConfig{Name: "short", GPU: "a100", Count: 2, MaxContext: 4096},
		PoolConfig{Name: "long", GPU: "a100", Count: 3, MaxContext: 65536})
	cfg.Workload.Rate = 1000
	run := func(src workload.Source) (recs []Record, p any) {
		sink := &memSink{}
		defer func() { recs, p = sink.recs, recover() }()
		Run(cfg, src, sink, Options{})
		return
	}
	failAt := 2*readAheadBatch + 1000
	r1, p1 := run(newFailing(n, failAt, true))
	r2, p2 := run(newFailing(n, failAt, true).direct())
	if p1 == nil || fmt.Sprint(p1) != fmt.Sprint(p2) {
		t.Errorf("panic %v read ahead, %v directly", p1, p2)
	}
	if !reflect.DeepEqual(stripNaN(r1), stripNaN(r2)) {
		t.Errorf("%d records written before the panic read ahead, %d directly", len(r1), len(r2))
	}
}
