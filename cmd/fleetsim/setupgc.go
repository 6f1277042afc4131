package main

import "runtime/debug"

// setUpGC turns the garbage collector off while simulate sets up its
// outputs, and returns the function that restores the previous setting
// (GOGC; it may be called more than once). What the set-up allocates (the
// Parquet page writers' buffers, the sinks, a few MB) stays live for the
// whole run, so the collections the runtime's 4 MB first goal would start
// there free nothing. It starts after the workload source is built (a
// trace's parsing makes garbage in proportion to its size) and ends before
// sim.Run: the run itself collects as before.
func setUpGC() (restore func()) {
	prev := debug.SetGCPercent(-1)
	done := false
	return func() {
		if !done {
			done = true
			debug.SetGCPercent(prev)
		}
	}
}
