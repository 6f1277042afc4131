//go:build linux

package hugeheap

import "syscall"

// available reports whether Prepare may allocate its block: no soft limit
// on the address space (RLIMIT_AS, ulimit -v) or the data segment
// (RLIMIT_DATA, ulimit -d, which counts the heap's private writable
// mappings), nor an unreadable one.
func available() bool {
	for _, res := range []int{syscall.RLIMIT_AS, syscall.RLIMIT_DATA} {
		var l syscall.Rlimit
		if syscall.Getrlimit(res, &l) != nil || l.Cur != ^uint64(0) {
			return false
		}
	}
	return true
}

// advise asks for huge pages on b's pages (MADV_HUGEPAGE).
func advise(b []byte) bool {
	return syscall.Madvise(b, syscall.MADV_HUGEPAGE) == nil
}
