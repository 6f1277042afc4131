//go:build !unix

package export

// processCPU cannot read the process's CPU time on this platform.
func processCPU() (ns int64, ok bool) { return 0, false }
