package main

import (
	"strings"
	"testing"
)

// Issue 20 item 4. On a single A10G (uniform 50–2000 tokens, kv timing):
// a 1e-9 s probe reported "held at 14950.4 req/s; fired by +Inf" and is
// now refused (the detector's own minimum, 2 × 30 s); at 60 s the held
// rate (14.12) is above the saturated throughput (12.859) and is flagged;
// --osd (ignored by the search) and the search's flags without
// --find-max-rate are refused.
func TestFindMaxRateCLIBounds(t *testing.T) {
	base := []string{"sweep", "--find-max-rate", "--pool", "a:a10g:1:2048", "--workload", "../../testdata/uniform-50-2000.json", "--timing", "kv"}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--duration", "1e-9"}, "--duration 1e-09: a probe shorter than 60 s cannot be decided"},
		{[]string{"--duration", "59"}, "shorter than 60 s"},
		{[]string{"--duration", "60", "--osd", "off"}, "--osd off"},
	} {
		code, _, errs := runCLI(t, append(append(append([]string(nil), base...), tt.args...), "--out", t.TempDir())...)
		if code != 2 || !strings.Contains(errs, tt.want) || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
			t.Errorf("%v: exit %d, stderr %q; want one line with %q", tt.args, code, errs, tt.want)
		}
	}
	for _, args := range [][]string{{"--probes", "3"}, {"--rate-tol", "0.1"}, {"--saturation-requests", "500"}} {
		code, _, errs := runCLI(t, append([]string{"sweep", "--rates", "10", "--pool", "a:a10g:1:2048", "--out", t.TempDir()}, args...)...)
		if code != 2 || !strings.Contains(errs, args[0]+" ") || !strings.Contains(errs, "only with --find-max-rate") {
			t.Errorf("%v: exit %d, stderr %q", args, code, errs)
		}
	}
	code, out, errs := runCLI(t, append(append([]string(nil), base...), "--duration", "60", "--out", t.TempDir())...)
	if code != 0 || !strings.Contains(out, "Warning: seed 1 held at 14.12 req/s, above its saturated throughput 12.859 req/s") {
		t.Errorf("60 s probes: exit %d, stdout %q, stderr %q", code, out, errs)
	}
}
