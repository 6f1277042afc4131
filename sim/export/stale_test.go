package export

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// TestStaleTempFilesRemoved is issue 7 bug 11: a run killed outright leaves
// a temporary file named with TempPrefix and its process id; the next write
// into that directory removes it, but not the temporary file of a process
// that still runs (here, this test's own). Before the fix temporary files
// were named ".NAME.*.tmp" and never removed.
func TestStaleTempFilesRemoved(t *testing.T) {
	dir := t.TempDir()
	// 2^31-1 exceeds every pid_max, so no such process exists.
	dead := TempPrefix + "2147483647-requests.parquet-123"
	live := TempPrefix + strconv.Itoa(os.Getpid()) + "-summary.json-456"
	other := ".requests.parquet.1.tmp" // not ours: never touched
	for _, n := range []string{dead, live, other} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := WriteFileAtomic(filepath.Join(dir, "summary.json"), []byte("{}")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, dead)); !os.IsNotExist(err) {
		t.Errorf("stale %s not removed (%v)", dead, err)
	}
	for _, n := range []string{live, other, "summary.json"} {
		if _, err := os.Stat(filepath.Join(dir, n)); err != nil {
			t.Errorf("%s: %v; want it kept", n, err)
		}
	}
}

// TestCheckReplaceable: only regular files (or nothing) may be replaced.
func TestCheckReplaceable(t *testing.T) {
	dir := t.TempDir()
	reg := filepath.Join(dir, "r")
	os.WriteFile(reg, nil, 0o644)
	link := filepath.Join(dir, "l")
	os.Symlink(reg, link)
	if err := CheckReplaceable(reg); err != nil {
		t.Errorf("regular file: %v", err)
	}
	if err := CheckReplaceable(filepath.Join(dir, "none")); err != nil {
		t.Errorf("missing file: %v", err)
	}
	for _, p := range []string{link, dir} {
		if err := CheckReplaceable(p); err == nil {
			t.Errorf("%s: replaceable, want a NotRegularError", p)
		}
		if err := WriteFileAtomic(p, []byte("x")); err == nil {
			t.Errorf("WriteFileAtomic(%s) succeeded", p)
		}
	}
}
