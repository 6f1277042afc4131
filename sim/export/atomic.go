// Package export writes a run's results: per-request Parquet, the run
// summary as JSON, per-pool tables (Markdown, CSV). Every file is written
// under a temporary name in its destination directory and renamed into place
// only when it is complete, so an interrupted or failed run never leaves a
// half-written file behind.
//
// It is the only package of fleetsim that imports parquet-go.
package export

import (
	"fmt"
	"os"
	"path/filepath"
)

// atomicFile is a file written under a temporary name in the directory of
// its final path and renamed to that path by Commit.
type atomicFile struct {
	*os.File
	path string // final path
	done bool
}

func createAtomic(path string) (*atomicFile, error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".*.tmp")
	if err != nil {
		return nil, err
	}
	// CreateTemp makes the file private (0600); results are ordinary files.
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	return &atomicFile{File: f, path: path}, nil
}

// Commit flushes the file to disk, closes it and renames it to its final
// path. On error the temporary file is removed.
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
		err = os.Rename(tmp, a.path)
	}
	if err != nil {
		os.Remove(tmp)
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
// directory and a rename.
func WriteFileAtomic(path string, data []byte) error {
	f, err := createAtomic(path)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Abort()
		return fmt.Errorf("export: writing %s: %w", path, err)
	}
	return f.Commit()
}
