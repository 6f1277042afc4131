package export

import (
	"cmp"
	"math"
	"slices"

	"github.com/fleetsim/fleetsim/sim"
)

// RunCollector gathers what the report of a run draws, with memory bounded
// whatever the run's length: per pool, log-binned histograms of the
// per-request latencies, rejection counts by reason, and the time series
// thinned to at most maxSeriesPoints points (adjacent intervals merged two
// by two when it grows beyond). It is a sim.Sink and a sim.SeriesSink, so
// simulate feeds it as the run goes; fleetsim report feeds it from the
// files (ReadRunDir).
type RunCollector struct {
	pools   []string // pool names, first seen first
	lat     map[string]*latencies
	rejects map[string]int64 // by reason
	served  int64
	warm    int64
	series  map[int][]seriesPoint // by pool index (−1: fleet)
	merged  int                   // intervals per point (a power of 2)
	hasTS   bool
	first   []sim.Record // the firstRecords smallest ids, sorted by id
}

// firstRecords is the number of requests the report lists in id order.
const firstRecords = 10

// NewRunCollector returns an empty collector.
func NewRunCollector() *RunCollector {
	return &RunCollector{lat: map[string]*latencies{}, rejects: map[string]int64{}, series: map[int][]seriesPoint{}, merged: 1}
}

// Histogram bins: histPerDecade log-spaced bins per decade from histMinS to
// histMaxS; smaller values go to the first bin, larger to the last.
const (
	histPerDecade = 50
	histMinS      = 1e-5
	histDecades   = 11 // up to 1e6 s
	histBins      = histPerDecade * histDecades
)

// hist is a log-binned histogram of seconds.
type hist struct {
	counts [histBins]int64
	n      int64
}

func (h *hist) add(v float64) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return
	}
	i := 0
	if v > histMinS {
		i = min(int(math.Log10(v/histMinS)*histPerDecade), histBins-1)
	}
	h.counts[i]++
	h.n++
}

// cdf returns the empirical CDF at the upper edges of the bins from the
// first non-empty one to the last (nil when empty).
func (h *hist) cdf() (x, y []float64) {
	if h.n == 0 {
		return nil, nil
	}
	lo := slices.IndexFunc(h.counts[:], func(c int64) bool { return c > 0 })
	hi := histBins - 1
	for h.counts[hi] == 0 {
		hi--
	}
	var seen int64
	x = append(x, binEdge(lo))
	y = append(y, 0)
	for i := lo; i <= hi; i++ {
		seen += h.counts[i]
		x = append(x, binEdge(i+1))
		y = append(y, float64(seen)/float64(h.n))
	}
	return x, y
}

// binEdge is the lower edge of bin i, s.
func binEdge(i int) float64 { return histMinS * math.Pow(10, float64(i)/histPerDecade) }

// latencies are one pool's (or the fleet's) histograms over the served,
// post-warm-up requests.
type latencies struct{ ttft, tpot, e2e, wait hist }

// fleetKey keys the fleet's latencies.
const fleetKey = "\x00fleet"

// Write implements sim.Sink.
func (c *RunCollector) Write(r *sim.Record) error {
	c.AddRecord(r)
	return nil
}

// AddRecord counts one request's record.
func (c *RunCollector) AddRecord(r *sim.Record) {
	c.keepFirst(r)
	if r.Warmup {
		c.warm++
		return
	}
	if r.Rejected {
		c.rejects[r.RejectedReason]++
		return
	}
	c.served++
	for _, k := range [2]string{r.Pool, fleetKey} {
		l := c.lat[k]
		if l == nil {
			l = &latencies{}
			c.lat[k] = l
			if k != fleetKey {
				c.pools = append(c.pools, k)
			}
		}
		l.ttft.add(r.TTFTS)
		if r.OutputTokens > 1 {
			l.tpot.add(r.TPOTS)
		}
		l.e2e.add(r.E2ES)
		l.wait.add(r.QueueWaitS)
	}
}

// maxSeriesPoints bounds the points kept per pool of the time series.
const maxSeriesPoints = 2048

// seriesPoint is one point of the thinned time series: counts summed,
// gauges averaged (and the queue's maximum kept), the TTFT P99 the largest
// of the merged intervals'.
type seriesPoint struct {
	startS, endS          float64
	arrivals, completions int64
	rejections            int64
	queue, queueMax       float64
	running, kvUsed       float64
	kvTotal, slots        float64
	ttftP99               float64
	w                     float64 // intervals merged
}

// WriteSeries implements sim.SeriesSink.
func (c *RunCollector) WriteSeries(rows []sim.SeriesRow) error {
	for i := range rows {
		c.AddSeriesRow(&rows[i])
	}
	return nil
}

// AddSeriesRow adds one time-series row (rows come in time order).
func (c *RunCollector) AddSeriesRow(r *sim.SeriesRow) {
	c.hasTS = true
	pts := c.series[r.PoolIndex]
	p := seriesPoint{startS: r.StartS, endS: r.EndS, arrivals: r.Arrivals, completions: r.Completions,
		rejections: r.Rejections, queue: float64(r.Queue), queueMax: float64(r.Queue),
		running: float64(r.Running), kvUsed: float64(r.KVBlocksUsed), kvTotal: float64(r.KVBlocksTotal), slots: float64(r.Slots), ttftP99: r.TTFTP99S, w: 1}
	// The last point may still be filling (merged intervals per point).
	if n := len(pts); n > 0 && c.merged > 1 && pts[n-1].span(c.merged) {
		pts[n-1] = mergePoints(pts[n-1], p)
	} else {
		pts = append(pts, p)
	}
	c.series[r.PoolIndex] = pts
	if len(pts) > maxSeriesPoints && r.PoolIndex == -1 {
		c.halve()
	}
}

// span reports whether p merges fewer than k intervals: it takes the next.
func (p seriesPoint) span(k int) bool { return p.w < float64(k) }

func mergePoints(a, b seriesPoint) seriesPoint {
	wa, wb := a.w, b.w
	w := wa + wb
	avg := func(x, y float64) float64 { return (x*wa + y*wb) / w }
	return seriesPoint{
		startS: a.startS, endS: b.endS,
		arrivals: a.arrivals + b.arrivals, completions: a.completions + b.completions, rejections: a.rejections + b.rejections,
		queue: avg(a.queue, b.queue), queueMax: math.Max(a.queueMax, b.queueMax),
		running: avg(a.running, b.running), kvUsed: avg(a.kvUsed, b.kvUsed), kvTotal: math.Max(a.kvTotal, b.kvTotal), slots: math.Max(a.slots, b.slots),
		ttftP99: nanMax(a.ttftP99, b.ttftP99), w: w,
	}
}

func nanMax(a, b float64) float64 {
	switch {
	case math.IsNaN(a):
		return b
	case math.IsNaN(b):
		return a
	}
	return math.Max(a, b)
}

// halve merges adjacent points two by two in every pool's series.
func (c *RunCollector) halve() {
	c.merged *= 2
	for k, pts := range c.series {
		out := pts[:0]
		for i := 0; i < len(pts); i += 2 {
			if i+1 < len(pts) {
				out = append(out, mergePoints(pts[i], pts[i+1]))
			} else {
				out = append(out, pts[i])
			}
		}
		c.series[k] = out
	}
}

// keepFirst keeps r when its id is among the firstRecords smallest seen
// (records come in completion order; the report lists them by id).
func (c *RunCollector) keepFirst(r *sim.Record) {
	n := len(c.first)
	if n == firstRecords && r.ID >= c.first[n-1].ID {
		return
	}
	i, _ := slices.BinarySearchFunc(c.first, r.ID, func(a sim.Record, id int64) int { return cmp.Compare(a.ID, id) })
	if n == firstRecords {
		c.first = c.first[:n-1]
	}
	c.first = slices.Insert(c.first, i, *r)
}
