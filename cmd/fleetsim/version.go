package main

import (
	"fmt"
	"io"
)

// version is the fleetsim version recorded in summary.json and the Parquet
// footer, printed by `fleetsim version`. It is a constant (not build
// information) so the same run gives byte-identical outputs.
const version = "0.1.0-dev"

func init() {
	register("version", "print the fleetsim version", runVersion)
}

func runVersion(args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 {
		if args[0] == "--help" || args[0] == "-h" {
			fmt.Fprintln(stdout, "Usage: fleetsim version\n\nPrints the fleetsim version (also recorded in summary.json and requests.parquet).")
			return nil
		}
		return badInput("unexpected argument %q (fleetsim version takes none)", args[0])
	}
	_, err := fmt.Fprintf(stdout, "fleetsim %s\n", version)
	return err
}
