//go:build !linux

package compress

// threadCPUSeconds is not measured on this platform.
func threadCPUSeconds() (float64, bool) { return 0, false }
