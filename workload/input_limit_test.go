package workload

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue #20 item 6: a 70 GB sparse trace was reported as "line 1 ... is
// longer than 1048576 bytes"; what is wrong is the file's size (over
// MaxTraceBytes, 64 GiB), known before reading. A file under the size
// limit whose first line never ends says so, and that it holds NUL bytes.
func TestTraceLimitErrors(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.csv")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	const size = 70_000_000_000 // sparse: no blocks written
	if err := f.Truncate(size); err != nil {
		f.Close()
		t.Skipf("no sparse files here: %v", err)
	}
	f.Close()
	_, err = ReadTraceRows(big, "", 10)
	want := `file "` + big + `" is 70000000000 bytes, longer than the limit of 68719476736 bytes`
	if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "line 1") {
		t.Errorf("70 GB sparse trace: %v; want %q", err, want)
	}

	zeros := filepath.Join(dir, "zeros.csv")
	if err := os.WriteFile(zeros, make([]byte, 2*MaxTraceLineBytes), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = ReadTraceRows(zeros, "", 10)
	want = `line 1 of "` + zeros + `" has no newline within 1048576 bytes, longer than the limit for one line (it holds NUL bytes: a binary or sparse file?)`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("2 MiB of zeros: %v; want %q", err, want)
	}

	// ReadFileLimit states a regular file's size before reading it
	if _, err := ReadFileLimit(big, MaxCDFBytes); err == nil || !strings.Contains(err.Error(), "is 70000000000 bytes, longer than the limit of 16777216 bytes") {
		t.Errorf("ReadFileLimit: %v", err)
	}
}
