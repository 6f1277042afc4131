//go:build amd64 || arm64

package sim

// prefetchFlight asks the processor to bring fl's memory into its caches
// without waiting for it: a hint, with no effect the program can observe
// (prefetch_amd64.s, prefetch_arm64.s).
//
//go:noescape
func prefetchFlight(fl *flight)
