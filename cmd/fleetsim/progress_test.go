package main

import (
	"strings"
	"testing"
	"time"
)

// TestProgressLine (issue 7 CLI conventions): the progress bar shows the
// rate, the elapsed time and the time left. Hand computation: 250 of 1,000
// requests in 2 s is 125 req/s; the other 750 take 6 s.
func TestProgressLine(t *testing.T) {
	p := &progressBar{total: 1000}
	got := p.line(250, 2*time.Second)
	for _, want := range []string{" 25% 250/1000 requests", "125 req/s", "elapsed 2s", "ETA 6s"} {
		if !strings.Contains(got, want) {
			t.Errorf("line %q lacks %q", got, want)
		}
	}
	if got := p.line(0, 0); strings.Contains(got, "ETA") {
		t.Errorf("line %q: no ETA before the first arrival", got)
	}
}

// TestHelpAndVersion (issue 7 CLI conventions): `fleetsim --help` and
// `fleetsim help` list the commands, `fleetsim help CMD` is CMD's help,
// `fleetsim version` prints the version.
func TestHelpAndVersion(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"-h"}, {"help"}} {
		code, out, _ := runCLI(t, args...)
		if code != 0 || !strings.Contains(out, "Commands:") || !strings.Contains(out, "  plan ") || !strings.Contains(out, "  version ") {
			t.Errorf("%v: exit %d, stdout %q; want the list of commands", args, code, out)
		}
	}
	_, want, _ := runCLI(t, "plan", "--help")
	if code, out, _ := runCLI(t, "help", "plan"); code != 0 || out != want || !strings.HasPrefix(out, "Usage: fleetsim plan") {
		t.Errorf("help plan: exit %d, stdout differs from plan --help", code)
	}
	if code, _, errs := runCLI(t, "help", "nope"); code != 2 || !strings.Contains(errs, `unknown command "nope"`) {
		t.Errorf("help nope: exit %d, stderr %q", code, errs)
	}
	if code, out, _ := runCLI(t, "version"); code != 0 || out != "fleetsim "+version+"\n" {
		t.Errorf("version: exit %d, stdout %q", code, out)
	}
	if code, out, _ := runCLI(t, "simulate", "--help"); code != 0 || !strings.HasPrefix(out, "Usage: fleetsim simulate") {
		t.Errorf("simulate --help: exit %d, stdout %q", code, out[:min(len(out), 80)])
	}
}
