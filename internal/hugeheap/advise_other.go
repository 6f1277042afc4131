//go:build !linux

package hugeheap

// advise does nothing where there is no MADV_HUGEPAGE.
func advise([]byte) bool { return false }
