//go:build !(linux || darwin || freebsd || openbsd || netbsd || dragonfly)

package export

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
)

// lockDir where flock is missing: dir/LockName is created exclusively
// holding this process's id; a lock whose process is gone is taken over
// where processAlive can tell (not on Windows: there a lock left by a
// killed run must be removed by hand).
func lockDir(dir string) (unlock func(), err error) {
	path := filepath.Join(dir, LockName)
	mine := strconv.Itoa(os.Getpid()) + "\n"
	for try := 0; ; try++ {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil {
			_, werr := f.WriteString(mine)
			if cerr := f.Close(); werr == nil {
				werr = cerr
			}
			if werr != nil {
				os.Remove(path)
				return nil, fmt.Errorf("writing lock %s: %w", path, werr)
			}
			return func() {
				// remove only our own lock
				if b, err := os.ReadFile(path); err == nil && string(b) == mine {
					os.Remove(path)
				}
			}, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("creating lock %s: %w", path, err)
		}
		b, rerr := os.ReadFile(path)
		pid := holderPID(b)
		if rerr == nil && pid > 0 && !processAlive(pid) && try == 0 {
			// stale: its process is gone; remove it if it is still that one
			if b2, err := os.ReadFile(path); err == nil && string(b2) == string(b) {
				os.Remove(path)
			}
			continue
		}
		return nil, &LockedError{Dir: dir, PID: pid}
	}
}
