package main

import (
	"runtime/debug"
	"sync"
)

// setUpGC turns the garbage collector off while simulate sets up its
// outputs, and returns the function that restores the previous setting
// (GOGC; it may be called more than once). What the set-up allocates (the
// Parquet page writers' buffers, the sinks, a few MB) stays live for the
// whole run, so the collections the runtime's 4 MB first goal would start
// there free nothing. It starts after the workload source is built (a
// trace's parsing makes garbage in proportion to its size) and ends before
// sim.Run: the run itself collects as before. Set-ups that overlap (runs in
// one process at once) keep the collector off until the last one ends, then
// restore the setting from before the first.
func setUpGC() (restore func()) {
	gcSetUp.Lock()
	if gcSetUp.n == 0 {
		gcSetUp.prev = debug.SetGCPercent(-1)
	}
	gcSetUp.n++
	gcSetUp.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			gcSetUp.Lock()
			defer gcSetUp.Unlock()
			if gcSetUp.n--; gcSetUp.n == 0 {
				debug.SetGCPercent(gcSetUp.prev)
			}
		})
	}
}

// gcSetUp counts the set-ups under way (setUpGC) and keeps the GC percent
// from before the first.
var gcSetUp struct {
	sync.Mutex
	n    int
	prev int
}
