package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/pflag"
)

// unknownCommand is the one-line message for a command name that is not
// one, with the nearest command when one is close (suggest).
func unknownCommand(who, name string) string {
	if s := suggestCommand(name); s != "" {
		return fmt.Sprintf("%s: unknown command %q; did you mean %q? (run 'fleetsim help')", who, name, s)
	}
	return fmt.Sprintf("%s: unknown command %q (run 'fleetsim help')", who, name)
}

func suggestCommand(name string) string {
	names := make([]string, 0, len(commands)+1)
	for n := range commands {
		names = append(names, n)
	}
	return suggest(name, append(names, "help"))
}

// suggest returns the name of names nearest to name ("" when none is
// close): the shortest name it is a prefix of (the first in sorted order
// among equals: --rate gives --rates before --rate-profile), else the
// one at the smallest edit distance if at most a third of the longer
// name's length (at least 1).
func suggest(name string, names []string) string {
	names = slices.Sorted(slices.Values(names))
	lower := strings.ToLower(name)
	if lower == "" {
		return ""
	}
	prefixed := ""
	for _, n := range names {
		if strings.HasPrefix(n, lower) && (prefixed == "" || len(n) < len(prefixed)) {
			prefixed = n
		}
	}
	if prefixed != "" {
		return prefixed
	}
	best, bestD := "", -1
	for _, n := range names {
		d := editDistance(lower, n)
		limit := max(len(n), len(lower)) / 3
		if d <= max(limit, 1) && (bestD < 0 || d < bestD) {
			best, bestD = n, d
		}
	}
	return best
}

// unknownFlagHint returns "; did you mean --NAME?" for pflag's error of an
// unknown long flag when one of fs's flags is close ("" otherwise).
func unknownFlagHint(err error, fs *pflag.FlagSet) string {
	rest, ok := strings.CutPrefix(err.Error(), "unknown flag: --")
	if !ok {
		return ""
	}
	var names []string
	fs.VisitAll(func(f *pflag.Flag) {
		if !f.Hidden {
			names = append(names, f.Name)
		}
	})
	if s := suggest(rest, names); s != "" {
		return fmt.Sprintf("; did you mean --%s?", s)
	}
	return ""
}

// editDistance is the optimal-string-alignment distance of a and b: the
// Levenshtein distance (insertions, deletions, substitutions of bytes) with
// a swap of two adjacent bytes also costing 1 ("plna" is 1 from "plan").
func editDistance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}
