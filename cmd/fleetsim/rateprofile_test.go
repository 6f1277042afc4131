package main

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRateProfileConstIsBaseline: a constant rate profile at the run's rate,
// from the flag or from the scenario file, gives byte-identical outputs to
// today's run. The hashes are those of the baseline binary built from commit
// c9db118 (/work/bin/fleetsim-base) on
// `simulate --timing kv --requests 5000 --out DIR` (its default fleet was
// the papers', given here by papersFleet). The time series (an
// output c9db118 did not have, listed in summary.json) is switched off.
func TestRateProfileConstIsBaseline(t *testing.T) {
	const (
		wantParquet = "9bc346425a19196a8b57520d12858591adc8fb6e5032b88c01523f74bdb84cb0"
		wantSummary = "2344c64177fae89358ecb31b8eb032a209670e855ff54733024714759891c47b"
	)
	dir := t.TempDir()
	scen := writeFile(t, dir, "const.yaml", "workload: {rate_profile: \"const:1000\"}\n")
	for name, extra := range map[string][]string{
		"flag":     {"--rate-profile", "const:1000"},
		"flag0":    {"--rate-profile", "const:1000", "--rate", "1000"},
		"scenario": {"--config", scen},
	} {
		out := filepath.Join(dir, name)
		args := append(append([]string{"simulate", "--requests", "5000", "--timeseries-interval", "0", "--out", out}, papersFleet...), extra...)
		if code, _, stderr := runCLI(t, args...); code != 0 {
			t.Fatalf("%s: exit status %d: %s", name, code, stderr)
		}
		for f, want := range map[string]string{requestsFile: wantParquet, summaryFile: wantSummary} {
			sum := sha256.Sum256(readBytes(t, filepath.Join(out, f)))
			if got := hex.EncodeToString(sum[:]); got != want {
				t.Errorf("%s: %s sha256 %s, want c9db118's %s", name, f, got, want)
			}
		}
	}
}

// TestRateProfileBadInput: a bad profile, from the flag or the scenario
// file, exits with status 2, one line naming the field, and no file.
func TestRateProfileBadInput(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--rate-profile", "sin:mean=-5,ratio=3"}, "rate_profile.mean"},
		{[]string{"--rate-profile", "sin:mean=NaN"}, "rate_profile.mean"},
		{[]string{"--rate-profile", "sin:mean=5,period=0"}, "rate_profile.period"},
		{[]string{"--rate-profile", "step:0=5,2h=1,1h=3"}, "rate_profile.time"},
		{[]string{"--rate-profile", "wave:3"}, "rate_profile"},
		{[]string{"--rate-profile", "sin:mean=500", "--rate", "100"}, "workload.rate"},
		{[]string{"--config", writeFile(t, dir, "bad.yaml", "workload: {rate_profile: \"linear:0=-1\"}\n")}, "rate_profile.rate"},
	} {
		checkSimulateBadInput(t, dir, tc.args, tc.want)
	}
}

// checkSimulateBadInput runs simulate with args and checks exit status 2,
// one line on stderr naming want, nothing on stdout and no --out.
func checkSimulateBadInput(t *testing.T, dir string, args []string, want string) {
	t.Helper()
	out := filepath.Join(dir, "out")
	code, stdout, stderr := runCLI(t, append([]string{"simulate", "--requests", "100", "--out", out}, args...)...)
	if code != 2 || stdout != "" || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || !strings.Contains(stderr, want) {
		t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2, one line naming %s", args, code, stdout, stderr, want)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("%v: --out was created on bad input", args)
	}
}
