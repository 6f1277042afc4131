//go:build unix

package fleetopt

import (
	"syscall"
	"time"
)

// processCPU returns the CPU time (user + system) the test process has used.
// Benchmarks report it per operation beside ns/op, which on a shared,
// overloaded machine measures waiting as much as work.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
