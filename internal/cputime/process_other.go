//go:build !unix

package cputime

// Process is not measured on this platform: it returns 0.
func Process() float64 { return 0 }
