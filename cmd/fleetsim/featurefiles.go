package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/spf13/pflag"
)

// Inputs and outputs of capacity, fit and optimize (docs/cli.md: outputs
// may replace only regular files; inputs are files). A FIFO blocks the
// reader until some writer appears and /dev/zero never ends, so inputs
// must be regular files (symbolic links to one are fine); an output path
// that exists must be a regular file itself, since the atomic rename
// replaces whatever node is there (a symbolic link, or /dev/null when run
// as root).

// maxConfigBytes bounds the documents these commands read whole: a
// capacity profile, a variants file, a profile file (bytes).
const maxConfigBytes = 16 << 20

// notRegularError is an input or output path that is not a regular file.
type notRegularError struct{ mode fs.FileMode }

func (e *notRegularError) Error() string {
	return fmt.Sprintf("not a regular file (%s)", describeFileMode(e.mode))
}

func describeFileMode(m fs.FileMode) string {
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
		return "a device"
	}
	return "mode " + m.String()
}

// regularInput returns nil when path is a regular file (after symbolic
// links), a *notRegularError when it is something else, and the system's
// error (without the path) when it cannot be examined.
func regularInput(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return rootCause(err)
	}
	if !fi.Mode().IsRegular() {
		return &notRegularError{fi.Mode()}
	}
	return nil
}

// readRegular reads the regular file path whole, at most limit bytes; its
// errors carry no path.
func readRegular(path string, limit int64) ([]byte, error) {
	if err := regularInput(path); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, rootCause(err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, rootCause(err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("larger than %d bytes (the limit; is it the right file?)", limit)
	}
	return data, nil
}

// onlyWith refuses any of the flags names set on the command line while the
// mode flag they belong to (on) is off: they would be ignored silently.
func onlyWith(fs *pflag.FlagSet, on bool, mode string, names ...string) error {
	if on {
		return nil
	}
	for _, n := range names {
		if fs.Changed(n) {
			return badInput("--%s: only with %s", n, mode)
		}
	}
	return nil
}

// checkReplaceable refuses, before any work, an output path given by flag
// that exists and is not a regular file (a directory is left to checkOut,
// whose message suggests a file inside it).
func checkReplaceable(flag, path string) error {
	if path == "" {
		return nil
	}
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) || (err == nil && (fi.Mode().IsRegular() || fi.IsDir())) {
		return nil
	}
	if err != nil {
		return badInput("%s %q: %s", flag, path, oneLine(rootCause(err)))
	}
	return badInput("%s %q: exists and is %s; fleetsim replaces only regular files", flag, path, describeFileMode(fi.Mode()))
}
