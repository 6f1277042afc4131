package main

import "syscall"

// threadCPUSeconds returns the calling OS thread's user+system CPU time, s
// (getrusage RUSAGE_THREAD), or -1 when unavailable.
func threadCPUSeconds() float64 {
	const rusageThread = 1 // RUSAGE_THREAD, linux/resource.h
	var ru syscall.Rusage
	if err := syscall.Getrusage(rusageThread, &ru); err != nil {
		return -1
	}
	tv := func(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }
	return tv(ru.Utime) + tv(ru.Stime)
}
