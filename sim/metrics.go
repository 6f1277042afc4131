package sim

import "math"

// acc accumulates one pool's (or the fleet's) metrics in constant memory.
type acc struct {
	_ cacheLinePad
	// Written by the simulation goroutine.
	arrived, rejected int64
	capRejected       int64 // rejections for lack of capacity (RejectQueueFull)
	backlog           int64 // waiting requests at the window's end
	trend             trend
	_                 cacheLinePad
	// Written by the record side (its own goroutine while the run lasts).
	completed, preemptions int64
	sloMet                 int64
	servedWin              int64 // completions (any request) finishing inside the window
	ttft, tpot, e2e, wait  sketch
	busyWin                float64 // busy slot-seconds inside the window
	// Prefix cache: prompt tokens served from it and all prompt tokens of
	// the completed requests (prefixmetrics.go).
	cached, prompt int64
	_              cacheLinePad
}

// cacheLinePad keeps what one goroutine writes off the cache lines another
// one writes (two 64-byte lines: the adjacent-line prefetcher fetches pairs).
type cacheLinePad [128]byte

func newAcc() acc {
	return acc{ttft: newSketch(), tpot: newSketch(), e2e: newSketch(), wait: newSketch()}
}

// withPoolSketches is the fleet's accumulator a with its latency sketches
// set to the sums of the pools' (a new copy each call). The record side adds
// a completion to its pool's sketches only: a sketch's counts are integers,
// so the sum is count for count the sketch that every completion added to
// would be.
func (a acc) withPoolSketches(pools []*pool) acc {
	a.ttft, a.tpot, a.e2e, a.wait = newSketch(), newSketch(), newSketch(), newSketch()
	for _, p := range pools {
		a.ttft.merge(&p.m.ttft)
		a.tpot.merge(&p.m.tpot)
		a.e2e.merge(&p.m.e2e)
		a.wait.merge(&p.m.wait)
	}
	return a
}

// trend is a streaming least-squares fit y = a + b*x of the waiting count y
// against time x, kept as centred sums so that memory does not grow.
type trend struct {
	n                     float64
	sx, sy, sxx, sxy, syy float64
	x0                    float64 // origin of x, s (the window start)
	haveOrigin            bool
}

func (tr *trend) add(x, y float64) {
	if !tr.haveOrigin {
		tr.x0, tr.haveOrigin = x, true
	}
	x -= tr.x0
	tr.n++
	tr.sx += x
	tr.sy += y
	tr.sxx += x * x
	tr.sxy += x * y
	tr.syy += y * y
}

// slope returns the least-squares slope b (requests per second) and its
// standard error; both are 0 with fewer than 3 samples.
func (tr *trend) slope() (b, se float64) {
	if tr.n < 3 {
		return 0, 0
	}
	n := tr.n
	sxx := tr.sxx - tr.sx*tr.sx/n
	sxy := tr.sxy - tr.sx*tr.sy/n
	syy := tr.syy - tr.sy*tr.sy/n
	if sxx <= 0 {
		return 0, 0
	}
	b = sxy / sxx
	rss := math.Max(0, syy-b*sxy)
	se = math.Sqrt(rss / (n - 2) / sxx)
	return b, se
}

// Overload detection thresholds (see docs/fleet.md, "Overload").
const (
	overloadMinSamples  = 10   // fewer samples: never flagged
	overloadMinRelSlope = 0.01 // slope must exceed 1% of the pool's arrival rate
	overloadSigmas      = 3    // and be this many standard errors above 0
	overloadFinalShare  = 0.5  // and the final backlog must hold half the fitted growth
)

// overloaded applies the detector to a pool with arrival rate lambda (req/s)
// over a window of w seconds. Requests rejected for lack of capacity (a full
// queue) are backlog the pool could not hold: they add capRejected/w to the
// growth, and a pool that rejects more than overloadMinRelSlope of its
// arrivals for lack of capacity is overloaded whatever its (bounded) queue
// does.
func (a *acc) overloaded(lambda, w float64) (bool, float64) {
	b, se := a.trend.slope()
	if w <= 0 {
		return false, b
	}
	shed := float64(a.capRejected) / w
	flag := a.trend.n >= overloadMinSamples &&
		b > overloadMinRelSlope*lambda &&
		b > overloadSigmas*se &&
		float64(a.backlog) >= overloadFinalShare*b*w
	if float64(a.capRejected) > overloadMinRelSlope*float64(a.arrived) {
		flag = true
	}
	return flag, b + shed
}

// metrics turns the accumulator into PoolMetrics for a pool of gpus
// instances of slots slots each (capacity slots in all) over a window of w
// seconds.
func (a *acc) metrics(gpus, slots, capacity int, w float64) PoolMetrics {
	m := PoolMetrics{
		GPUs:        gpus,
		Slots:       slots,
		Arrived:     a.arrived,
		Completed:   a.completed,
		Rejected:    a.rejected,
		InFlight:    a.arrived - a.completed - a.rejected,
		Preemptions: a.preemptions,
		TTFT:        a.ttft.quantiles(),
		TPOT:        a.tpot.quantiles(),
		E2E:         a.e2e.quantiles(),
		QueueWait:   a.wait.quantiles(),
		Backlog:     a.backlog,
	}
	// Metrics with no data are NaN (null in JSON, "-" in tables): the
	// attainment of no completed request, rates without a window.
	m.SLOAttainment = math.NaN()
	if a.completed > 0 {
		m.SLOAttainment = float64(a.sloMet) / float64(a.completed)
	}
	m.ThroughputRPS, m.ArrivalRPS, m.SlotUtilization = math.NaN(), math.NaN(), math.NaN()
	if w > 0 {
		m.SlotUtilization = 0
		m.ThroughputRPS = float64(a.servedWin) / w
		m.ArrivalRPS = float64(a.arrived) / w
		if capacity > 0 {
			// Clamped: the sums of busy slot-seconds carry rounding errors.
			m.SlotUtilization = min(1, max(0, a.busyWin/(w*float64(capacity))))
		}
	}
	m.Overloaded, m.BacklogGrowth = a.overloaded(m.ArrivalRPS, w)
	return m
}
