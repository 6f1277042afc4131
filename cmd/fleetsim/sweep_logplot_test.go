package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestSweepOnePointLogPlot: one pool at one rate puts one value on the log
// axes of the P99 TTFT and cost plots; gonum widened it by ±1 to a range
// below 0 and the sweep panicked ("Values must be greater than 0 for a log
// scale") after writing sweep.parquet. It must finish and draw them.
func TestSweepOnePointLogPlot(t *testing.T) {
	out := filepath.Join(t.TempDir(), "D")
	code, _, stderr := runCLI(t, "sweep", "--rates", "10", "--pool", "a:a10g:1:2048", "--requests", "200", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, f := range []string{"sweep.parquet", "ttft_p99.png", "cost.svg"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
}
