package sim

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/fleetsim/fleetsim/engine"
	"github.com/fleetsim/fleetsim/internal/cputime"
	"github.com/fleetsim/fleetsim/pools/autoscale"
	"github.com/fleetsim/fleetsim/router"
	"github.com/fleetsim/fleetsim/workload"
)

// goid returns the calling goroutine's number (from its stack header).
func goid() string {
	var buf [64]byte
	n := runtime.Stack(buf[:], false)
	return string(bytes.Fields(buf[:n])[1])
}

// concSink is a memSink that allows concurrent writing (ConcurrentSink); it
// fails (or panics) at its failAt-th record (0: never) and notes whether
// any record was written on another goroutine than Run's caller.
type concSink struct {
	memSink
	failAt int
	panics bool
	caller string
	apart  bool
}

func (s *concSink) ConcurrentWrite() {}

func (s *concSink) Write(r *Record) error {
	s.apart = s.apart || goid() != s.caller
	if len(s.recs)+1 == s.failAt {
		if s.panics {
			panic("sink broke")
		}
		return errors.New("disk full")
	}
	return s.memSink.Write(r)
}

// slotSink is a concSink that lends its storage (SlotSink): records are
// built in it and then written as by Write (failing alike).
type slotSink struct {
	*concSink
	slot  Record
	lent  bool
	slots int // records written through WriteSlot
}

func (s *slotSink) Slot() *Record {
	s.slot, s.lent = staleRecord(), true // what a reused slot may hold
	return &s.slot
}

// staleRecord is a record none of whose fields (Ext's included) is zero or
// false: a record built in storage holding it shows any field it leaves
// unset.
func staleRecord() Record {
	var r Record
	var fill func(v reflect.Value)
	fill = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.Struct:
			for i := range v.NumField() {
				fill(v.Field(i))
			}
		case reflect.String:
			v.SetString("stale")
		case reflect.Bool:
			v.SetBool(true)
		case reflect.Int32, reflect.Int64:
			v.SetInt(-7)
		case reflect.Float64:
			v.SetFloat(99)
		default:
			panic("staleRecord: a field of kind " + v.Kind().String())
		}
	}
	fill(reflect.ValueOf(&r).Elem())
	return r
}

func (s *slotSink) WriteSlot() error {
	if !s.lent {
		return errors.New("WriteSlot without Slot")
	}
	s.lent = false
	s.slots++
	return s.Write(&s.slot)
}

// underDeclared declares a tenth of the output it produces for every fifth
// request: the length router sends some to a pool too short for them
// (rejected as misrouted, or retried at a larger pool).
type underDeclared struct{ *poissonSource }

func (s *underDeclared) Next(r *workload.Request) bool {
	if !s.poissonSource.Next(r) {
		return false
	}
	if r.ID%5 == 0 {
		r.MaxOutputTokens = max(1, r.OutputTokens/10)
	}
	return true
}

// recordsRun is one run's outputs, or its error or panic, as text.
type recordsRun struct {
	recs   []Record
	sum    string
	series string
	err    string
}

func runRecords(t *testing.T, cfg Config, n int, concurrent bool, failAt int, panics bool, dt float64) (out recordsRun, apart bool) {
	return runRecordsSlots(t, cfg, n, concurrent, false, failAt, panics, dt)
}

// runRecordsSlots is runRecords, the concurrent sink a SlotSink when slots.
func runRecordsSlots(t *testing.T, cfg Config, n int, concurrent, slots bool, failAt int, panics bool, dt float64) (out recordsRun, apart bool) {
	t.Helper()
	var sink Sink
	cs := &concSink{failAt: failAt, panics: panics, caller: goid()}
	ss := &slotSink{concSink: cs}
	defer func() {
		if slots && out.err == "" && ss.slots == 0 {
			t.Errorf("no record was written through WriteSlot")
		}
	}()
	switch {
	case concurrent && slots:
		sink = ss
	case concurrent:
		sink = cs
	default:
		// The same sink, unmarked: the records are written in place.
		sink = &struct{ Sink }{cs}
	}
	ms := &memSeries{}
	opts := Options{}
	if dt > 0 {
		opts.Series = SeriesOptions{Sink: ms, IntervalS: dt}
	}
	before := runtime.NumGoroutine()
	defer func() {
		if after := goroutinesBack(before); after > before {
			t.Errorf("%d goroutines before the run, %d after", before, after)
		}
	}()
	func() {
		defer func() {
			if p := recover(); p != nil {
				out.err = fmt.Sprint("panic: ", p)
			}
		}()
		s, err := Run(cfg, &underDeclared{newPoisson(n, cfg.Workload.Rate, 50, 12000, 5)}, sink, opts)
		if err != nil {
			out.err = err.Error()
			return
		}
		out.sum = summaryText(s)
	}()
	out.recs = stripNaN(cs.recs)
	out.series = fmt.Sprintf("%v", ms.rows)
	return out, cs.apart
}

// TestRecordsApartIdentical: writing the records on a goroutine of their
// own (a ConcurrentSink) gives the same records, summary and time series as
// writing them in place, and the same error or panic: served and rejected
// requests (a full queue, misrouted ones retried), warm-up from none to
// most, with and without a time series, an enforce-mode halt, a sink that
// fails or panics mid-run; the writer's goroutine has ended when Run
// returns, or panics. A SlotSink, whose storage holds a stale record when
// lent, gets the same records and errors built in it. The records must really be written apart, and an
// autoscaled run (whose controller reads them) in place.
func TestRecordsApartIdentical(t *testing.T) {
	const n = 6000
	two := func(warm float64) Config {
		cfg := fleetCfg(n, warm,
			PoolConfig{Name: "short", GPU: "a100", Count: 2, MaxContext: 4096},
			PoolConfig{Name: "long", GPU: "a100", Count: 4, MaxContext: 65536})
		cfg.Workload.Rate = 200
		return cfg
	}
	limited := two(0.2)
	limited.Pools[0].QueueLimit = 5
	retry := two(0.3)
	retry.Router = RouterConfig{Config: router.Config{Kind: RouterLength}, RetryDelayS: 0.25}
	over, _ := overloadedCfg()
	over.Workload.Requests = n
	enforce := over
	enforce.OSD = OSDConfig{Mode: OSDEnforce}
	for _, c := range []struct {
		name   string
		cfg    Config
		dt     float64
		failAt int
		panics bool
		want   string // in the error, "" for none
	}{
		{"warm-up 0", two(0), 0, 0, false, ""},
		{"warm-up 0.2, series", two(0.2), 0.5, 0, false, ""},
		{"warm-up 0.9, series", two(0.9), 0.25, 0, false, ""},
		{"queue limit: rejections, series", limited, 0.5, 0, false, ""},
		{"retries at a larger pool", retry, 1, 0, false, ""},
		{"overloaded, series", over, 1, 0, false, ""},
		{"enforce halt, series", enforce, 1, 0, false, ""},
		{"sink fails", two(0.2), 0.5, 2500, false, "writing request"},
		{"sink fails at the first record", two(0.2), 0, 1, false, "disk full"},
		{"sink panics", two(0.2), 0.5, 4500, true, "panic: sink broke"},
	} {
		want, _ := runRecords(t, c.cfg, n, false, c.failAt, c.panics, c.dt)
		got, apart := runRecords(t, c.cfg, n, true, c.failAt, c.panics, c.dt)
		// Built in a SlotSink's storage: the same again (a failed run's
		// summary and series are discarded, and how far its series got
		// depends on when the simulation saw the failure).
		slotted, _ := runRecordsSlots(t, c.cfg, n, true, true, c.failAt, c.panics, c.dt)
		if c.want != "" {
			slotted.sum, slotted.series = got.sum, got.series
		}
		if !reflect.DeepEqual(slotted, got) {
			t.Errorf("%s: through Slot and WriteSlot: %d records, error %q; through Write %d, %q (or they differ)",
				c.name, len(slotted.recs), slotted.err, len(got.recs), got.err)
		}
		rej := 0
		for _, r := range want.recs {
			if r.Rejected {
				rej++
			}
		}
		retried := 0
		for _, r := range want.recs {
			if r.Retries > 0 {
				retried++
			}
		}
		t.Logf("%s: %d records, %d rejected, %d retried, err %q, halted %v", c.name, len(want.recs), rej, retried, want.err, strings.Contains(want.sum, "By:"))
		if !apart {
			t.Errorf("%s: the records were written in place", c.name)
		}
		if got.err != want.err {
			t.Errorf("%s: error %q apart, %q in place", c.name, got.err, want.err)
		}
		if c.want != "" && !strings.Contains(want.err, c.want) {
			t.Errorf("%s: error %q, want %q", c.name, want.err, c.want)
		}
		if c.want == "" && want.err != "" {
			t.Errorf("%s: %s", c.name, want.err)
		}
		if !reflect.DeepEqual(got.recs, want.recs) {
			t.Errorf("%s: %d records apart, %d in place (or they differ)", c.name, len(got.recs), len(want.recs))
		}
		if c.want != "" {
			continue // a failed run's other outputs are discarded
		}
		if got.sum != want.sum {
			t.Errorf("%s: summaries differ:\n%s\n%s", c.name, got.sum, want.sum)
		}
		if got.series != want.series {
			t.Errorf("%s: time series differ", c.name)
		}
	}
	// An autoscaled run writes its records in place.
	scaled := two(0.2)
	scaled.Pools[1].ScalingBlock = &PoolScaling{MinInstances: ip(1), MaxInstances: ip(0), StartupS: fp(2)}
	scaled.Autoscale = &autoscale.Config{Policy: autoscale.PolicyThreshold, IntervalS: 1, Metric: autoscale.MetricQueue, Target: 2}
	if _, apart := runRecords(t, scaled, n, true, 0, false, 0); apart {
		t.Error("an autoscaled run wrote its records apart")
	}
	// A short run writes them in place (no goroutine).
	short := two(0.2)
	short.Workload.Requests = recApartMin - 1
	cs := &concSink{caller: goid()}
	if _, err := Run(short, newPoisson(recApartMin-1, 200, 50, 4000, 5), cs, Options{}); err != nil {
		t.Fatal(err)
	}
	if cs.apart || len(cs.recs) != recApartMin-1 {
		t.Errorf("a run of %d requests: written apart %v, %d records", recApartMin-1, cs.apart, len(cs.recs))
	}
}

// TestFlightLayout: a flight fills whole cache lines (192 bytes, a size
// class whose objects start on a 64-byte boundary) and the fields the
// record side reads (setServed) lie in its first two lines.
func TestFlightLayout(t *testing.T) {
	ty := reflect.TypeOf(flight{})
	if ty.Size() != 192 {
		t.Errorf("flight is %d bytes, want 192", ty.Size())
	}
	for _, name := range []string{"pool", "arrivalPS", "instance", "estimated", "retries", "dg", "warmup", "compressed", "req"} {
		f, _ := ty.FieldByName(name)
		if end := f.Offset + f.Type.Size(); end > 128 {
			t.Errorf("flight.%s ends at byte %d, past the second cache line", name, end)
		}
	}
	if f, _ := ty.FieldByName("req"); f.Offset != 64 {
		t.Errorf("flight.req at byte %d, want 64 (the second line)", f.Offset)
	}
}

// TestRecEntrySize: an entry of the record side is two cache lines.
func TestRecEntrySize(t *testing.T) {
	if n := reflect.TypeOf(recEntry{}).Size(); n != 128 {
		t.Errorf("recEntry is %d bytes, want 128", n)
	}
}

// TestRejectionBytes bounds the heap a rejected request allocates when the
// record side runs apart (a nil sink, enough requests): its record travels
// in storage reused with its batch, so what is left per request is the
// rejection's detail string (misrouted: "N tokens > max_ctx M of pool p",
// fmt.Sprintf: 48 bytes and its boxed arguments, ~80 bytes) and the run's
// fixed costs spread over 400,000 requests. Those include the record
// batches, made as the writer falls behind (recwriter.go): from one (128
// KiB of entries and 200 KiB of rejections' records) to recBatches (10.5
// MB, 26 bytes a request here).
// An overloaded pool can reject most of millions of requests (issue 20:
// `--pool a:a10g:1:2048 --rate 1000 --requests 10000000`, where a record
// allocated per rejection, 200 bytes, was garbage that raised the peak
// RSS past 512 MiB).
func TestRejectionBytes(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's allocations are counted too (205-210 bytes per rejection under -race)")
	}
	const n = 400_000
	cfg := fleetCfg(n, 0.1, PoolConfig{Name: "p", GPU: "a10g", Count: 1, MaxContext: 2048})
	cfg.Workload.Rate = 1000
	cfg.OSD.Mode = OSDOff                     // its windows' growth is a cost per run, not per request
	src := newPoisson(n, 1000, 4000, 6000, 7) // prompts of 3,200-4,800 tokens: all misrouted
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	s, err := Run(cfg, src, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if s.Fleet.Rejected < n*8/10 {
		t.Fatalf("%d of %d requests rejected: the test needs most rejected", s.Fleet.Rejected, n)
	}
	per := float64(after.TotalAlloc-before.TotalAlloc) / n
	t.Logf("%.1f bytes allocated per request (%d rejected)", per, s.Fleet.Rejected)
	if per > 160 {
		t.Errorf("%.1f bytes allocated per rejected request; want at most 160 (the detail string; a Record is 200 more)", per)
	}
}

// BenchmarkRecServed measures recSide.served alone: one served result's
// record built in a sink's row and the accumulators, per op. The rows are
// those of a ring as large as the Parquet sink's batches in flight (64 ×
// 1,024 rows, some 14 MiB), used in turn, so that a row is cold when built,
// as in a run (rows=65536), or of one batch (rows=1024), in the cache; the
// entries are a batch's (1,024), in the cache.
func BenchmarkRecServed(b *testing.B) {
	p := &pool{cfg: PoolConfig{Name: "short"}, m: newAcc()}
	fm := newAcc()
	s := &recSide{fm: &fm, win: recWindow{started: true}}
	ents := make([]recEntry, 1024)
	for i := range ents {
		e := &ents[i]
		setServedTest(e, p, int64(i), i)
	}
	for _, ring := range []int{64 * 1024, 1024} {
		b.Run(fmt.Sprintf("rows=%d", ring), func(b *testing.B) { benchServed(b, s, ents, make([]Record, ring)) })
	}
}

func benchServed(b *testing.B, s *recSide, ents []recEntry, rows []Record) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	b.ResetTimer()
	cpu0, ok0 := cputime.Thread()
	for i := 0; b.Loop(); i++ {
		s.served(&ents[i%len(ents)], &rows[i%len(rows)])
	}
	if cpu1, ok := cputime.Thread(); ok && ok0 {
		b.ReportMetric((cpu1-cpu0)*1e9/float64(b.N), "thread-cpu-ns/op")
	}
}

// setServedTest fills e as a served result of pool p (request id, its
// times varied by k).
func setServedTest(e *recEntry, p *pool, id int64, k int) {
	e.kind = entServed
	e.pool = p
	e.id = id
	e.arrival = engine.Time(k) * 1e9
	e.adm = e.arrival + engine.Time(k%7)*1e8
	e.first = e.adm + 3e10
	e.fin = e.first + engine.Time(k%50+1)*2e10
	e.outTokens = k%50 + 2
	e.served, e.origIn = int32(k%4000+10), int32(k%4000+10)
}
