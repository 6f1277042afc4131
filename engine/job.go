package engine

// Job is one request as an engine sees it: the lengths that decide its work
// and a tag the engine hands back untouched in its Result, so that the
// caller can tell which of its requests a result belongs to.
type Job struct {
	In  int // prompt tokens L_in as served (after any compression), >= 1 to run
	Out int // output tokens L_out, >= 1 to run
	Tag int // the caller's handle; never read by the engine
	// Prefix optionally names the prompt's content for the prefix cache
	// (nil: nothing shared; ignored when Config.CacheBlocks is 0).
	Prefix *Prefix
}
