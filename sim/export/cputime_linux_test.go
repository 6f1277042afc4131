package export

import "syscall"

// threadCPU is the CPU time the calling OS thread has used so far (user +
// system), ns; ok is false where it cannot be read.
func threadCPU() (ns int64, ok bool) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_THREAD, &ru) != nil {
		return 0, false
	}
	return ru.Utime.Nano() + ru.Stime.Nano(), true
}
