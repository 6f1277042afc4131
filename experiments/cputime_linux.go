//go:build linux

package experiments

import (
	"syscall"
	"unsafe"
)

// threadCPU returns the calling OS thread's CPU time
// (CLOCK_THREAD_CPUTIME_ID), s; the caller must be locked to its thread.
// ok is false when the clock cannot be read.
func threadCPU() (float64, bool) {
	const clockThreadCPUTimeID = 3
	var ts syscall.Timespec
	if _, _, e := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTimeID, uintptr(unsafe.Pointer(&ts)), 0); e != 0 {
		return 0, false
	}
	return float64(ts.Sec) + float64(ts.Nsec)/1e9, true
}
