package export

import (
	"fmt"
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

// LockDir takes dir's lock, dir/LockName, holding this process's id (for
// the message of a refused run), and returns the function that releases
// it and removes the file. A lock another live process holds gives a
// *LockedError. On Linux, macOS and the BSDs the lock is the kernel's
// (flock): it ends with its holder however the holder ends, so a file left
// by a killed run, whatever pid it names, is taken over. A lock path that is not a regular file (a
// symlink, a directory) is an error, left as it is.
func LockDir(dir string) (unlock func(), err error) {
	return lockDir(dir)
}

func holderPID(b []byte) int {
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid < 0 {
		return 0
	}
	return pid
}
