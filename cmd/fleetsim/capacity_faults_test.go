package main

import (
	"testing"
)

// Issue #20 item 6: `capacity --workload azure --rate 1e-6` (the lowest
// rate --rate accepts) blamed --windows: "--windows = 1: too short for the
// trace's ... span". The span is --rate's doing (100 requests at 1e-6/s
// span ~1e8 s, more than MaxBuckets = 5e7 one-second windows), so the error
// names --rate and the rate that fits.
func TestCapacityTinyRateBlamesRate(t *testing.T) {
	args := []string{"capacity", "--workload", "azure", "--rate", "1e-6", "--requests", "100"}
	code, _, stderr := runCLI(t, args...)
	oneErrLine(t, args, code, stderr, "--rate 1e-06: 100 requests at this rate span")
	oneErrLine(t, args, code, stderr, "(at most 50000000); give --rate >= 1.96e-06 requests/s")
}
