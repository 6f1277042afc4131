package sim

import (
	"fmt"
	"math"

	"github.com/fleetsim/fleetsim/engine"
)

// The time series of a run: per pool (and for the whole fleet) per interval
// of simulated time, what arrived, what left and the pool's state at the
// interval's end. docs/report.md documents the columns (timeseries.parquet).
//
// How it observes without changing the run. The recorder does not put
// events on the calendar. Whenever the fleet steps to a time t (an arrival,
// a sampling tick, a delayed delivery), it first steps to every interval
// boundary b <= t it has not sampled yet, and samples the pools there.
// Stepping to b then to t is stepping to t: the engines advance in closed
// form to any time, results are emitted in (finish time, ID) order up to
// each step, the router only reads its state when it routes an arrival and
// the over-saturation detectors are fed the same events in the same time
// order; no halt check runs inside a step. After the last calendar event the
// drain is stepped boundary by boundary the same way (seriesDrain), stopping
// at the record that raises an enforce-mode alert exactly as the plain drain
// does. So requests.parquet and summary.json are byte-identical with and
// without a time series (TestSeriesDoesNotChangeRun).
//
// Counts go to the interval open when the event is handled: an arrival at
// exactly a boundary b opens the interval [b, b+Δ), a completion at b closes
// [b−Δ, b] (the fleet steps to b, emitting it, before it handles the
// arrival). Gauges (queue, running, KV blocks) are the pools' state at the
// interval's end, as the engines last reported it (the end of their last
// iteration at or before it).
//
// Memory is bounded: one row per pool plus the fleet's is kept, handed to
// the SeriesSink when its interval closes; the window TTFT sketch clears
// only the buckets it touched.
//
// Adding a column (issue #17 adds instance counts, B_short, OSD state, cost
// per interval): add a field to SeriesRow (documented with its unit), fill
// it in seriesSample from the pool's state at the boundary (a gauge) or in
// one of the hooks below (a counter, reset by open), and map it in
// sim/export's SeriesParquetRow (NewSeriesParquetRow). Nothing else changes:
// rows flow to the sink as they are.

// SeriesFleet is the Pool of the fleet-wide rows of a time series.
const SeriesFleet = "fleet"

// SeriesRow is one row of a run's time series: one pool (PoolIndex, in
// Config.Pools order) or the whole fleet (PoolIndex −1, Pool SeriesFleet)
// over the interval [StartS, EndS) of simulated time, s.
type SeriesRow struct {
	Interval  int64   // k: the interval is [k·Δ, (k+1)·Δ)
	StartS    float64 // k·Δ, s
	EndS      float64 // (k+1)·Δ, s (the stop time for the last interval of a stopped run)
	Pool      string  // pool name, or SeriesFleet
	PoolIndex int     // index in Config.Pools, −1 for the fleet
	// Arrivals are the requests that arrived in the interval (for a pool:
	// were delivered to it, retries included; for the fleet: arrived at
	// the router), warm-up ones included; WarmupArrivals counts those.
	Arrivals       int64
	WarmupArrivals int64
	// Completions and Rejections count the records emitted in the interval:
	// requests served to their last token and requests rejected.
	Completions int64
	Rejections  int64
	// Queue is the number of requests waiting (not yet admitted) at EndS;
	// Running the sequences in running batches, of Slots (instances × the
	// most sequences an instance runs at once); KVBlocksUsed and
	// KVBlocksTotal the pool's 16-token KV blocks in use and in all.
	Queue         int64
	Running       int64
	Slots         int64
	KVBlocksUsed  int64
	KVBlocksTotal int64
	// TTFTP50S and TTFTP99S are quantiles of the TTFT of the requests
	// completed in the interval, s (the run's sketch, within
	// SketchRelativeError); NaN when none completed.
	TTFTP50S float64
	TTFTP99S float64
	// The columns of a day (docs/day.md; scaling.go). RateRPS is Arrivals
	// per second of the interval; TPOTP99S the P99 TPOT of its completions
	// (NaN when none) and SLOAttainment the fraction of them meeting both
	// SLO targets (NaN when none). Starting, Serving and Draining count the
	// pool's instances at EndS (a fixed pool: all serving). BShort is the
	// router's B_short at EndS, tokens (−1: no adaptive threshold);
	// OSDAlert the over-saturation detector's alert at EndS (1 raised, 0
	// not, −1 detector off). GPUHours and CostUSD are cumulative from the
	// start of the run to EndS (NaN for a run without scaling accounting).
	RateRPS                     float64
	TPOTP99S                    float64
	SLOAttainment               float64
	Starting, Serving, Draining int64
	BShort                      int64
	OSDAlert                    int8
	GPUHours                    float64
	CostUSD                     float64
}

// SeriesSink receives a time series as it is recorded: for each interval in
// time order, one row per pool (Config.Pools order) then the fleet's row.
// WriteSeries must not keep rows after it returns.
type SeriesSink interface {
	WriteSeries(rows []SeriesRow) error
}

// SeriesOptions ask Run for a time series (Options.Series).
type SeriesOptions struct {
	// Sink receives the rows; nil records no time series.
	Sink SeriesSink
	// IntervalS is the interval's length Δ, s of simulated time, > 0.
	IntervalS float64
}

// DefaultSeriesIntervalS is the time series' default interval, s.
const DefaultSeriesIntervalS = 1.0

// MinSeriesIntervalS is the shortest interval simulate accepts, s: a finer
// grid makes rows faster than the run makes requests (1 ns over a
// 20-second run is 2·10¹⁰ intervals, a run that does not end).
const MinSeriesIntervalS = 1e-3

// series is the recorder's state.
type series struct {
	dt   float64
	k    int64 // the open interval
	next float64
	busy bool // stepping to a boundary (the step it makes must not recurse)
	sink SeriesSink
	acc  []seriesAcc // per pool, then the fleet
	// The pools' window sketches, whose sums are the fleet's.
	ttfts, tpots []*windowSketch
	rows         []SeriesRow
}

// seriesAcc accumulates one pool's (or the fleet's) open interval.
type seriesAcc struct {
	arrivals, warmup, completions, rejections int64
	ttft                                      windowSketch
	tpot                                      windowSketch
	met                                       int64 // completions meeting both SLO targets
}

// windowSketch is a sketch cleared at every interval: it remembers the range
// of buckets it touched, so clearing and reading cost that range.
type windowSketch struct {
	s      sketch
	lo, hi int
}

func (w *windowSketch) add(v float64) { w.addIndex(sketchIndex(v)) }

// addIndex records a value by its bucket (sketchIndex).
func (w *windowSketch) addIndex(i int) {
	if i >= 0 {
		w.lo, w.hi = min(w.lo, i), max(w.hi, i)
	}
	w.s.addIndex(i)
}

func (w *windowSketch) quantile(q float64) float64 {
	if w.s.n == 0 {
		return math.NaN()
	}
	rank := min(max(uint64(math.Ceil(q*float64(w.s.n))), 1), w.s.n)
	return w.s.rankIn(rank, w.lo, w.hi)
}

// sumQuantiles sets out[k] to the qs[k]-quantile (qs ascending) of the
// sum of the window sketches ws, as windowSketch.quantile of one sketch
// holding all their values gives it (NaN when they hold none): bucket by
// bucket its counts are the sums of theirs. One pass serves every quantile.
func sumQuantiles(ws []*windowSketch, qs, out []float64) {
	var n, zero uint64
	lo, hi := sketchBuckets, -1
	for _, w := range ws {
		n, zero = n+w.s.n, zero+w.s.zero
		lo, hi = min(lo, w.lo), max(hi, w.hi)
	}
	if n == 0 {
		for k := range out {
			out[k] = math.NaN()
		}
		return
	}
	k, seen := 0, zero
	for ; k < len(qs) && seen >= quantileRank(qs[k], n); k++ {
		out[k] = 0
	}
	for b := lo; b <= hi && k < len(qs); b++ {
		for _, w := range ws {
			seen += w.s.counts[b]
		}
		for ; k < len(qs) && seen >= quantileRank(qs[k], n); k++ {
			out[k] = bucketValue(b)
		}
	}
	for ; k < len(qs); k++ {
		out[k] = SketchMaxS
	}
}

func (w *windowSketch) reset() {
	if w.lo <= w.hi {
		clear(w.s.counts[w.lo : w.hi+1])
	}
	w.s.zero, w.s.n = 0, 0
	w.lo, w.hi = sketchBuckets, -1
}

func newSeries(o SeriesOptions, pools []*pool) (*series, error) {
	if o.Sink == nil {
		return nil, nil
	}
	if !(o.IntervalS > 0) || math.IsInf(o.IntervalS, 0) {
		return nil, fmt.Errorf("timeseries interval %v s: must be a finite number > 0", o.IntervalS)
	}
	s := &series{dt: o.IntervalS, next: o.IntervalS, sink: o.Sink}
	s.acc = make([]seriesAcc, len(pools)+1)
	s.rows = make([]SeriesRow, len(pools)+1)
	for i, p := range pools {
		s.rows[i].Pool, s.rows[i].PoolIndex = p.cfg.Name, i
	}
	s.rows[len(pools)].Pool, s.rows[len(pools)].PoolIndex = SeriesFleet, -1
	for i := range s.acc {
		a := &s.acc[i]
		a.ttft.lo, a.ttft.hi, a.tpot.lo, a.tpot.hi = sketchBuckets, -1, sketchBuckets, -1 // empty
		if i < len(pools) {                                                               // the fleet's stay empty: fill sums the pools'
			a.ttft.s, a.tpot.s = newSketch(), newSketch()
			s.ttfts, s.tpots = append(s.ttfts, &a.ttft), append(s.tpots, &a.tpot)
		}
	}
	return s, nil
}

// seriesArrive counts an arrival at pool p (nil: at the fleet).
func (f *fleet) seriesArrive(p *pool, warmup bool) {
	s := f.ts
	a := &s.acc[len(s.acc)-1]
	if p != nil {
		a = &s.acc[p.order]
	}
	a.arrivals++
	if warmup {
		a.warmup++
	}
}

// seriesRecord counts a record leaving the fleet from pool p (every record
// is counted once, as it is handed to the record side): rejected, or served
// with the given TTFT and TPOT, s. It counts it in the pool's row only: the
// fleet's completions, rejections and sketches are the sums of the pools'
// (fill).
func (f *fleet) seriesRecord(p *pool, rejected bool, ttft, tpot float64) {
	a := &f.ts.acc[p.order]
	if rejected {
		a.rejections++
		return
	}
	slo := &f.cfg.SLO
	if (slo.TTFTS <= 0 || ttft <= slo.TTFTS) && (slo.TPOTS <= 0 || tpot <= slo.TPOTS) {
		a.met++
	}
	a.completions++
	a.ttft.addIndex(sketchIndex(ttft))
	a.tpot.addIndex(sketchIndex(tpot))
}

// seriesUpTo steps the fleet to every unsampled boundary at or before t and
// samples it (the hook at the top of fleet.step).
func (f *fleet) seriesUpTo(t float64) {
	s := f.ts
	if s.busy {
		return
	}
	for s.next <= t && f.err == nil {
		b := s.next
		s.busy = true
		f.step(b)
		s.busy = false
		f.seriesSample(b)
	}
}

// seriesDrain steps the drain (after the last calendar event) interval by
// interval, sampling each boundary, until nothing is left in flight, the
// run's time range ends (the plain drain then finishes) or an enforce-mode
// alert stops the run. Emission stops after the record that raised the
// alert, as in emitDrain.
func (f *fleet) seriesDrain() {
	s := f.ts
	if s == nil {
		return
	}
	for f.err == nil && !f.halted() && f.inFlight() {
		b := s.next
		tp := engine.Seconds(b)
		if tp >= engine.Never {
			return
		}
		f.now = b
		f.advancePools(tp)
		if f.emitDrain(tp) {
			return
		}
		f.seriesSample(b)
	}
}

// inFlight reports whether a result waits to be emitted or an engine has
// work left.
func (f *fleet) inFlight() bool {
	if f.pend.len() > 0 {
		return true
	}
	for _, p := range f.pools {
		if _, k := p.events.top(); engine.Time(k) != engine.Never {
			return true
		}
	}
	return false
}

// seriesSample closes the open interval at its end b: reads the pools'
// state, hands the rows to the sink and opens the next interval.
func (f *fleet) seriesSample(b float64) {
	s := f.ts
	s.fill(f, b)
	if f.osd != nil && f.osd.w != nil {
		f.osdMarkSample(s.rows) // osdasync.go: written once the detectors have passed b
	} else if err := s.sink.WriteSeries(s.rows); err != nil {
		f.fail(fmt.Errorf("writing the time series: %w", err))
	}
	s.k++
	s.next = float64(s.k+1) * s.dt
}

// fill sets the rows of the open interval, ending at end.
func (s *series) fill(f *fleet, end float64) {
	fleet := &s.rows[len(s.rows)-1]
	*fleet = SeriesRow{Pool: SeriesFleet, PoolIndex: -1}
	// The fleet's counts and quantiles from the pools' (seriesRecord), read
	// before the loop resets them.
	pools := s.acc[:len(s.acc)-1]
	fa := &s.acc[len(s.acc)-1]
	for i := range pools {
		a := &pools[i]
		fa.completions += a.completions
		fa.rejections += a.rejections
		fa.met += a.met
	}
	var ttft [2]float64
	var tpot [1]float64
	sumQuantiles(s.ttfts, []float64{0.50, 0.99}, ttft[:])
	sumQuantiles(s.tpots, []float64{0.99}, tpot[:])
	for i := range s.rows {
		r := &s.rows[i]
		if i < len(f.pools) {
			p := f.pools[i]
			*r = SeriesRow{Pool: p.cfg.Name, PoolIndex: i,
				Queue: int64(p.waiting()), Running: int64(p.running), Slots: int64(p.ecfg.MaxSeqs * p.instances()),
				KVBlocksUsed: int64(p.totalBlocks - p.freeBlocks), KVBlocksTotal: int64(p.totalBlocks)}
			fleet.Queue += r.Queue
			fleet.Running += r.Running
			fleet.Slots += r.Slots
			fleet.KVBlocksUsed += r.KVBlocksUsed
			fleet.KVBlocksTotal += r.KVBlocksTotal
		}
		a := &s.acc[i]
		r.Interval, r.StartS, r.EndS = s.k, float64(s.k)*s.dt, end
		r.Arrivals, r.WarmupArrivals = a.arrivals, a.warmup
		r.Completions, r.Rejections = a.completions, a.rejections
		if a == fa {
			r.TTFTP50S, r.TTFTP99S, r.TPOTP99S = ttft[0], ttft[1], tpot[0]
		} else {
			r.TTFTP50S, r.TTFTP99S = a.ttft.quantile(0.50), a.ttft.quantile(0.99)
			r.TPOTP99S = a.tpot.quantile(0.99)
		}
		r.SLOAttainment = math.NaN()
		if a.completions > 0 {
			r.SLOAttainment = float64(a.met) / float64(a.completions)
		}
		if d := r.EndS - r.StartS; d > 0 {
			r.RateRPS = float64(r.Arrivals) / d
		}
		f.seriesScale(r, i, end) // scaling.go
		a.arrivals, a.warmup, a.completions, a.rejections, a.met = 0, 0, 0, 0, 0
		a.ttft.reset()
		a.tpot.reset()
	}
}

// seriesClose writes the open interval when anything happened in it (a run
// that ended inside it: stopped by an enforce-mode alert, or with nothing
// left to drain), its gauges as the pools last reported them.
func (f *fleet) seriesClose() {
	s := f.ts
	if s == nil || f.err != nil {
		return
	}
	any := false
	for i := range s.acc {
		a := &s.acc[i]
		any = any || a.arrivals > 0 || a.completions > 0 || a.rejections > 0
	}
	if !any {
		return
	}
	end := s.next
	if f.halted() && f.now < end {
		end = f.now
	}
	s.fill(f, end)
	if err := s.sink.WriteSeries(s.rows); err != nil {
		f.fail(fmt.Errorf("writing the time series: %w", err))
	}
}
