//go:build unix

package export

import "syscall"

// processCPU is the CPU time the process has used so far (user + system,
// every thread), ns; ok is false where it cannot be read.
func processCPU() (ns int64, ok bool) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0, false
	}
	return ru.Utime.Nano() + ru.Stime.Nano(), true
}
