package main

import (
	"fmt"
	"io"

	"github.com/fleetsim/fleetsim/pools/fleetopt"
)

// withFleetOptB returns a planner whose B_short is the boundary FleetOpt's
// sweep picks for cfg, for pr and retrofit when --b-short is not given
// (bare `fleetsim plan`), and notes the choice in one stderr line.
func withFleetOptB(pl *fleetopt.Planner, cal *fleetopt.Calibrator, cfg fleetopt.Config, stderr io.Writer) (*fleetopt.Planner, error) {
	best, err := pl.FleetOpt()
	if err != nil {
		return nil, fmt.Errorf("b-short: not given, and FleetOpt found no boundary to use: %w", err)
	}
	cfg.BShort = best.BShort
	if pl, err = fleetopt.NewPlanner(cal, cfg); err != nil {
		return nil, err
	}
	fmt.Fprintf(stderr, "fleetsim plan: note: --b-short not given: pr and retrofit use B_short = %d, the boundary FleetOpt's sweep picks (give --b-short to choose another)\n", best.BShort)
	return pl, nil
}
