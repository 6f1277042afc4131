package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/fleetsim/fleetsim/sim/export"
)

// textReportCommands take --report FILE: their stdout (tables and text)
// becomes a self-contained HTML report (export.TextReport). simulate and
// sweep have reports of their own, with figures.
var textReportCommands = []string{"size", "validate", "capacity", "optimize", "experiment", "plan"}

// runWithReport runs command name; for textReportCommands it first takes
// --report FILE (or --report=FILE) out of args, and after a successful run
// writes stdout's content as an HTML report to FILE ("wrote FILE" on stderr,
// so that stdout stays the command's own).
func runWithReport(name string, run func([]string, io.Writer, io.Writer) error, args []string, stdout, stderr io.Writer) error {
	if !slices.Contains(textReportCommands, name) {
		return run(args, stdout, stderr)
	}
	path, rest, found, err := takeReportFlag(args)
	if err != nil {
		return err
	}
	if !found || slices.ContainsFunc(rest, func(a string) bool { return a == "--help" || a == "-h" }) {
		return run(rest, stdout, stderr)
	}
	if err := checkReportPath(path); err != nil {
		return err
	}
	var out bytes.Buffer
	if err := run(rest, io.MultiWriter(stdout, &out), stderr); err != nil {
		return err
	}
	meta := [][2]string{
		{"written by", strings.Join(append([]string{"fleetsim", name}, rest...), " ")},
		{"fleetsim version", version},
	}
	text := out.String()
	if strings.TrimSpace(text) == "" { // e.g. plan -o FILE: the output went to a file
		text = "fleetsim " + name + " printed nothing on stdout: its output went to the file its flags name."
	}
	rep := export.TextReport("fleetsim "+name+" report", meta, text)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("--report %s: %w", path, err)
	}
	if err := export.WriteReportFile(path, rep); err != nil {
		return err
	}
	_, err = fmt.Fprintf(stderr, "wrote %s\n", path)
	return err
}

// takeReportFlag removes --report FILE / --report=FILE from args (flags end
// at "--").
func takeReportFlag(args []string) (path string, rest []string, found bool, err error) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return path, append(rest, args[i:]...), found, nil
		case a == "--report":
			if i+1 >= len(args) {
				return "", nil, false, badInput("--report: needs a FILE")
			}
			path, found = args[i+1], true
			i++
		case strings.HasPrefix(a, "--report="):
			path, found = strings.TrimPrefix(a, "--report="), true
		default:
			rest = append(rest, a)
		}
	}
	if found && path == "" {
		return "", nil, false, badInput("--report \"\": needs a FILE")
	}
	return path, rest, found, nil
}
