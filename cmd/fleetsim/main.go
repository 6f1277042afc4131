// Command fleetsim simulates and plans LLM inference GPU fleets.
//
// Usage:
//
//	fleetsim [command] [flags]
//
// With no command it runs `simulate` on the built-in default scenario.
// Run `fleetsim help` for the list of commands.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sort"

	"github.com/fleetsim/fleetsim/internal/hugeheap"
	"github.com/fleetsim/fleetsim/sim/export"
)

// command is one subcommand: it parses args and writes its results to
// stdout. Bad input is reported as an *inputError (exit status 2).
type command struct {
	summary string
	run     func(args []string, stdout, stderr io.Writer) error
}

var commands = map[string]command{}

// register adds a subcommand; each subcommand's file calls it from init.
func register(name, summary string, run func(args []string, stdout, stderr io.Writer) error) {
	commands[name] = command{summary: summary, run: run}
}

// inputError is bad input: one line naming the field, the value and what is
// allowed; the process exits with status 2.
type inputError struct{ msg string }

func (e *inputError) Error() string { return e.msg }

// badInput returns an *inputError with a formatted message.
func badInput(format string, args ...any) error {
	return &inputError{msg: fmt.Sprintf(format, args...)}
}

// exitOSDStop is the exit status of a simulate run that an enforce-mode
// over-saturation detector stopped (docs/cli.md, "Exit status").
const exitOSDStop = 3

// exitStatusError ends a run that finished, outputs written, with a status
// other than 0, 1 and 2, and one line on stderr.
type exitStatusError struct {
	code int
	msg  string
}

func (e *exitStatusError) Error() string { return e.msg }

func main() {
	os.Exit(start(os.Args[1:], os.Stdout, os.Stderr))
}

// start prepares the heap, then runs the command line and returns the exit
// status: before any work, the heap's first 64 MiB in huge pages (Linux;
// FLEETSIM_HUGEPAGES=off turns it off; internal/hugeheap says why). A value
// of FLEETSIM_HUGEPAGES it does not know is bad input (exit status 2).
func start(args []string, stdout, stderr io.Writer) int {
	if _, err := hugeheap.Prepare(); err != nil {
		fmt.Fprintf(stderr, "fleetsim: %v\n", err)
		return 2
	}
	return run(args, stdout, stderr)
}

// run executes the command line and returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	name, named := "simulate", false
	if len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
		name, args, named = args[0], args[1:], true
	}
	switch {
	case !named && len(args) > 0 && (args[0] == "--help" || args[0] == "-h"):
		// `fleetsim --help`: the commands (simulate's flags are under
		// `fleetsim simulate --help`).
		usage(stdout)
		return 0
	case name == "help" && len(args) == 0:
		usage(stdout)
		return 0
	case name == "help":
		// `fleetsim help CMD` is `fleetsim CMD --help`.
		if _, ok := commands[args[0]]; !ok {
			fmt.Fprintln(stderr, unknownCommand("fleetsim help", args[0]))
			return 2
		}
		return run([]string{args[0], "--help"}, stdout, stderr)
	}
	cmd, ok := commands[name]
	if !ok {
		fmt.Fprintln(stderr, unknownCommand("fleetsim", name))
		return 2
	}
	err := runWithReport(name, cmd.run, args, stdout, stderr) // --report FILE (report_flag.go)
	var in *inputError
	var nr *export.NotRegularError
	var st *exitStatusError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &st):
		fmt.Fprintf(stderr, "fleetsim %s: %s\n", name, st.msg)
		return st.code
	case errors.As(err, &in):
		fmt.Fprintf(stderr, "fleetsim %s: %s\n", name, in.msg)
		return 2
	case errors.As(err, &nr): // an output path that changed during the run
		fmt.Fprintf(stderr, "fleetsim %s: %s\n", name, oneLine(nr))
		return 2
	default:
		fmt.Fprintf(stderr, "fleetsim %s: %v\n", name, err)
		return 1
	}
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "fleetsim: discrete-event simulator and analytic planner for LLM inference GPU fleets")
	fmt.Fprintln(w, "\nUsage: fleetsim [command] [flags]   (no command: simulate the default scenario)")
	fmt.Fprintln(w, "\nCommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nRun 'fleetsim help COMMAND' (or 'fleetsim COMMAND --help') for a command's flags;")
	fmt.Fprintln(w, "'fleetsim version' prints the version. docs/cli.md describes every command.")
}
