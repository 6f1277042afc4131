//go:build linux

package cputime

import (
	"syscall"
	"unsafe"
)

// Thread returns the calling OS thread's CPU time (CLOCK_THREAD_CPUTIME_ID),
// s; the caller must be locked to its thread (runtime.LockOSThread). ok is
// false if the clock cannot be read.
func Thread() (s float64, ok bool) {
	const clockThreadCPUTimeID = 3
	var ts syscall.Timespec
	_, _, errno := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTimeID, uintptr(unsafe.Pointer(&ts)), 0)
	if errno != 0 {
		return 0, false
	}
	return float64(ts.Sec) + float64(ts.Nsec)/1e9, true
}
