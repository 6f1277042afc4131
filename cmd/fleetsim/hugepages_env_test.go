package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/fleetsim/fleetsim/internal/hugeheap"
)

// TestStartHugePagesEnv: FLEETSIM_HUGEPAGES (docs/cli.md, "Environment")
// with a value it does not know is bad input: exit status 2, one line
// naming the variable, the value and the values allowed, nothing on stdout
// and no command run; "OFF" (any case) turns huge pages off and runs the
// command.
func TestStartHugePagesEnv(t *testing.T) {
	for _, tc := range []struct {
		val  string
		code int
	}{{"maybe", 2}, {"of", 2}, {"OFF", 0}, {"no", 0}} {
		t.Setenv(hugeheap.EnvVar, tc.val)
		var out, errb bytes.Buffer
		code := start([]string{"version"}, &out, &errb)
		if code != tc.code {
			t.Errorf("%s=%s fleetsim version: exit %d, want %d (stderr %q)", hugeheap.EnvVar, tc.val, code, tc.code, errb.String())
			continue
		}
		if tc.code == 0 {
			if out.Len() == 0 || errb.Len() != 0 {
				t.Errorf("%s=%s: stdout %q, stderr %q, want the version only", hugeheap.EnvVar, tc.val, out.String(), errb.String())
			}
			continue
		}
		msg := errb.String()
		if out.Len() != 0 || strings.Count(msg, "\n") != 1 || !strings.Contains(msg, hugeheap.EnvVar+`="`+tc.val+`"`) || !strings.Contains(msg, "on or off") {
			t.Errorf("%s=%s: stdout %q, stderr %q, want one line naming the variable, value and values allowed", hugeheap.EnvVar, tc.val, out.String(), msg)
		}
	}
}
