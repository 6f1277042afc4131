package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/fleetsim/fleetsim/sim/export"
)

// runMarker names the file in a run directory that says which kind of run
// wrote it and which files it wrote, each with its size in bytes and
// modification time in Unix nanoseconds as the run left it (docs/cli.md,
// "Run directories"):
//
//	kind: simulate
//	file: 1234 1764050000000000000 summary.json
//	file: 56789 1764050000000000000 requests.parquet
const runMarker = ".fleetsim-run"

// maxMarkerBytes bounds the marker read: fleetsim's markers are a line per
// file written (tens of bytes each); a larger file is not one of them.
const maxMarkerBytes = 64 << 20

// readMarker returns dir's marker (nil when there is none). A marker that
// is not a regular file (a FIFO would block the read) or is larger than
// maxMarkerBytes is an error: fleetsim did not write it.
func readMarker(dir string) ([]byte, error) {
	p := filepath.Join(dir, runMarker)
	fi, err := os.Lstat(p)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &export.NotRegularError{Path: p, Mode: fi.Mode()}
	}
	if fi.Size() > maxMarkerBytes {
		return nil, fmt.Errorf("%q is larger (%d bytes) than any marker fleetsim writes", p, fi.Size())
	}
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, maxMarkerBytes))
}

// The kinds of run that write a directory.
const (
	kindSimulate = "simulate"
	kindSweep    = "sweep"
	kindMaxRate  = "find-max-rate"
)

// kindFiles are the names each kind writes at the top of its directory; a
// directory without a marker (written before it existed) is recognised by
// them.
var kindFiles = map[string][]string{
	kindSimulate: {requestsFile, summaryFile, poolsCSVFile},
	kindSweep:    {sweepFile, sweepTable, partsDir, pointsDir},
	kindMaxRate:  {maxRateFile},
}

// kindOf returns the kind of run that wrote dir ("" for none: a missing or
// empty directory, or one holding none of the runs' files), and what tells.
func kindOf(dir string) (kind, why string) {
	if b, err := readMarker(dir); err == nil && b != nil {
		if k, _, ok := strings.Cut(string(b), "\n"); ok && strings.HasPrefix(k, "kind: ") {
			return strings.TrimPrefix(k, "kind: "), runMarker
		}
	}
	for _, k := range []string{kindSimulate, kindSweep, kindMaxRate} {
		for _, name := range kindFiles[k] {
			if _, err := os.Lstat(filepath.Join(dir, name)); err == nil {
				return k, name
			}
		}
	}
	return "", ""
}

// checkRunDir refuses (exit 2) to write a run of kind into dir when another
// kind of run wrote it: their files would mix (a maxrate.md beside an older
// sweep's sweep.parquet).
func checkRunDir(dir, kind string) error {
	if err := checkCreatableDir("--out", dir, dir); err != nil {
		return err
	}
	if _, err := readMarker(dir); err != nil {
		return badInput("--out %q: %s: give another --out or remove it", dir, oneLine(err))
	}
	other, why := kindOf(dir)
	if other == "" || other == kind {
		return nil
	}
	return badInput("--out %q: holds a %s run (%s); a %s run would mix its files with it: give another --out or remove the directory",
		dir, other, filepath.Join(dir, why), kind)
}

// finishRunDir records kind and the regular files the run wrote (paths
// inside dir) in dir's marker and, when removeStale, removes the files the
// previous run of the same kind recorded and this one did not write
// (removeUnwritten).
func finishRunDir(dir, kind string, wrote []string, removeStale bool) error {
	data, names := markerData(dir, kind, wrote, os.Lstat)
	if removeStale {
		if err := removeUnwritten(dir, markerFiles(dir), names); err != nil {
			return err
		}
	}
	return export.WriteFileAtomic(filepath.Join(dir, runMarker), data)
}

// markerData is dir's marker recording kind and the regular files of
// wrote inside dir, as lstat describes them, and those files' names.
func markerData(dir, kind string, wrote []string, lstat func(string) (fs.FileInfo, error)) ([]byte, []string) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "kind: %s\n", kind)
	var names []string
	for _, p := range wrote {
		rel, err := filepath.Rel(dir, p)
		if err != nil || !filepath.IsLocal(rel) {
			continue
		}
		fi, err := lstat(p)
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		names = append(names, filepath.ToSlash(rel))
		fmt.Fprintf(&b, "file: %d %d %s\n", fi.Size(), fi.ModTime().UnixNano(), filepath.ToSlash(rel))
	}
	return b.Bytes(), names
}

// removeUnwritten removes the files of old (the previous run's marker) that
// are not in names (a pools.csv a run without --csv would leave beside a
// new summary.json): only a regular file whose size and modification time
// are still those recorded, so a file fleetsim did not write, or one
// changed since, stays whatever the marker says.
func removeUnwritten(dir string, old []markedFile, names []string) error {
	for _, o := range old {
		if slices.Contains(names, o.name) {
			continue
		}
		p := filepath.Join(dir, filepath.FromSlash(o.name))
		if !unchangedFile(dir, o) {
			continue
		}
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		// Its directories inside dir, when left empty (points/).
		for d := filepath.Dir(p); d != filepath.Clean(dir); d = filepath.Dir(d) {
			if os.Remove(d) != nil {
				break
			}
		}
	}
	return nil
}

// markedFile is a file a marker records: its path inside the directory
// (slash-separated), size in bytes and modification time in Unix ns.
type markedFile struct {
	name        string
	size, mtime int64
}

// markerFiles returns the files dir's marker records with their size and
// time (local paths only; lines of another form, such as the bare names of
// older markers, are skipped: nothing is removed on their word).
func markerFiles(dir string) []markedFile {
	b, err := readMarker(dir)
	if err != nil {
		return nil
	}
	var files []markedFile
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "file: ")
		if !ok {
			continue
		}
		f := strings.SplitN(rest, " ", 3)
		if len(f) != 3 || !filepath.IsLocal(filepath.FromSlash(f[2])) {
			continue
		}
		size, err1 := strconv.ParseInt(f[0], 10, 64)
		mtime, err2 := strconv.ParseInt(f[1], 10, 64)
		if err1 != nil || err2 != nil {
			continue
		}
		files = append(files, markedFile{name: f[2], size: size, mtime: mtime})
	}
	return files
}

// unchangedFile reports whether f is, inside dir, a regular file reached
// through directories only (no symbolic link on the way) with the size
// and modification time recorded.
func unchangedFile(dir string, f markedFile) bool {
	p := dir
	parts := strings.Split(f.name, "/")
	for i, part := range parts {
		p = filepath.Join(p, part)
		fi, err := os.Lstat(p)
		if err != nil {
			return false
		}
		if i < len(parts)-1 {
			if !fi.IsDir() {
				return false
			}
			continue
		}
		return fi.Mode().IsRegular() && fi.Size() == f.size && fi.ModTime().UnixNano() == f.mtime
	}
	return false
}
