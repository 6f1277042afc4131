package main

import (
	"strings"
	"testing"
)

// TestUnknownCommandDidYouMean: a mistyped command gets one line with the
// nearest command (issue 19) and exit status 2.
func TestUnknownCommandDidYouMean(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"simulte"}, `fleetsim: unknown command "simulte"; did you mean "simulate"? (run 'fleetsim help')`},
		{[]string{"swep", "--rates", "1"}, `did you mean "sweep"?`},
		{[]string{"cap"}, `did you mean "capacity"?`}, // a prefix
		{[]string{"help", "plna"}, `fleetsim help: unknown command "plna"; did you mean "plan"?`},
		{[]string{"zzzzzzzz"}, `fleetsim: unknown command "zzzzzzzz" (run 'fleetsim help')`},
	} {
		code, out, errOut := runCLI(t, tc.args...)
		if code != 2 || out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and one line with %q", tc.args, code, out, errOut, tc.want)
		}
	}
}

// TestEditDistance: distances counted by hand.
func TestEditDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "plan", 4}, {"plan", "plan", 0}, {"plna", "plan", 1}, {"simulte", "simulate", 1},
		{"kitten", "sitting", 3}, {"swep", "sweep", 1}, {"ca", "abc", 3},
	} {
		if got := editDistance(tc.a, tc.b); got != tc.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

// TestUnknownFlagDidYouMean: a mistyped flag gets the nearest flag of the
// command (issue 19 asked "did you mean" for mistyped names; flags got
// only "unknown flag"), and the experiment command's unknown name the
// nearest experiment.
func TestUnknownFlagDidYouMean(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"simulate", "--reqests", "10"}, `fleetsim simulate: unknown flag: --reqests; did you mean --requests? (run 'fleetsim simulate --help')`},
		{[]string{"sweep", "--rate", "10"}, `did you mean --rates?`},
		{[]string{"plan", "--slo-ttft", "500ms"}, `did you mean --slo-ttft-p99?`},
		{[]string{"simulate", "--zzzzzzzz"}, `fleetsim simulate: unknown flag: --zzzzzzzz (run 'fleetsim simulate --help')`},
		{[]string{"experiment", "fleetopt-tabel3"}, `did you mean "fleetopt-table3"?`},
	} {
		code, out, errOut := runCLI(t, tc.args...)
		if code != 2 || out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and one line with %q", tc.args, code, out, errOut, tc.want)
		}
	}
}
