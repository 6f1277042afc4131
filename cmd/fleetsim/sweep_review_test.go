package main

import (
	"os"
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

// TestSweepOutDanglingSymlink: --out naming a dangling symbolic link is bad
// input (exit 2, one line), not an I/O failure (it was exit 1 "mkdir: file
// exists").
func TestSweepOutDanglingSymlink(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "dang")
	if err := os.Symlink(filepath.Join(dir, "nowhere"), out); err != nil {
		t.Skip(err)
	}
	code, _, stderr := runCLI(t, sweepArgs(out, "--rates", "5", "--requests", "50", "--no-plots")...)
	if code != 2 || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "--out") {
		t.Errorf("exit %d, stderr %q; want 2 and one line naming --out", code, stderr)
	}
}

// TestSweepFileStrict: a sweep file that says a key twice, holds a second
// YAML document or an unknown top-level key is refused with one plain line
// (duplicates and extra documents were silently accepted).
func TestSweepFileStrict(t *testing.T) {
	for _, tc := range []struct{ doc, want string }{
		{"grid:\n  rate: [5]\n  rate: [10]\n", `grid key "rate" given twice`},
		{"grid:\n  rate: [5]\n---\ngrid:\n  rate: [10]\n", "one YAML document"},
		{"duration_s: 1\nduration_s: 2\n", "already defined"},
		{"grid:\n  rate: [5]\nbogus: 1\n", "unknown key bogus (allowed: scenario, preset, duration_s, grid)"},
	} {
		_, err := decodeSweepFile([]byte(tc.doc))
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "struct") {
			t.Errorf("%q: error %v; want one containing %q", tc.doc, err, tc.want)
		}
	}
}

// TestFindMaxRateHugeSaturationRequests: --saturation-requests above the
// simulator's bound is bad input before anything runs (it was exit 1 after
// the search had started).
func TestFindMaxRateHugeSaturationRequests(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	code, _, stderr := runCLI(t, sweepArgs(out, "--find-max-rate", "--duration", "60", "--saturation-requests", "1000000000000")...)
	if code != 2 || !strings.Contains(stderr, "--saturation-requests") || strings.Count(stderr, "\n") != 1 {
		t.Errorf("exit %d, stderr %q; want 2 and one line naming --saturation-requests", code, stderr)
	}
}
