package export

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// LockName is the lock file a command holds in its output directory while
// it writes a set of files that belong together (a sweep's Parquet, table
// and plots), so two runs into one directory cannot interleave their sets.
const LockName = ".fleetsim-lock"

// LockedError is an output directory whose lock another live fleetsim
// process holds.
type LockedError struct {
	Dir string // the directory
	PID int    // the holder's process id (0: unreadable)
}

func (e *LockedError) Error() string {
	who := "another fleetsim process"
	if e.PID > 0 {
		who += fmt.Sprintf(" (pid %d)", e.PID)
	}
	return fmt.Sprintf("--out %s: %s is writing its outputs there (lock %s); wait for it to finish or choose another --out",
		e.Dir, who, filepath.Join(e.Dir, LockName))
}

// LockDir takes dir's lock: it creates dir/LockName (exclusively) holding
// this process's id and returns the function that removes it. A lock left
// by a process that no longer runs (killed outright) is taken over; one of
// a live process gives a *LockedError.
func LockDir(dir string) (unlock func(), err error) {
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
		pid, perr := strconv.Atoi(strings.TrimSpace(string(b)))
		if rerr == nil && perr == nil && pid > 0 && !processAlive(pid) && try == 0 {
			// stale: its process is gone; remove it if it is still that one
			if b2, err := os.ReadFile(path); err == nil && string(b2) == string(b) {
				os.Remove(path)
			}
			continue
		}
		return nil, &LockedError{Dir: dir, PID: pid}
	}
}
