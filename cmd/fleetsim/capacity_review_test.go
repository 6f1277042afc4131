package main

import "testing"

// Review of #20 item 6: --trace --rate 4.9e-324 (the smallest float above
// 0) made the rescale factor n/span/rate +Inf, so the first arrival was
// 0 × Inf = NaN and the error blamed "requests[0].arrival_s = NaN". The
// error names --rate and the rate that fits (19,366 requests over 50,000,000
// one-second windows: 3.87e-4 req/s, as for --rate 1e-300).
func TestCapacitySubnormalRateBlamesRate(t *testing.T) {
	for _, rate := range []string{"4.9e-324", "1e-320"} {
		args := []string{"capacity", "--trace", convTrace, "--rate", rate}
		code, _, stderr := runCLI(t, args...)
		oneErrLine(t, args, code, stderr, "give --rate >= 0.000387 requests/s")
	}
}
