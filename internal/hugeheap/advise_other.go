//go:build !linux

package hugeheap

// available is false where there is no MADV_HUGEPAGE: Prepare allocates
// nothing.
func available() bool { return false }

// advise does nothing where there is no MADV_HUGEPAGE.
func advise([]byte) bool { return false }
