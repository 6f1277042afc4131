package main

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
)

// checkCreatableDir validates a directory an output flag will write into
// (created with its missing parents when the output is written): dir must
// be a directory, or not exist with its nearest existing ancestor a
// directory. flag and shown name the input in the message.
func checkCreatableDir(flag, shown, dir string) error {
	for d := dir; ; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		switch {
		case err == nil && fi.IsDir():
			return nil
		case err == nil:
			return badInput("%s %q: %q is not a directory", flag, shown, d)
		case !errors.Is(err, os.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR):
			// (ENOTDIR: a file on the way, named by the next step up)
			return badInput("%s %q: %s", flag, shown, oneLine(rootCause(err)))
		}
		if parent := filepath.Dir(d); parent == d {
			return nil
		}
	}
}
