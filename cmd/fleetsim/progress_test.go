package main

import (
	"bytes"
	"io"
	"path/filepath"
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

// TestHelpLayout: every command's --help keeps each flag's description on
// the flag's line (pflag's FlagUsagesWrapped(100) pads every flag to the
// longest flag-and-value name; simulate's and sweep's --adaptive value
// name, 90 characters, pushed all their descriptions onto a line of their
// own after one of trailing spaces: final review of 2026-11-28).
func TestHelpLayout(t *testing.T) {
	for _, cmd := range []string{"capacity", "catalog", "compress", "experiment", "fit", "optimize", "plan", "report", "simulate", "size", "sweep", "validate"} {
		code, out, _ := runCLI(t, cmd, "--help")
		if code != 0 {
			t.Errorf("%s --help: exit %d", cmd, code)
			continue
		}
		for i, line := range strings.Split(out, "\n") {
			if strings.TrimRight(line, " \t") != line {
				t.Errorf("%s --help: line %d ends in spaces: %q", cmd, i+1, line)
				break
			}
		}
	}
}

// screen returns the lines a terminal shows for s: "\r" returns to the
// start of the line (later characters overwrite earlier ones), "\x1b[K"
// erases to the end of the line, "\n" starts a new line.
func screen(s string) []string {
	var lines []string
	line, col := []rune{}, 0
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		switch {
		case rs[i] == '\n':
			lines = append(lines, strings.TrimRight(string(line), " "))
			line, col = line[:0], 0
		case rs[i] == '\r':
			col = 0
		case rs[i] == '\x1b' && i+2 < len(rs) && rs[i+1] == '[' && rs[i+2] == 'K':
			line = line[:col]
			i += 2
		default:
			if col < len(line) {
				line[col] = rs[i]
			} else {
				line = append(line, rs[i])
			}
			col++
		}
	}
	return append(lines, strings.TrimRight(string(line), " "))
}

// TestProgressBarCleared: on a terminal, the finished bar is gone before
// the results are printed, whatever its length (issue 19: the bar was
// cleared with 100 spaces after the table, so the table's first line was
// glued to "ETA 0s"). stdout and stderr are the same terminal here.
func TestProgressBarCleared(t *testing.T) {
	defer func(f func(io.Writer) bool) { isTerminal = f }(isTerminal)
	isTerminal = func(io.Writer) bool { return true }
	dir := t.TempDir()
	for _, args := range [][]string{
		{"simulate", "--requests", "70000", "--out", filepath.Join(dir, "sim")},
		{"sweep", "--rates", "200,400", "--duration", "10", "--out", filepath.Join(dir, "sweep")},
		{"validate", "--requests", "70000", "--method", "homo"},
	} {
		var term bytes.Buffer
		if code := run(args, &term, &term); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, term.String())
		}
		if !strings.Contains(term.String(), "ETA") {
			t.Fatalf("%v: no progress bar drawn", args)
		}
		for _, l := range screen(term.String()) {
			if strings.Contains(l, "ETA") || strings.Contains(l, "elapsed") {
				t.Errorf("%v: the bar is still on screen: %q", args, l)
			}
		}
	}
	// A bar longer than 100 columns is cleared too.
	var b bytes.Buffer
	p := newCountBar(&b, 123456789, "find-max-rate with a long name", "runs", "runs/s")
	p.update(123456789)
	p.done()
	if got := screen(b.String()); len(got) != 1 || got[0] != "" {
		t.Errorf("after done the screen shows %q", got)
	}
}
