package main

import (
	"strings"
	"testing"
)

// FuzzSweepFile: any sweep file gives a spec or a one-line error, never a
// panic.
func FuzzSweepFile(f *testing.F) {
	for _, s := range []string{
		"scenario: base.yaml\nduration_s: 120\ngrid:\n  rate: 600:1400:200\n  count.short: [35, 43]\n",
		"grid: [1, 2]\n", "grid:\n  rate: {a: 1}\n", "- a\n", "preset: lam-range\n", "\xff\xfe", "",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, err := decodeSweepFile(data); err != nil {
			if msg := oneLine(err); strings.Contains(msg, "\n") {
				t.Fatalf("multi-line error %q", msg)
			}
		}
	})
}
