package main

import (
	"errors"
	"io"
	"slices"

	"github.com/spf13/pflag"
)

// parseFlags parses a command's args into fs, the one way every command
// does: pflag's own output is silenced, --help prints usage to stdout and
// reports help = true (the command then returns nil), and a flag error is
// bad input naming the command's --help. Unless positional, an argument
// that is not a flag is bad input too.
func parseFlags(name string, fs *pflag.FlagSet, args []string, stdout io.Writer,
	usage func(io.Writer, *pflag.FlagSet), positional bool) (help bool, err error) {
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	if slices.Contains(textReportCommands, name) && fs.Lookup("report") == nil {
		// runWithReport takes --report out of args before the command
		// parses them; declared here, it is listed in --help.
		fs.String("report", "", "also write stdout's tables and text as a self-contained HTML report to `FILE` (docs/report.md)")
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			usage(stdout, fs)
			return true, nil
		}
		return false, badInput("%s%s (run 'fleetsim %s --help')", oneLine(err), unknownFlagHint(err, fs), name)
	}
	if !positional && fs.NArg() > 0 {
		return false, badInput("unexpected argument %q (flags only; run 'fleetsim %s --help')", fs.Arg(0), name)
	}
	return false, nil
}
