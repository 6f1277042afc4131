package sweep

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// parseSeed parses one seed as `simulate --seed` does (pflag's Uint64:
// strconv.ParseUint with base 0, so 0x/0o/0b prefixes and _ separators
// too; a leading 0 means octal: 010 is 8): a whole number from 0 to 2^64-1, never through a float (which
// would turn 9007199254740993 into ...992). It returns the canonical
// decimal form.
func parseSeed(key, spec, item string) (uint64, error) {
	item = strings.TrimSpace(item)
	s, err := strconv.ParseUint(item, 0, 64)
	if d := strings.TrimLeft(item, "0"); err != nil && d != "" && len(d) < len(item) && strings.Trim(d, "0123456789") == "" {
		return 0, fmt.Errorf("%s %q: %q is not a seed: a leading 0 makes it octal, as in simulate --seed; write %s", key, spec, item, d)
	}
	if err != nil {
		return 0, fmt.Errorf("%s %q: %q is not a seed (a whole number 0 to %d, as simulate --seed)", key, spec, item, uint64(math.MaxUint64))
	}
	return s, nil
}

// parseSeeds parses a seed axis: a list S1,S2,... or an inclusive range
// START:STOP:STEP of whole numbers, in integer arithmetic.
func parseSeeds(key, spec string) ([]string, error) {
	parts := strings.Split(spec, ":")
	if len(parts) == 1 {
		var vals []string
		for _, item := range strings.Split(spec, ",") {
			if strings.TrimSpace(item) == "" {
				return nil, fmt.Errorf("%s %q: empty item (want S1,S2,...)", key, spec)
			}
			s, err := parseSeed(key, spec, item)
			if err != nil {
				return nil, err
			}
			vals = append(vals, strconv.FormatUint(s, 10))
		}
		return vals, nil
	}
	if len(parts) != 3 {
		return nil, fmt.Errorf("%s %q: a range is START:STOP:STEP (e.g. 1:8:1)", key, spec)
	}
	var x [3]uint64
	for i, p := range parts {
		s, err := parseSeed(key, spec, p)
		if err != nil {
			return nil, err
		}
		x[i] = s
	}
	start, stop, step := x[0], x[1], x[2]
	switch {
	case step == 0:
		return nil, fmt.Errorf("%s %q: STEP must be > 0", key, spec)
	case stop < start:
		return nil, fmt.Errorf("%s %q: STOP %d is below START %d", key, spec, stop, start)
	case (stop-start)/step >= MaxRangeValues:
		return nil, fmt.Errorf("%s %q: expands to more than %d values", key, spec, MaxRangeValues)
	}
	vals := make([]string, (stop-start)/step+1)
	for k := range vals {
		vals[k] = strconv.FormatUint(start+uint64(k)*step, 10)
	}
	return vals, nil
}
