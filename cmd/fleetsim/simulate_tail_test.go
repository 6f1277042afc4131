package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fleetsim/fleetsim/sim/export"
)

// TestTailFailureLeavesNoOutput: when requests.parquet or the time series
// fails at its rename, the run ends with one line on stderr and leaves
// none of its files (a requests.parquet committed before a time series
// that failed is removed). The failure is made by putting a directory at
// the final path once the simulation has ended (atomicFile.Commit checks
// the path again before its rename).
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

// TestFailedRerunKeepsEarlierFiles: a run into an --out that holds an
// earlier run's files, failing as requests.parquet is committed, must
// leave the earlier summary.json and timeseries.parquet as they were (it
// wrote none of its own). Before the fix requests.parquet was closed on a
// goroutine of its own while the other files were written: they replaced
// the earlier ones, and the failed run then removed them, so the earlier
// run lost its summary (review of rt3; main at 233ad42 keeps them).
func TestFailedRerunKeepsEarlierFiles(t *testing.T) {
	out := filepath.Join(t.TempDir(), "D")
	if code, _, stderr := runCLI(t, smallArgs(out, "--seed", "9")...); code != 0 {
		t.Fatalf("first run: exit %d, %s", code, stderr)
	}
	earlier := map[string][]byte{}
	for _, name := range []string{summaryFile, seriesFile} {
		earlier[name] = readBytes(t, filepath.Join(out, name))
	}
	testHookRan = func(*interrupter) { // the earlier requests.parquet made a directory
		p := filepath.Join(out, requestsFile)
		if err := os.Remove(p); err != nil {
			t.Error(err)
		}
		if err := os.Mkdir(p, 0o755); err != nil {
			t.Error(err)
		}
	}
	defer func() { testHookRan = nil }()
	if code, _, stderr := runCLI(t, smallArgs(out)...); code == 0 || !strings.Contains(stderr, "not a regular file") {
		t.Fatalf("second run: exit %d, stderr %q; want a failure at %s", code, stderr, requestsFile)
	}
	for name, want := range earlier {
		got, err := os.ReadFile(filepath.Join(out, name))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s of the earlier run changed or removed by the failed run (%v)", name, err)
		}
	}
}
