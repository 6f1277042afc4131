//go:build linux || darwin || freebsd || openbsd || netbsd || dragonfly

package export

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// lockDir takes an exclusive flock on dir/LockName (created if absent,
// never through a symlink) and writes this process's id into it.
func lockDir(dir string) (unlock func(), err error) {
	path := filepath.Join(dir, LockName)
	for try := 0; ; try++ {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0o644)
		if err != nil {
			if fi, lerr := os.Lstat(path); lerr == nil && !fi.Mode().IsRegular() {
				return nil, notRegularLock(path, fi.Mode())
			}
			return nil, fmt.Errorf("creating lock %s: %w", path, err)
		}
		fi, err := f.Stat()
		if err == nil && !fi.Mode().IsRegular() {
			f.Close()
			return nil, notRegularLock(path, fi.Mode())
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			b, _ := io.ReadAll(io.LimitReader(f, 64))
			f.Close()
			if errors.Is(err, syscall.EWOULDBLOCK) {
				return nil, &LockedError{Dir: dir, PID: holderPID(b)}
			}
			return nil, fmt.Errorf("locking %s: %w", path, err)
		}
		// The previous holder removes the file as it releases it: a lock
		// taken on a file no longer at path is worth nothing; try again.
		if pi, err := os.Lstat(path); err != nil || !os.SameFile(fi, pi) {
			f.Close()
			if try < 100 {
				continue
			}
			return nil, fmt.Errorf("locking %s: the file keeps being replaced", path)
		}
		mine := []byte(strconv.Itoa(os.Getpid()) + "\n")
		if err := f.Truncate(0); err == nil {
			_, err = f.WriteAt(mine, 0)
		}
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("writing lock %s: %w", path, err)
		}
		return func() {
			// remove the file while holding its lock, then release it
			if pi, err := os.Lstat(path); err == nil && os.SameFile(fi, pi) {
				os.Remove(path)
			}
			f.Close()
		}, nil
	}
}

// notRegularLock is the error for a lock path that is not a regular file,
// which LockDir neither follows nor removes.
func notRegularLock(path string, m fs.FileMode) error {
	what := "not a regular file"
	switch {
	case m&fs.ModeSymlink != 0:
		what = "a symbolic link"
	case m.IsDir():
		what = "a directory"
	}
	return fmt.Errorf("lock %s is %s, not a lock file fleetsim wrote; remove it or choose another --out", path, what)
}
