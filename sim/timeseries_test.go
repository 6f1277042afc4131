package sim

import (
	"fmt"
	"math"
	"testing"

	"github.com/fleetsim/fleetsim/workload"
)

// memSeries keeps every time-series row.
type memSeries struct{ rows []SeriesRow }

func (m *memSeries) WriteSeries(rows []SeriesRow) error {
	m.rows = append(m.rows, rows...)
	return nil
}

// runSeries runs cfg on the workload package's source, with a time series
// of interval dt when dt > 0.
func runSeries(t *testing.T, cfg Config, dt float64) ([]Record, *Summary, []SeriesRow) {
	t.Helper()
	src, err := workload.NewSource(cfg.Workload, cfg.Seed)
	if err != nil {
		t.Fatal(err)
	}
	sink := &memSink{}
	var opts Options
	ms := &memSeries{}
	if dt > 0 {
		opts.Series = SeriesOptions{Sink: ms, IntervalS: dt}
	}
	s, err := Run(cfg, src, sink, opts)
	if err != nil {
		t.Fatal(err)
	}
	return sink.recs, s, ms.rows
}

// summaryText prints a summary with its pointers followed (NaN prints as
// NaN, so two summaries compare as text).
func summaryText(s *Summary) string {
	out := fmt.Sprintf("%+v|%v|%v|%v|%v|%+v", s.Config, s.Requests, s.SimTimeS, s.WindowStartS, s.WindowEndS, s.OSDStop)
	if s.OSDStop != nil {
		out += fmt.Sprintf("%+v", *s.OSDStop)
	}
	for _, m := range append([]PoolMetrics{s.Fleet}, s.Pools...) {
		at := m.OSD.FiredAtS
		m.OSD.FiredAtS = nil
		out += fmt.Sprintf("|%+v", m)
		if at != nil {
			out += fmt.Sprintf(" fired at %v", *at)
		}
	}
	return out
}

// TestSeriesDoesNotChangeRun: recording a time series only observes. Records
// and summaries are identical with and without it, under every dispatch
// mode, for an interval much shorter than the sampling tick (0.05 s: the
// recorder's boundary steps fall between arrivals) and one longer (1 s), in
// a loaded fleet where dispatch depends on the state every instance shows;
// and for a run an enforce-mode detector stops (the stop falls at the same
// record and time).
func TestSeriesDoesNotChangeRun(t *testing.T) {
	for _, mode := range []string{DispatchCentral, DispatchJSQ, DispatchRR} {
		cfg := Defaults()
		cfg.Timing = "kv"
		cfg.Workload = workload.Spec{CDF: "azure", Rate: 300, Requests: 6_000}
		cfg.Pools = []PoolConfig{
			{Name: "short", GPU: "a100", Count: 6, MaxContext: 4096, Dispatch: mode},
			{Name: "long", GPU: "a100", Count: 10, MaxContext: 65536, Dispatch: mode},
		}
		compareSeriesRuns(t, mode, cfg, 0.05, 1)
	}
	enf := a10gCfg(40, 3000, 0, OSDEnforce)
	enf.Workload.CDF = "../testdata/uniform-50-2000.json"
	compareSeriesRuns(t, "osd enforce", enf, 0.05, 1)
}

func compareSeriesRuns(t *testing.T, name string, cfg Config, dts ...float64) {
	t.Helper()
	base, bs, _ := runSeries(t, cfg, 0)
	for _, dt := range dts {
		got, gs, rows := runSeries(t, cfg, dt)
		if len(rows) == 0 {
			t.Errorf("%s, interval %v s: no time-series row", name, dt)
		}
		if len(got) != len(base) {
			t.Fatalf("%s, interval %v s: %d records, want %d", name, dt, len(got), len(base))
		}
		want, have := stripNaN(base), stripNaN(got)
		diff := 0
		for i := range have {
			if want[i] != have[i] {
				diff++
			}
		}
		if diff > 0 {
			t.Errorf("%s, interval %v s: %d of %d records differ from the run without a time series", name, dt, diff, len(got))
		}
		if a, b := summaryText(bs), summaryText(gs); a != b {
			t.Errorf("%s, interval %v s: summary differs:\n%s\n%s", name, dt, a, b)
		}
	}
}

// TestSeriesCountsAddUp: on the default scenario (kv timing, 20,000
// requests), the per-interval counts add up to the summary's: fleet
// arrivals to requests, post-warm-up arrivals to arrived (fleet and every
// pool), completions and rejections to the records; every interval is on the
// grid, gauges within the pools' capacity.
func TestSeriesCountsAddUp(t *testing.T) {
	cfg := PapersDefaults() // its slot counts below are the papers' fleet's
	cfg.Timing = "kv"
	cfg.Workload.Requests = 20_000
	recs, s, rows := runSeries(t, cfg, DefaultSeriesIntervalS)
	np := len(cfg.Pools) + 1
	if len(rows)%np != 0 {
		t.Fatalf("%d rows, not a multiple of %d (pools + fleet)", len(rows), np)
	}
	type tot struct{ arr, warm, done, rej int64 }
	sums := map[int]*tot{}
	for i, r := range rows {
		k := int64(i / np)
		if r.Interval != k || r.StartS != float64(k) || r.EndS != float64(k+1) {
			t.Fatalf("row %d: interval %d [%v, %v), want %d [%d, %d)", i, r.Interval, r.StartS, r.EndS, k, k, k+1)
		}
		if r.KVBlocksUsed < 0 || r.KVBlocksUsed > r.KVBlocksTotal || r.Queue < 0 || r.Running < 0 || r.Running > r.Slots {
			t.Fatalf("row %d: gauges out of range: %+v", i, r)
		}
		if (r.Completions == 0) != math.IsNaN(r.TTFTP50S) || r.TTFTP99S < r.TTFTP50S {
			t.Fatalf("row %d: TTFT P50 %v P99 %v with %d completions", i, r.TTFTP50S, r.TTFTP99S, r.Completions)
		}
		s := sums[r.PoolIndex]
		if s == nil {
			s = &tot{}
			sums[r.PoolIndex] = s
		}
		s.arr += r.Arrivals
		s.warm += r.WarmupArrivals
		s.done += r.Completions
		s.rej += r.Rejections
	}
	// The default fleet: short 43 a100 × 256 sequences, long 131 × 16
	// (the table of the default run, docs/cli.md).
	if rows[0].Slots != 43*256 || rows[1].Slots != 131*16 || rows[2].Slots != 43*256+131*16 {
		t.Errorf("slots %d, %d, fleet %d; want 11008, 2096, 13104", rows[0].Slots, rows[1].Slots, rows[2].Slots)
	}
	last := rows[len(rows)-1]
	if last.EndS < s.SimTimeS || last.StartS > s.SimTimeS {
		t.Errorf("last interval [%v, %v) does not hold the end of the run %v s", last.StartS, last.EndS, s.SimTimeS)
	}
	f := sums[-1]
	if f.arr != s.Requests || f.arr-f.warm != s.Fleet.Arrived {
		t.Errorf("fleet: %d arrivals (%d warm-up), summary: %d requests, %d arrived", f.arr, f.warm, s.Requests, s.Fleet.Arrived)
	}
	var served, rejected int64
	for _, r := range recs {
		if r.Rejected {
			rejected++
		} else {
			served++
		}
	}
	if f.done != served || f.rej != rejected {
		t.Errorf("fleet: %d completions, %d rejections; records: %d served, %d rejected", f.done, f.rej, served, rejected)
	}
	for i, m := range s.Pools {
		p := sums[i]
		if p.arr-p.warm != m.Arrived {
			t.Errorf("pool %s: %d post-warm-up arrivals, summary arrived %d", m.Name, p.arr-p.warm, m.Arrived)
		}
	}
	t.Logf("%d intervals; fleet arrivals %d = requests %d; post-warm-up %d = arrived %d", len(rows)/np, f.arr, s.Requests, f.arr-f.warm, s.Fleet.Arrived)
}

// TestWindowSketch: the windowed sketch gives the full sketch's quantiles
// and forgets everything at reset.
func TestWindowSketch(t *testing.T) {
	w := windowSketch{s: newSketch()}
	w.reset()
	full := newSketch()
	for i := 1; i <= 1000; i++ {
		v := float64(i) * 0.001
		w.add(v)
		full.add(v)
	}
	for _, q := range []float64{0.5, 0.99} {
		if a, b := w.quantile(q), full.quantile(q); a != b {
			t.Errorf("q%v: window %v, full %v", q, a, b)
		}
	}
	w.reset()
	if !math.IsNaN(w.quantile(0.5)) {
		t.Error("reset sketch not empty")
	}
	w.add(2)
	// A single value: both quantiles are its bucket's midpoint, within
	// SketchRelativeError of it.
	if q := w.quantile(0.99); math.Abs(q-2) > 2*SketchRelativeError {
		t.Errorf("after reset, one value 2: P99 %v", q)
	}
	for _, c := range w.s.counts[:w.lo] {
		if c != 0 {
			t.Fatal("a bucket below lo still counts after reset")
		}
	}
}

// TestSeriesFleetQuantiles: the fleet rows' TTFT P50 and P99 and TPOT P99
// (sumQuantiles over the pools' window sketches) are, with one pool, that
// pool's row's, bit for bit; with two, each lies between the pools' (a
// quantile of the union of two samples lies between theirs), and is NaN
// exactly when no request completed in the interval.
func TestSeriesFleetQuantiles(t *testing.T) {
	for _, npools := range []int{1, 2} {
		cfg := PapersDefaults()
		cfg.Timing = "kv"
		cfg.Workload.Requests = 20_000
		if npools == 1 {
			cfg.Pools = cfg.Pools[1:] // long: serves every request
		}
		_, _, rows := runSeries(t, cfg, 0.25)
		np := npools + 1
		checked := 0
		for k := 0; k+np <= len(rows); k += np {
			pools, fleet := rows[k:k+npools], rows[k+npools]
			if fleet.PoolIndex != -1 {
				t.Fatalf("row %d: pool index %d, want the fleet's", k+npools, fleet.PoolIndex)
			}
			for _, q := range []struct {
				name string
				of   func(r *SeriesRow) float64
			}{
				{"TTFT P50", func(r *SeriesRow) float64 { return r.TTFTP50S }},
				{"TTFT P99", func(r *SeriesRow) float64 { return r.TTFTP99S }},
				{"TPOT P99", func(r *SeriesRow) float64 { return r.TPOTP99S }},
			} {
				got := q.of(&fleet)
				lo, hi := math.Inf(1), math.Inf(-1)
				for i := range pools {
					if v := q.of(&pools[i]); pools[i].Completions > 0 {
						lo, hi = min(lo, v), max(hi, v)
					}
				}
				if npools == 1 && math.Float64bits(got) != math.Float64bits(q.of(&pools[0])) ||
					fleet.Completions == 0 && !math.IsNaN(got) || fleet.Completions > 0 && !(got >= lo && got <= hi) {
					t.Fatalf("%d pools, interval %d: the fleet's %s %v with %d completions; the pools' in [%v, %v]",
						npools, fleet.Interval, q.name, got, fleet.Completions, lo, hi)
				}
				if fleet.Completions > 0 {
					checked++
				}
			}
		}
		if checked < 100 {
			t.Errorf("%d pools: %d quantiles checked, want many", npools, checked)
		}
	}
}
