//go:build !linux

package export

// threadCPU cannot read a thread's CPU time on this platform.
func threadCPU() (ns int64, ok bool) { return 0, false }
