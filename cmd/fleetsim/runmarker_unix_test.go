//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestRunMarkerNotRegular: a marker that is a FIFO (reading it blocked the
// run forever) or larger than any marker fleetsim writes is refused up
// front, one line, exit 2.
func TestRunMarkerNotRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := os.MkdirAll(fifo, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(fifo, runMarker), 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	huge := filepath.Join(dir, "huge")
	if err := os.MkdirAll(huge, 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(huge, runMarker))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("kind: simulate\n"); err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(maxMarkerBytes + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	for _, d := range []string{fifo, huge} {
		done := make(chan [3]any, 1)
		go func() {
			code, out, errOut := runCLI(t, "simulate", "--requests", "300", "--out", d)
			done <- [3]any{code, out, errOut}
		}()
		select {
		case r := <-done:
			code, errOut := r[0].(int), r[2].(string)
			if code != 2 || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, runMarker) {
				t.Errorf("%s: exit %d, stderr %q; want 2 and one line naming %s", filepath.Base(d), code, errOut, runMarker)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("%s: simulate still running after 20 s (blocked reading the marker)", filepath.Base(d))
		}
	}
}
