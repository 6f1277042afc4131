//go:build !unix

package compress

// cpuSeconds is not measured on this platform.
func cpuSeconds() float64 { return 0 }
