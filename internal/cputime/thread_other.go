//go:build !linux

package cputime

// Thread is not measured on this platform: ok is false.
func Thread() (s float64, ok bool) { return 0, false }
