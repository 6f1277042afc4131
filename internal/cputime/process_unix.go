//go:build unix

package cputime

import "syscall"

// Process returns the CPU time (user + system) the process has used, s;
// 0 if it cannot be read.
func Process() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	tv := func(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }
	return tv(ru.Utime) + tv(ru.Stime)
}
