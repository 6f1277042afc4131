package sweep

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/fleetsim/fleetsim/sim"
)

// Keys of a grid axis. KeyCount and KeyGPU apply to every pool, or to one
// pool when written KEY.NAME (e.g. "count.short").
const (
	KeyRate   = "rate"    // arrival rate, requests/s
	KeyCount  = "count"   // instances of the pool(s)
	KeyGPU    = "gpu"     // GPU of the pool(s), a catalog name
	KeyBShort = "b_short" // router short-pool threshold B_short, tokens
	KeyGamma  = "gamma"   // C&R bandwidth γ
	KeyRouter = "router"  // router kind
	KeyTiming = "timing"  // iteration timing preset
	KeySeed   = "seed"    // the run's random seed
)

// Keys lists the axis keys in documentation order.
func Keys() []string {
	return []string{KeyRate, KeyCount, KeyGPU, KeyBShort, KeyGamma, KeyRouter, KeyTiming, KeySeed}
}

// numericKeys are keys whose values are numbers (plotted on a linear axis).
var numericKeys = []string{KeyRate, KeyCount, KeyBShort, KeyGamma, KeySeed}

// Axis is one swept key and its values, each in canonical text form (numbers
// as strconv's shortest form).
type Axis struct {
	Key    string   // a key of Keys, or count.NAME / gpu.NAME
	Values []string // at least one, no duplicates
}

// base returns the key without its pool name: "count.short" -> "count".
func baseKey(key string) (base, pool string) {
	b, p, _ := strings.Cut(key, ".")
	return b, p
}

// Numeric reports whether the axis's values are numbers.
func (a Axis) Numeric() bool {
	b, _ := baseKey(a.Key)
	return slices.Contains(numericKeys, b)
}

// Float returns value i of a numeric axis.
func (a Axis) Float(i int) float64 {
	v, _ := strconv.ParseFloat(a.Values[i], 64)
	return v
}

// MaxRangeValues bounds the values one range expands to, so that a typo
// (a step of 0.0001) ends in an error instead of a huge grid.
const MaxRangeValues = 10_000

// ParseAxis parses an axis from its key and its values: a comma-separated
// list ("100,200,400") or, for numeric keys, an inclusive range
// START:STOP:STEP ("100:1000:100"). Errors are one line naming the key.
func ParseAxis(key, spec string) (Axis, error) {
	b, pool := baseKey(key)
	if !slices.Contains(Keys(), b) {
		return Axis{}, fmt.Errorf("sweep key %q: unknown (allowed: %s; count and gpu also as count.POOL, gpu.POOL)", key, strings.Join(Keys(), ", "))
	}
	if pool != "" && b != KeyCount && b != KeyGPU {
		return Axis{}, fmt.Errorf("sweep key %q: only count and gpu take a pool name", key)
	}
	if strings.Contains(key, ".") && pool == "" {
		return Axis{}, fmt.Errorf("sweep key %q: empty pool name after the dot", key)
	}
	a := Axis{Key: key}
	spec = strings.TrimSpace(spec)
	if spec == "" {
		return Axis{}, fmt.Errorf("%s %q: no values (want a list V1,V2,... or START:STOP:STEP)", key, spec)
	}
	var err error
	switch {
	case b == KeySeed:
		a.Values, err = parseSeeds(key, spec)
	case strings.Contains(spec, ":"):
		if !a.Numeric() {
			return Axis{}, fmt.Errorf("%s %q: a range START:STOP:STEP needs a numeric key (give a list V1,V2,...)", key, spec)
		}
		a.Values, err = parseRange(key, spec)
	default:
		a.Values, err = parseList(key, spec, a.Numeric())
	}
	if err != nil {
		return Axis{}, err
	}
	for i, v := range a.Values {
		if err := checkValue(b, v); err != nil {
			return Axis{}, fmt.Errorf("%s %q: value %s: %v", key, spec, v, err)
		}
		if slices.Contains(a.Values[:i], v) {
			return Axis{}, fmt.Errorf("%s %q: value %s is given twice", key, spec, v)
		}
	}
	return a, nil
}

func parseList(key, spec string, numeric bool) ([]string, error) {
	var vals []string
	for _, item := range strings.Split(spec, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			return nil, fmt.Errorf("%s %q: empty item (want V1,V2,...)", key, spec)
		}
		if numeric {
			x, err := strconv.ParseFloat(item, 64)
			if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, fmt.Errorf("%s %q: %q is not a finite number", key, spec, item)
			}
			item = formatFloat(x)
		}
		vals = append(vals, item)
	}
	return vals, nil
}

func formatFloat(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// parseRange expands START:STOP:STEP (inclusive of STOP when the steps land
// on it within 1e-9 of a step). Values are START + k·STEP, computed by
// multiplication so they do not accumulate rounding errors.
func parseRange(key, spec string) ([]string, error) {
	parts := strings.Split(spec, ":")
	if len(parts) != 3 {
		return nil, fmt.Errorf("%s %q: a range is START:STOP:STEP (e.g. 100:1000:100)", key, spec)
	}
	var x [3]float64
	for i, p := range parts {
		v, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("%s %q: %q is not a finite number (a range is START:STOP:STEP)", key, spec, p)
		}
		x[i] = v
	}
	start, stop, step := x[0], x[1], x[2]
	if !(step > 0) {
		return nil, fmt.Errorf("%s %q: STEP must be > 0", key, spec)
	}
	if stop < start {
		return nil, fmt.Errorf("%s %q: STOP %v is below START %v", key, spec, stop, start)
	}
	n := math.Floor((stop-start)/step+1e-9) + 1
	if n > MaxRangeValues {
		return nil, fmt.Errorf("%s %q: expands to %.4g values; at most %d", key, spec, n, MaxRangeValues)
	}
	vals := make([]string, int(n))
	for k := range vals {
		vals[k] = formatFloat(start + float64(k)*step)
	}
	return vals, nil
}

// checkValue checks what can be checked without the scenario; the rest
// (a GPU too small for a pool's context, a router's rules) is checked by
// validating every point's configuration.
func checkValue(base, v string) error {
	switch base {
	case KeyRate, KeyGamma:
		x, _ := strconv.ParseFloat(v, 64)
		if !(x > 0) {
			return fmt.Errorf("must be > 0")
		}
	case KeyCount, KeyBShort:
		x, _ := strconv.ParseFloat(v, 64)
		if x != math.Trunc(x) || x < 1 || x > 1<<53 {
			return fmt.Errorf("must be a whole number >= 1")
		}
	}
	return nil
}

// apply sets the axis's value v on cfg.
func (a Axis) apply(cfg *sim.Config, v string) error {
	b, pool := baseKey(a.Key)
	x, _ := strconv.ParseFloat(v, 64)
	switch b {
	case KeyRate:
		cfg.Workload.Rate = x
	case KeyBShort:
		cfg.Router.BShort = int(x)
	case KeyGamma:
		cfg.Router.Gamma = x
	case KeyRouter:
		cfg.Router.Kind = v
	case KeyTiming:
		cfg.Timing = v
	case KeySeed:
		cfg.Seed, _ = strconv.ParseUint(v, 10, 64) // canonical decimal (parseSeeds)
	case KeyCount, KeyGPU:
		found := false
		for i := range cfg.Pools {
			if pool != "" && cfg.Pools[i].Name != pool {
				continue
			}
			found = true
			if b == KeyCount {
				cfg.Pools[i].Count = int(x)
			} else {
				cfg.Pools[i].GPU = v
			}
		}
		if !found {
			names := make([]string, len(cfg.Pools))
			for i, p := range cfg.Pools {
				names[i] = p.Name
			}
			return fmt.Errorf("sweep key %q: no pool named %q (pools: %s)", a.Key, pool, strings.Join(names, ", "))
		}
	}
	return nil
}
