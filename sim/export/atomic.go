// Package export writes a run's results: per-request Parquet, the run
// summary as JSON, per-pool tables (Markdown, CSV). Every file is written
// under a temporary name in its destination directory and renamed into place
// only when it is complete, so an interrupted or failed run never leaves a
// half-written file behind.
//
// It is the only package of fleetsim that imports parquet-go.
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

// TempPrefix starts the name of every temporary file fleetsim writes:
// ".fleetsim-tmp-PID-NAME-RANDOM", with PID the writing process and NAME the
// final file name. A process killed outright (SIGKILL, power loss) leaves
// such a file; the next write into the same directory removes every one
// whose process is gone (RemoveStale).
const TempPrefix = ".fleetsim-tmp-"

// NotRegularError is an output path that exists and is not a regular file
// (a directory, device node, FIFO, socket or symbolic link). fleetsim
// replaces only regular files.
type NotRegularError struct {
	Path string
	Mode fs.FileMode
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%q exists and is not a regular file (%s); fleetsim replaces only regular files", e.Path, describeMode(e.Mode))
}

func describeMode(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device node"
	}
	return "mode " + m.String()
}

// CheckReplaceable returns a *NotRegularError when path exists and is not a
// regular file (a symbolic link counts as not regular, whatever it points
// to), and nil when it is a regular file or does not exist.
func CheckReplaceable(path string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return &NotRegularError{Path: path, Mode: fi.Mode()}
	}
	return nil
}

// atomicFile is a file written under a temporary name in the directory of
// its final path and renamed to that path by Commit.
type atomicFile struct {
	*os.File
	path string // final path
	done bool
	set  *OutputSet // when not nil, Commit stages the file there instead of renaming it
	// Early writeback (writeback.go): bytes written so far, and the end of
	// the range whose writeback has been started.
	written, started int64
}

// Write writes p to the file and, every writebackChunk bytes, asks the
// kernel to start writing the new range to disk (writeback.go), so that
// Commit's fsync of a large file waits only for its last part.
func (a *atomicFile) Write(p []byte) (int, error) {
	n, err := a.File.Write(p)
	a.written += int64(n)
	if a.written-a.started >= writebackChunk {
		startWriteback(a.File, a.started, a.written-a.started)
		a.started = a.written
	}
	return n, err
}

// close finishes a sink's file: unless err is already set it runs finish
// (the writer's flush or footer), then renames the file into place, or
// discards it on any error. It returns the first error; after the file is
// committed or discarded it returns err unchanged.
func (f *atomicFile) close(err error, finish func() error) error {
	if f.done {
		return err
	}
	if err == nil {
		if e := finish(); e != nil {
			err = fmt.Errorf("export: writing %s: %w", f.path, e)
		}
	}
	if err != nil {
		f.Abort()
		return err
	}
	return f.Commit()
}

// abortOpen discards the file unless it was committed or discarded already.
func (f *atomicFile) abortOpen() {
	if !f.done {
		f.Abort()
	}
}

func createAtomic(path string) (*atomicFile, error) { return createAtomicIn(nil, path) }

// createAtomicIn is createAtomic for a file of set (nil: renamed by Commit).
func createAtomicIn(set *OutputSet, path string) (*atomicFile, error) {
	if err := CheckReplaceable(path); err != nil {
		return nil, err
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	// Every output flag creates its missing directories (issue 19).
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	RemoveStale(dir)
	f, err := os.CreateTemp(dir, TempPrefix+strconv.Itoa(os.Getpid())+"-"+strings.ReplaceAll(base, "*", "_")+"-*")
	if err != nil {
		return nil, err
	}
	// CreateTemp makes the file private (0600); results are ordinary files.
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	return &atomicFile{File: f, path: path, set: set}, nil
}

// RemoveStale removes the temporary files (TempPrefix) in dir left by
// fleetsim processes that no longer run, and returns their names. Files of
// running processes (another run writing into the same directory) are kept.
func RemoveStale(dir string) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var removed []string
	for _, e := range ents {
		rest, ok := strings.CutPrefix(e.Name(), TempPrefix)
		if !ok || !e.Type().IsRegular() {
			continue
		}
		pidStr, _, ok := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidStr)
		if !ok || err != nil || pid <= 0 || processAlive(pid) {
			continue
		}
		if os.Remove(filepath.Join(dir, e.Name())) == nil {
			removed = append(removed, e.Name())
		}
	}
	return removed
}

// Commit flushes the file to disk, closes it and renames it to its final
// path, or, for a file of an OutputSet, stages it there (the set's Replace
// renames it). On error the temporary file is removed.
func (a *atomicFile) Commit() error {
	if a.done {
		return fmt.Errorf("export: %s already closed", a.path)
	}
	a.done = true
	tmp := a.File.Name()
	err := a.File.Sync()
	if cerr := a.File.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		// Checked again: the path may have changed since createAtomic.
		err = CheckReplaceable(a.path)
	}
	if err == nil && a.set != nil {
		return a.set.stage(tmp, a.path)
	}
	if err == nil {
		err = os.Rename(tmp, a.path)
	}
	if err != nil {
		os.Remove(tmp)
		var nr *NotRegularError
		if errors.As(err, &nr) {
			return err
		}
		return fmt.Errorf("export: writing %s: %w", a.path, err)
	}
	return nil
}

// Abort closes and removes the temporary file; it is a no-op after Commit.
func (a *atomicFile) Abort() {
	if a.done {
		return
	}
	a.done = true
	a.File.Close()
	os.Remove(a.File.Name())
}

// WriteFileAtomic writes data to path through a temporary file in the same
// directory and a rename. path may only name a regular file or nothing
// (*NotRegularError otherwise).
func WriteFileAtomic(path string, data []byte) error { return writeFileIn(nil, path, data) }

// writeFileIn writes data to path as a file of set (nil: renamed at once).
func writeFileIn(set *OutputSet, path string, data []byte) error {
	f, err := createAtomicIn(set, path)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Abort()
		return fmt.Errorf("export: writing %s: %w", path, err)
	}
	return f.Commit()
}
