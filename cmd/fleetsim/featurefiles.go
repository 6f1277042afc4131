package main

import "github.com/spf13/pflag"

// Inputs of capacity, fit and optimize are read once with size limits
// (docs/cli.md, "Input limits": /dev/zero or a huge file given by mistake
// ends in one line, exit 2; standard input and FIFOs are read like files).
const (
	maxCapacityProfileBytes = 1 << 20  // capacity --profile FILE, 1 MiB
	maxVariantsBytes        = 16 << 20 // optimize --config, 16 MiB (1,000 variants and workloads)
	maxBenchBytes           = 64 << 20 // fit --bench, 64 MiB (variants.MaxBenchRows rows)
)

// onlyWith refuses any of the flags names set on the command line while the
// mode flag they belong to (on) is off: they would be ignored silently.
func onlyWith(fs *pflag.FlagSet, on bool, mode string, names ...string) error {
	if on {
		return nil
	}
	for _, n := range names {
		if fs.Changed(n) {
			return badInput("--%s: only with %s", n, mode)
		}
	}
	return nil
}
