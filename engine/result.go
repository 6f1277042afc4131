package engine

// Result is what the engine reports for a job that left it: served to
// completion, or rejected. Times are absolute simulation times in seconds.
type Result struct {
	Job         Job     // the job as submitted (its Tag identifies it to the caller)
	Enqueued    float64 // when the request reached this instance, s
	Admitted    float64 // start of the iteration that first admitted it, s
	FirstToken  float64 // end of the iteration that finished its prefill, s
	Finished    float64 // end of the iteration that produced its last token (or the rejection time), s
	Preemptions int     // times it was preempted and recomputed
	Rejected    bool    // true when the engine refused it
	Reason      string  // why it was rejected ("" when served)
}
