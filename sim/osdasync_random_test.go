package sim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fleetsim/fleetsim/router"
	"github.com/fleetsim/fleetsim/sim/osd"
	"github.com/fleetsim/fleetsim/workload"
)

// TestOSDWorkerSameAsSyncRandom: the worker's path (an arrival's flush and
// starts merged into one event, the detectors called directly) leaves the
// records, the summary (verdicts, fired-at times, final states) and the
// time series' osd_alert column as the synchronous feed does, on 24 small
// random fleets built to stress the merges: arrivals on a coarse grid
// (many at the same instant, so a flush, the fleet's start and a pool's
// start at one time follow others at that time), one to three pools (some
// never sent a request), every dispatch mode, queue limits, misrouted
// requests retried at the next pool, compress-and-route (a compressed
// request reaches its pool later), series sampled every 50 ms to 1 s,
// detectors with short windows (so they fire and clear). Each run must
// merge both ways (evFlushStart and evArrive seen through osdTap) and feed
// no event out of time order.
func TestOSDWorkerSameAsSyncRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(20, 4))
	seen := map[uint8]int{}
	fired := 0
	for trial := range 24 {
		n := 100 + r.IntN(500)
		ctxs := []int{1024, 2048, 4096, 8192}
		np := 1 + r.IntN(3)
		var pools []PoolConfig
		dispatch := []string{"central", "jsq", "rr"}[r.IntN(3)]
		for i := range np {
			p := PoolConfig{Name: fmt.Sprintf("p%d", i), GPU: "a10g", Count: 1 + r.IntN(2), MaxContext: ctxs[i+4-np], Dispatch: dispatch}
			if r.IntN(4) == 0 {
				p.QueueLimit = 1 + r.IntN(20)
			}
			pools = append(pools, p)
		}
		cfg := fleetCfg(n, []float64{0, 0.2}[r.IntN(2)], pools...)
		rate := []float64{5, 20, 60}[r.IntN(3)]
		cfg.Workload.Rate = rate
		if np > 1 && r.IntN(3) == 0 { // compress-and-route: a compressed request reaches its pool later
			cfg.Router.Config = router.Config{Kind: RouterCR, BShort: pools[0].MaxContext, Gamma: 1.5, PC: 1}
		}
		if np > 1 && r.IntN(3) == 0 {
			cfg.Router.RetryDelayS = []float64{0.01, 0.5}[r.IntN(2)]
		}
		cfg.OSD.Params = &osd.Config{
			MinimumDuration: []float64{0, 1, 5}[r.IntN(3)], MinimumTTFT: []float64{0, 0.5, 2.5}[r.IntN(3)],
			MaximumWindowSeconds: []float64{0.5, 3, 120}[r.IntN(3)], MOEThreshold: 2, MaximumWindowRatio: []float64{0.5, 0.75, 1}[r.IntN(3)],
			MinimumWindowSize: []int{0, 5}[r.IntN(2)], Confidence: 0.95, Eps: 1e-12,
		}
		grid := []float64{0, 0.01, 0.25}[r.IntN(3)] // arrival times rounded down to it
		reqs := make([]workload.Request, n)
		at := 0.0
		for i := range reqs {
			at += r.ExpFloat64() / rate
			tt := at
			if grid > 0 {
				tt = math.Floor(at/grid) * grid
			}
			l := 50 + r.IntN(10000)
			if r.IntN(2) == 0 {
				l = 50 + r.IntN(1500)
			}
			in := max(1, l*8/10)
			reqs[i] = workload.Request{ID: int64(i), Arrival: tt, InputTokens: in, OutputTokens: max(1, l-in), MaxOutputTokens: max(1, l-in), Bytes: 4 * in}
		}
		dt := []float64{0, 0.05, 0.2, 1}[r.IntN(4)]
		run := func(sync bool) ([]Record, string, []SeriesRow) {
			sink, ms := &memSink{}, &memSeries{}
			opts := Options{}
			if dt > 0 {
				opts.Series = SeriesOptions{Sink: ms, IntervalS: dt}
			}
			f, err := newFleet(cfg, &sliceSource{reqs: reqs}, sink, opts)
			if err != nil {
				t.Fatal(err)
			}
			f.osd.sync = sync
			if !sync {
				osdTap = func(evs []osdEv) {
					for i := range evs {
						seen[evs[i].kind]++
					}
				}
				defer func() { osdTap = nil }()
			}
			if err := f.run(); err != nil {
				t.Fatal(err)
			}
			if f.seriesClose(); f.err != nil {
				t.Fatal(f.err)
			}
			if f.osd.backwards != 0 {
				t.Errorf("trial %d sync %v: %d detector events out of time order", trial, sync, f.osd.backwards)
			}
			s := f.summary()
			text := summaryText(s)
			for _, m := range append([]PoolMetrics{s.Fleet}, s.Pools...) {
				st := m.OSD.Final
				text += fmt.Sprintf("|%+v %x %x %x %x", st, math.Float64bits(st.DurationS), math.Float64bits(st.ConcurrencySlope), math.Float64bits(st.TTFTSlope), math.Float64bits(st.TTFTMOE))
				if m.OSD.Fired {
					fired++
				}
			}
			return sink.recs, text, ms.rows
		}
		sr, ss, srows := run(true)
		ar, as, arows := run(false)
		if fmt.Sprint(stripNaN(sr)) != fmt.Sprint(stripNaN(ar)) {
			t.Errorf("trial %d: records differ", trial)
		}
		if ss != as {
			t.Errorf("trial %d: summaries differ:\nsync   %s\nworker %s", trial, ss, as)
		}
		if fmt.Sprintf("%+v", srows) != fmt.Sprintf("%+v", arows) {
			t.Errorf("trial %d: time series differ (%d, %d rows)", trial, len(srows), len(arows))
		}
	}
	// evArrive is made from an evFlushStart; an evFlushStart stays one when
	// its request reaches a pool later (compressed, or no pool at once).
	if seen[evFlushStart] == 0 || seen[evArrive] == 0 || seen[evStart] <= 24 || fired == 0 {
		t.Errorf("events by kind %v, %d detectors fired: the runs do not exercise every merge", seen, fired)
	}
	t.Logf("events by kind %v; %d detectors fired", seen, fired)
}

// TestOSDMergedKindsInOrder: osdAsyncStart merges by incrementing a kind
// (evFlush → evFlushStart → evArrive); a constant inserted or moved between
// them would turn an arrival into another event (the fleet tests then fail
// far from the cause: a panic, a detector that never fires).
func TestOSDMergedKindsInOrder(t *testing.T) {
	if evFlushStart != evFlush+1 || evArrive != evFlushStart+1 {
		t.Fatalf("evFlush %d, evFlushStart %d, evArrive %d: must be consecutive", evFlush, evFlushStart, evArrive)
	}
}
