package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// failWriter fails every write, like stdout redirected to /dev/full.
type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, syscall.ENOSPC }

// TestSimulateFailedStdoutRemovesOutputs is issue 7 bug 3: `simulate
// --requests 1000 --out D >/dev/full` exits 1 and D must not hold
// requests.parquet. Before the fix the cleanup list held the display label
// "PATH (N rows)", so the remove missed the Parquet file.
func TestSimulateFailedStdoutRemovesOutputs(t *testing.T) {
	out := filepath.Join(t.TempDir(), "D")
	var errb strings.Builder
	code := run(smallArgs(out, "--requests", "300"), failWriter{}, &errb)
	if code != 1 {
		t.Fatalf("exit %d, want 1 (stderr %q)", code, errb.String())
	}
	for _, f := range []string{requestsFile, summaryFile} {
		if _, err := os.Lstat(filepath.Join(out, f)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s left behind after a failed run (%v)", f, err)
		}
	}
}

// oneErrLine checks an exit status 2 with one stderr line holding want.
func oneErrLine(t *testing.T, args []string, code int, stderr, want string) {
	t.Helper()
	line := strings.TrimRight(stderr, "\n")
	if code != 2 || strings.Contains(line, "\n") || !strings.Contains(line, want) {
		t.Errorf("%v: exit %d, stderr %q; want 2 and one line holding %q", args, code, stderr, want)
	}
}

// TestOutputsReplaceOnlyRegularFiles is issue 7 bug 4: an output path that
// exists and is not a regular file (a FIFO, a symlink such as one into
// /proc) is refused with exit 2 and one line, and is left as it was. Before
// the fix `plan -o FIFO` renamed a temporary file over the FIFO.
func TestOutputsReplaceOnlyRegularFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink("/proc/self/status", link); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{fifo, link} {
		for _, extra := range [][]string{{"--method", "homo"}, {"--memory"}} {
			args := append([]string{"plan", "--format", "json", "-o", p}, extra...)
			code, _, errs := runCLI(t, args...)
			oneErrLine(t, args, code, errs, "not a regular file")
		}
	}
	// simulate: an output inside --out that is a FIFO or a symlink.
	for _, name := range []string{summaryFile, requestsFile} {
		out := filepath.Join(dir, "sim-"+name)
		if err := os.Mkdir(out, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Mkfifo(filepath.Join(out, name), 0o644); err != nil {
			t.Fatal(err)
		}
		args := smallArgs(out, "--requests", "200")
		code, _, errs := runCLI(t, args...)
		oneErrLine(t, args, code, errs, "not a regular file")
		ents, _ := os.ReadDir(out)
		if len(ents) != 1 {
			t.Errorf("%s: --out holds %v after a refused run; want the FIFO alone", out, ents)
		}
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: %v, %v", fi, err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the symlink was replaced: %v, %v", fi, err)
	}
	if left := tempFiles(dir); len(left) > 0 {
		t.Errorf("temporary files %v left behind", left)
	}
}

// TestPlanOutDash: `-o -` writes to stdout (issue 7 bug 4).
func TestPlanOutDash(t *testing.T) {
	code, got, errs := runCLI(t, "plan", "--method", "homo", "--format", "json", "-o", "-")
	_, want, _ := runCLI(t, "plan", "--method", "homo", "--format", "json")
	if code != 0 || got != want || got == "" {
		t.Errorf("-o -: exit %d, stderr %q, stdout %d bytes; want 0 and the %d bytes of stdout", code, errs, len(got), len(want))
	}
	if _, err := os.Lstat("-"); err == nil {
		os.Remove("-")
		t.Errorf("-o - wrote a file named \"-\"")
	}
}
