// Package hugeheap asks the kernel to back the first part of the Go heap
// with transparent huge pages (2 MiB instead of 4 KiB), for the command's
// process only.
//
// Why: a simulation touches its heap once (about 45 MiB for the 1M-request
// benchmark run) and, with 4 KiB pages, takes a page fault for every 4 KiB
// of it: about 11,000 faults per run, which on this project's benchmark
// machine (a virtual machine) cost about 5% of the run's CPU time. Linux
// backs a region with huge pages only when asked (madvise(MADV_HUGEPAGE)) on
// the common setting of /sys/kernel/mm/transparent_hugepage/enabled,
// "madvise", and the Go runtime does not ask for its heap. With the first
// 64 MiB of the heap advised, the same run takes about 2,000 faults and
// 5–10% less CPU (BENCHMARKS.md).
//
// How: Prepare allocates one large block, which the runtime maps fresh from
// the kernel and does not touch, advises it, drops it and collects it; the
// runtime's page allocator hands out the lowest free addresses first, so the
// heap's later objects land in the advised block. No page of it is touched
// until an object is placed there, so the resident size grows only with the
// heap (in 2 MiB steps). It is a process-wide setting, so only a main
// package (cmd/fleetsim) calls it, once, before any work; library callers of
// sim are not affected.
//
// The environment variable FLEETSIM_HUGEPAGES=off turns it off (for a
// machine where huge-page faults stall on memory compaction). On kernels
// with transparent huge pages disabled ("never") or on other systems it does
// nothing.
package hugeheap

import (
	"os"
	"runtime"
)

// Size is the part of the heap Prepare advises, bytes: above the peak heap
// of the benchmark runs (45 MiB for 1M requests, about 60 MiB for 10M).
const Size = 64 << 20

// EnvVar is the environment variable that turns Prepare off: "off", "0" or
// "false".
const EnvVar = "FLEETSIM_HUGEPAGES"

// Enabled reports whether the environment allows Prepare (EnvVar unset or
// anything but "off", "0", "false").
func Enabled() bool {
	switch os.Getenv(EnvVar) {
	case "off", "0", "false":
		return false
	}
	return true
}

// Prepare advises the heap's next Size bytes for huge pages, unless the
// environment turns it off (Enabled). It reports whether the kernel took the
// advice. Call it once, first thing in main: objects allocated before it are
// not moved, and a second call advises a second block the heap may not
// reach.
func Prepare() bool {
	if !Enabled() {
		return false
	}
	b := make([]byte, Size)
	ok := advise(b)
	runtime.KeepAlive(b)
	b = nil
	// Collect the block now, so the heap's goal is set by what the run
	// allocates, not by this block, and its pages are free for the run.
	runtime.GC()
	return ok
}
