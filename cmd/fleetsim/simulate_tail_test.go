package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fleetsim/fleetsim/sim/export"
)

// TestTailFailureLeavesNoOutput: requests.parquet is closed on a goroutine
// of its own while timeseries.parquet and summary.json are written
// (closeAsync). When either side fails at its rename, the run must still
// end with one line on stderr and leave none of its files: the summary
// written beside a requests.parquet that then fails, and a requests.parquet
// committed beside a time series that failed, are both removed. The
// failure is made by putting a directory at the final path once the
// simulation has ended (atomicFile.Commit checks the path again before its
// rename).
func TestTailFailureLeavesNoOutput(t *testing.T) {
	for _, blocked := range []string{requestsFile, seriesFile} {
		t.Run(blocked, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "D")
			testHookRan = func(*interrupter) {
				if err := os.Mkdir(filepath.Join(out, blocked), 0o755); err != nil {
					t.Error(err)
				}
			}
			defer func() { testHookRan = nil }()
			code, stdout, stderr := runCLI(t, smallArgs(out)...)
			line := strings.TrimRight(stderr, "\n")
			if code == 0 || strings.Contains(line, "\n") || !strings.Contains(line, "not a regular file") {
				t.Errorf("exit %d, stderr %q; want a failure and one line naming the path that is not a regular file", code, stderr)
			}
			if stdout != "" {
				t.Errorf("stdout %q after a failed run; want nothing", stdout)
			}
			ents, err := os.ReadDir(out)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range ents {
				if e.Name() != blocked || !e.IsDir() {
					t.Errorf("%s left in --out after the failed run (want only the directory %s)", e.Name(), blocked)
				}
				if strings.HasPrefix(e.Name(), export.TempPrefix) {
					t.Errorf("temporary file %s left", e.Name())
				}
			}
			if _, err := os.Stat(filepath.Join(out, summaryFile)); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("%s exists after the failed run", summaryFile)
			}
		})
	}
}
