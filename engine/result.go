package engine

// Result is what the engine reports for a job that left it: served to
// completion, or rejected. Times are absolute simulation times.
type Result struct {
	Job         Job    // the job as submitted (its Tag identifies it to the caller)
	Enqueued    Time   // when the request reached this instance
	Admitted    Time   // start of the iteration that first admitted it
	FirstToken  Time   // end of the iteration that finished its prefill
	Finished    Time   // end of the iteration that produced its last token (or the rejection time)
	Preemptions int    // times it was preempted and recomputed
	Cached      int    // prompt tokens found in the prefix cache at its first admission (not prefilled)
	Rejected    bool   // true when the engine refused it
	Reason      string // why it was rejected ("" when served)
}
