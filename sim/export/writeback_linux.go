//go:build linux

package export

import (
	"os"

	"golang.org/x/sys/unix"
)

func writeback(f *os.File, off, n int64) {
	rc, err := f.SyscallConn()
	if err != nil {
		return
	}
	rc.Control(func(fd uintptr) {
		unix.SyncFileRange(int(fd), off, n, unix.SYNC_FILE_RANGE_WRITE)
	})
}
