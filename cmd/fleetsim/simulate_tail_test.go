package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
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

// rerunArgs are the runs of the rerun tests: every file simulate can write
// inside --out (requests.parquet/.csv/.jsonl, timeseries.parquet,
// pools.csv, summary.json, the marker).
func rerunArgs(out string, extra ...string) []string {
	return smallArgs(out, append([]string{"--requests-format", "parquet,csv,jsonl", "--csv"}, extra...)...)
}

// earlierRun runs the first, successful run into out and returns the bytes
// of every file it left there.
func earlierRun(t *testing.T, out string) map[string][]byte {
	t.Helper()
	if code, _, stderr := runCLI(t, rerunArgs(out, "--seed", "9")...); code != 0 {
		t.Fatalf("first run: exit %d, %s", code, stderr)
	}
	ents, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, e := range ents {
		files[e.Name()] = readBytes(t, filepath.Join(out, e.Name()))
	}
	for _, name := range []string{requestsFile, requestsCSVFile, requestsJSONFile, seriesFile, poolsCSVFile, summaryFile, runMarker} {
		if files[name] == nil {
			t.Fatalf("first run wrote no %s", name)
		}
	}
	return files
}

// checkEarlier fails unless out holds exactly the files of earlier,
// byte-identical, except skip (the path a test made a directory).
func checkEarlier(t *testing.T, out string, earlier map[string][]byte, skip string) {
	t.Helper()
	ents, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.Name() != skip && earlier[e.Name()] == nil {
			t.Errorf("%s left in --out by the failed run", e.Name())
		}
	}
	for name, want := range earlier {
		if name == skip {
			continue
		}
		got, err := os.ReadFile(filepath.Join(out, name))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s of the earlier run changed or removed by the failed run (%v)", name, err)
		}
	}
}

// interruptedRerun runs the second run into out, a test hook delivering
// sig, and checks it ends with exit 1, one line, and the earlier files.
func interruptedRerun(t *testing.T, out string, earlier map[string][]byte, sig string) {
	t.Helper()
	code, stdout, stderr := runCLI(t, rerunArgs(out)...)
	line := strings.TrimRight(stderr, "\n")
	if code != 1 || strings.Contains(line, "\n") || !strings.Contains(line, "interrupted by "+sig) {
		t.Errorf("exit %d, stderr %q; want 1 and one line 'interrupted by %s'", code, stderr, sig)
	}
	if stdout != "" {
		t.Errorf("stdout %q after the signal; want nothing", stdout)
	}
	checkEarlier(t, out, earlier, "")
}

// TestFailedRerunKeepsEarlierFilesEach: as TestFailedRerunKeepsEarlierFiles
// with the failure at each later output of the run. Before the fix the
// files renamed over the earlier ones before the failure were removed by the
// failed run, so the earlier run lost them (its marker then listed missing
// files).
func TestFailedRerunKeepsEarlierFilesEach(t *testing.T) {
	for _, blocked := range []string{requestsCSVFile, requestsJSONFile, seriesFile, poolsCSVFile, summaryFile, runMarker} {
		t.Run(blocked, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "D")
			earlier := earlierRun(t, out)
			testHookRan = func(*interrupter) { // the earlier file made a directory
				p := filepath.Join(out, blocked)
				if err := os.Remove(p); err != nil {
					t.Error(err)
				}
				if err := os.Mkdir(p, 0o755); err != nil {
					t.Error(err)
				}
			}
			defer func() { testHookRan = nil }()
			code, stdout, stderr := runCLI(t, rerunArgs(out)...)
			line := strings.TrimRight(stderr, "\n")
			if code == 0 || strings.Contains(line, "\n") || !strings.Contains(line, "not a regular file") {
				t.Fatalf("second run: exit %d, stderr %q; want a failure at %s, one line", code, stderr, blocked)
			}
			if stdout != "" {
				t.Errorf("stdout %q after a failed run; want nothing", stdout)
			}
			checkEarlier(t, out, earlier, blocked)
		})
	}
}

// TestInterruptedRerunKeepsEarlierFiles: a stop signal once the simulation
// has ended, while the outputs are finished, ends the run with exit 1 and
// one line, and leaves the earlier run's files as they were. Before the fix
// the files already renamed over the earlier ones were removed.
func TestInterruptedRerunKeepsEarlierFiles(t *testing.T) {
	out := filepath.Join(t.TempDir(), "D")
	earlier := earlierRun(t, out)
	testHookRan = func(in *interrupter) {
		s := os.Signal(syscall.SIGINT)
		in.got.Store(&s)
	}
	defer func() { testHookRan = nil }()
	interruptedRerun(t, out, earlier, "SIGINT")
}

// TestSignalDuringReplaceKeepsEarlierFiles: a stop signal that arrives
// while the run's files replace the earlier ones ends the run with exit 1
// and one line, the earlier files put back as they were; a failure
// printing the results (stdout on a full disk) puts them back too.
func TestSignalDuringReplaceKeepsEarlierFiles(t *testing.T) {
	out := filepath.Join(t.TempDir(), "D")
	earlier := earlierRun(t, out)
	testHookReplaced = func(in *interrupter) {
		s := os.Signal(syscall.SIGTERM)
		in.got.Store(&s)
	}
	defer func() { testHookReplaced = nil }()
	interruptedRerun(t, out, earlier, "SIGTERM")

	testHookReplaced = nil
	var errb strings.Builder
	if code := run(rerunArgs(out), failWriter{}, &errb); code != 1 {
		t.Fatalf("stdout failing: exit %d, want 1 (stderr %q)", code, errb.String())
	}
	checkEarlier(t, out, earlier, "")
}

// TestRerunStdoutClosedPipe: a rerun whose stdout is a pipe already closed
// (`fleetsim simulate --out D | true`) fails to print its results like one
// whose stdout is full (TestSimulateFailedStdoutRemovesOutputs): exit 1,
// the earlier run's files put back, nothing left aside. Before the fix the
// write killed the process (SIGPIPE on fd 1) between Replace and Finish:
// D held the new files plus one .fleetsim-prev-* file per output, which no
// fleetsim run removes.
func TestRerunStdoutClosedPipe(t *testing.T) {
	out := filepath.Join(t.TempDir(), "D")
	earlier := earlierRun(t, out)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	cmd := exec.Command(os.Args[0], rerunArgs(out)...)
	cmd.Env = append(os.Environ(), "FLEETSIM_TEST_MAIN=1")
	cmd.Stdout = w
	var errb bytes.Buffer
	cmd.Stderr = &errb
	err = cmd.Run()
	w.Close()
	if code := cmd.ProcessState.ExitCode(); code != 1 || !strings.Contains(errb.String(), "broken pipe") {
		t.Errorf("stdout a closed pipe: exit %d (%v), stderr %q; want 1 and a broken pipe", code, err, errb.String())
	}
	checkEarlier(t, out, earlier, "")
}

// TestSimulateOutLocked: simulate holds --out's lock (export.LockDir) as a
// sweep does, so a run into a directory another live fleetsim process is
// writing is refused in one line (exit 1) and leaves the directory as it
// was. Before the fix two simulate runs into one --out replaced each
// other's files meanwhile: the sets could mix, and one run putting its
// earlier files back (a signal during its Replace) could drop the other's.
func TestSimulateOutLocked(t *testing.T) {
	out := filepath.Join(t.TempDir(), "D")
	earlier := earlierRun(t, out)
	unlock, err := export.LockDir(out)
	if err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI(t, rerunArgs(out)...)
	want := fmt.Sprintf("another fleetsim process (pid %d) is writing its outputs there", os.Getpid())
	if code != 1 || stdout != "" || !strings.Contains(stderr, want) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
		t.Errorf("locked --out: exit %d, stdout %q, stderr %q; want exit 1 and one line containing %q", code, stdout, stderr, want)
	}
	unlock()
	checkEarlier(t, out, earlier, "")
	// Unlocked, the rerun goes through and leaves no lock file.
	if code, _, stderr := runCLI(t, rerunArgs(out)...); code != 0 {
		t.Fatalf("rerun: exit %d, %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, export.LockName)); !os.IsNotExist(err) {
		t.Errorf("lock file left after the run: %v", err)
	}
}
