package main

import (
	"fmt"

	"github.com/fleetsim/fleetsim/pools/fleetopt"
	"github.com/fleetsim/fleetsim/router"
	"github.com/fleetsim/fleetsim/sim"
	"github.com/fleetsim/fleetsim/workload"
)

// Ranges of the plan and validate flags that the planner does not bound
// itself (docs/cli.md, "Numeric ranges"). Every bound is finite, so no
// product of flags overflows and no output holds NaN or Inf.
const (
	maxMemGB = 1e5  // --mem-gb, --act-gb: GB per GPU
	maxTP    = 1024 // --tp
	maxNoise = 1.0  // --estimate-noise (relative s.d.)
	maxSLOS  = sim.MaxSLOS
	maxGamma = router.MaxGamma
	minRate  = workload.MinRate
	maxRate  = fleetopt.MaxRate
)

// rangeCheck is one flag's value against [lo, hi] (lo excluded when
// openLo); NaN is always outside.
type rangeCheck struct {
	flag    string
	v       float64
	lo, hi  float64
	openLo  bool
	explain string // what the flag means, appended to the error
}

// checkRanges returns an input error for the first value outside its range.
func checkRanges(cs ...rangeCheck) error {
	for _, c := range cs {
		lo := c.v >= c.lo
		open := "["
		if c.openLo {
			lo, open = c.v > c.lo, "("
		}
		if !(lo && c.v <= c.hi) {
			msg := fmt.Sprintf("--%s %v: must be in %s%g, %g]", c.flag, c.v, open, c.lo, c.hi)
			if c.explain != "" {
				msg += " (" + c.explain + ")"
			}
			return badInput("%s", msg)
		}
	}
	return nil
}
