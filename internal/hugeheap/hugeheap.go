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
// machine where huge-page faults stall on memory compaction). It is off by
// itself under an address-space or data limit (ulimit -v, ulimit -d) and on
// other systems than Linux; on kernels with transparent huge pages disabled
// ("never") the advice is taken and changes nothing. GODEBUG=harddecommit=1
// undoes it: the runtime then maps the pages it reuses afresh, without the
// advice (TestPrepareAdvisesHeap fails under it, rightly). Nothing else in
// the runtime does: it returns free pages with MADV_DONTNEED, which keeps
// the advice, and maps only new address space (Go 1.26, mem_linux.go).
package hugeheap

import (
	"fmt"
	"os"
	"runtime"
	"strings"
)

// Size is the part of the heap Prepare advises, bytes: above the peak heap
// of the benchmark runs (45 MiB for 1M requests, about 60 MiB for 10M).
const Size = 64 << 20

// EnvVar is the environment variable that turns Prepare off: "off", "0",
// "false" or "no" (any case); unset, empty, "on", "1", "true" or "yes" leave
// it on, and any other value is an error (Setting).
const EnvVar = "FLEETSIM_HUGEPAGES"

// Setting reports whether EnvVar allows Prepare, or an error naming the
// variable, its value and the values allowed.
func Setting() (bool, error) {
	v := os.Getenv(EnvVar)
	switch strings.ToLower(v) {
	case "", "on", "1", "true", "yes":
		return true, nil
	case "off", "0", "false", "no":
		return false, nil
	}
	return false, fmt.Errorf("%s=%q: want on or off (or 1/0, true/false, yes/no)", EnvVar, v)
}

// Prepare advises the heap's next Size bytes for huge pages, unless the
// environment turns it off (Setting), the system has no huge pages to ask
// for (not Linux) or the process runs under an address-space or data limit
// (ulimit -v, ulimit -d: the block adds Size bytes of address space, which
// could push a process near its limit over it). It reports whether the
// kernel took the advice, and returns an error, having done nothing, when
// EnvVar has a value Setting does not allow. Call it once, first thing in
// main: objects allocated before it are not moved, and a second call
// advises a second block the heap may not reach.
func Prepare() (bool, error) {
	if on, err := Setting(); !on || err != nil {
		return false, err
	}
	if !available() {
		return false, nil
	}
	b := make([]byte, Size)
	ok := advise(b)
	runtime.KeepAlive(b)
	b = nil
	// Collect the block now, so the heap's goal is set by what the run
	// allocates, not by this block, and its pages are free for the run.
	runtime.GC()
	return ok, nil
}
