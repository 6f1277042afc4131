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

// AsidePrefix starts the name under which OutputSet.Replace keeps a file it
// replaces until the whole set is in place: ".fleetsim-prev-PID-NAME-RANDOM".
// RemoveStale leaves such files alone: one is left only when the process
// was killed outright (SIGKILL, power loss) in the middle of Replace, and
// it then holds an earlier run's file, to be moved back by hand.
const AsidePrefix = ".fleetsim-prev-"

// OutputSet makes the files of one run all-or-nothing with respect to the
// files they replace. Each file of the set (FileInfo.Set, WriteFile) is
// written, flushed to disk (fsync) and closed under its temporary name;
// its Commit or Close only checks its final path and stages it. Replace
// then renames every staged file into place, each earlier file being moved
// aside first; if a rename fails, the files already replaced are put back.
// Until Finish the earlier files can still be restored: Abort discards
// whatever the set holds at any point. Not safe for concurrent
// use.
type OutputSet struct {
	files []setFile
	state setState
}

type setState int

const (
	setStaging setState = iota
	setReplaced
	setDone
)

// setFile is one staged file: its temporary and final paths; once Replace
// has renamed it into place, placed is set and aside names the earlier
// file moved out of its way ("" when there was none).
type setFile struct {
	tmp, path, aside string
	placed           bool
}

// NewOutputSet returns an empty set.
func NewOutputSet() *OutputSet { return &OutputSet{} }

// stage records a finished temporary file (flushed and closed) for path.
func (s *OutputSet) stage(tmp, path string) error {
	if s.state != setStaging {
		os.Remove(tmp)
		return fmt.Errorf("export: writing %s: its output set is already replaced or discarded", path)
	}
	s.files = append(s.files, setFile{tmp: tmp, path: path})
	return nil
}

// WriteFile writes data to path's temporary file and stages it, as
// WriteFileAtomic does without the rename.
func (s *OutputSet) WriteFile(path string, data []byte) error { return writeFileIn(s, path, data) }

// Lstat describes the file path will be once the set is replaced: its
// staged temporary file when there is one (a rename keeps its size and
// modification time), path itself otherwise.
func (s *OutputSet) Lstat(path string) (fs.FileInfo, error) {
	for _, f := range s.files {
		if f.path == path {
			return os.Lstat(f.tmp)
		}
	}
	return os.Lstat(path)
}

// Replace renames every staged file to its final path. An earlier file at
// a path is first renamed aside (AsidePrefix, same directory). When any
// step fails the files already replaced are put back, the staged files
// removed and the error returned: the earlier files are then as they were.
// On success each directory holding a file of the set is flushed to disk
// once; the earlier files stay aside until Finish or Abort.
func (s *OutputSet) Replace() error {
	if s.state != setStaging {
		return errors.New("export: output set replaced or discarded already")
	}
	s.state = setReplaced
	for i := range s.files {
		if err := s.place(&s.files[i]); err != nil {
			s.Abort()
			return err
		}
	}
	dirs := map[string]bool{}
	for _, f := range s.files {
		if d := filepath.Dir(f.path); !dirs[d] {
			dirs[d] = true
			syncDir(d)
		}
	}
	return nil
}

// place moves f's earlier file aside and renames f into place; on failure
// the earlier file is back at its path.
func (s *OutputSet) place(f *setFile) error {
	// Checked again: the path may have changed since the file was staged.
	if err := CheckReplaceable(f.path); err != nil {
		return err
	}
	if _, err := os.Lstat(f.path); err == nil {
		aside, err := os.CreateTemp(filepath.Dir(f.path), AsidePrefix+strconv.Itoa(os.Getpid())+"-"+strings.ReplaceAll(filepath.Base(f.path), "*", "_")+"-*")
		if err != nil {
			return fmt.Errorf("export: writing %s: %w", f.path, err)
		}
		aside.Close()
		if err := os.Rename(f.path, aside.Name()); err != nil {
			os.Remove(aside.Name())
			return fmt.Errorf("export: writing %s: %w", f.path, err)
		}
		f.aside = aside.Name()
	}
	if err := testHookPlace(f.path); err != nil {
		f.restore()
		return err
	}
	if err := os.Rename(f.tmp, f.path); err != nil {
		f.restore()
		return fmt.Errorf("export: writing %s: %w", f.path, err)
	}
	f.placed = true
	return nil
}

// testHookPlace, replaced by tests, fails the rename of a staged file.
var testHookPlace = func(path string) error { return nil }

// restore puts f's earlier file back at its path (removing f's file there
// when there was none).
func (f *setFile) restore() {
	switch {
	case f.aside != "":
		os.Rename(f.aside, f.path)
	case f.placed:
		os.Remove(f.path)
	}
	f.aside, f.placed = "", false
}

// Finish ends a replaced set: the earlier files moved aside are removed.
func (s *OutputSet) Finish() {
	if s.state != setReplaced {
		return
	}
	s.state = setDone
	for _, f := range s.files {
		if f.aside != "" {
			os.Remove(f.aside)
		}
	}
}

// Abort discards the set: before Replace it removes the staged files; after
// Replace (and before Finish) it puts every earlier file back and removes
// the set's files. It is a no-op after Finish or another Abort.
func (s *OutputSet) Abort() {
	if s.state == setDone {
		return
	}
	s.state = setDone
	for i := len(s.files) - 1; i >= 0; i-- {
		f := &s.files[i]
		f.restore()
		os.Remove(f.tmp)
	}
}

// syncDir flushes dir's entries (the renames into it) to disk. Best
// effort: a file system that cannot sync a directory loses nothing the
// running processes see.
func syncDir(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	d.Sync()
	d.Close()
}
