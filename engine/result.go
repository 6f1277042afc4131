package engine

import "github.com/fleetsim/fleetsim/workload"

// Result is what the engine reports for a request that left it: served to
// completion, or rejected. Times are absolute simulation times in seconds.
type Result struct {
	Req         *workload.Request
	Enqueued    float64 // when the request reached this instance, s
	Admitted    float64 // start of the iteration that first admitted it, s
	FirstToken  float64 // end of the iteration that finished its prefill, s
	Finished    float64 // end of the iteration that produced its last token (or the rejection time), s
	Preemptions int     // times it was preempted and recomputed
	Rejected    bool    // true when the engine refused it
	Reason      string  // why it was rejected ("" when served)
}
