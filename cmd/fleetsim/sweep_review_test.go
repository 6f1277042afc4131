package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestSweepBShortGammaAxes: --b-short and --gamma are sweep axes; the
// scenario builder must not read them as simulate's int/float flags (it
// did, and refused every value with "--b-short 0" / "--gamma 0").
func TestSweepBShortGammaAxes(t *testing.T) {
	dir := t.TempDir()
	for _, extra := range [][]string{
		{"--b-short", "1024,2048"},
		{"--router", "cr", "--gamma", "1.5,2"},
	} {
		out := filepath.Join(dir, strings.TrimPrefix(extra[len(extra)-2], "--"))
		code, _, stderr := runCLI(t, sweepArgs(out, append([]string{"--requests", "100", "--no-plots"}, extra...)...)...)
		if code != 0 {
			t.Errorf("%v: exit %d, stderr %q; want 0", extra, code, stderr)
		}
	}
}
