//go:build !amd64 && !arm64

package sim

// prefetchFlight does nothing on this architecture (see prefetch_asm.go).
func prefetchFlight(*flight) {}
