//go:build linux

package hugeheap

import "syscall"

// advise asks for huge pages on b's pages (MADV_HUGEPAGE).
func advise(b []byte) bool {
	return syscall.Madvise(b, syscall.MADV_HUGEPAGE) == nil
}
