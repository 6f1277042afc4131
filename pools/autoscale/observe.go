package autoscale

import "fmt"

// Observation is what a controller sees of one pool at the end of an
// interval.
type Observation struct {
	TimeS    float64 // end of the interval, seconds since the start of the run
	Current  int     // instances starting or serving (the pool's size as the controller set it)
	Serving  int     // instances serving (they report metrics)
	Queue    int     // requests waiting in the pool
	Running  int     // sequences in the running batches
	Slots    int     // sequences one instance runs at most (its batch slots)
	KVUtil   float64 // mean KV-cache utilization over serving instances, [0, 1]
	RateRPS  float64 // arrivals to the pool over the interval / its length, requests/s
	MeanIn   float64 // mean prompt tokens of those arrivals (0 when none)
	MeanOut  float64 // mean output tokens of those arrivals (0 when none)
	Arrivals int64   // arrivals over the interval
}

// Autoscaler decides, at the end of every interval, how many instances each
// pool should have. obs[i] is pool i's observation; the answer has one count
// per pool (before the pool's min/max clamp, sim.Scaling.Clamp). Decide is
// called with non-decreasing times.
type Autoscaler interface {
	Decide(obs []Observation) []int
}

// Metrics of the threshold policy: the observed value per serving instance
// (KV utilization is already a mean over instances).
const (
	MetricQueue   = "queue"   // waiting requests per serving instance
	MetricKV      = "kv"      // mean KV-cache utilization, [0, 1]
	MetricRunning = "running" // running sequences per serving instance
	MetricRate    = "rate"    // arrivals per second per serving instance
	MetricSlots   = "slots"   // running sequences / the serving instances' slots, [0, 1]
)

// Metrics lists the threshold policy's metrics.
var Metrics = []string{MetricQueue, MetricKV, MetricRunning, MetricRate, MetricSlots}

// value returns the metric's value in o, and false when no instance serves
// (no instance reports it).
func value(metric string, o Observation) (float64, bool) {
	if o.Serving <= 0 {
		return 0, false
	}
	n := float64(o.Serving)
	switch metric {
	case MetricQueue:
		return float64(o.Queue) / n, true
	case MetricKV:
		return o.KVUtil, true
	case MetricRunning:
		return float64(o.Running) / n, true
	case MetricRate:
		return o.RateRPS / n, true
	case MetricSlots:
		return float64(o.Running) / (n * float64(max(o.Slots, 1))), true
	}
	panic(fmt.Sprintf("autoscale: unknown metric %q", metric))
}
