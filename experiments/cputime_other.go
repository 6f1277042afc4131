//go:build !linux

package experiments

// threadCPU is not measured on this platform.
func threadCPU() (float64, bool) { return 0, false }
