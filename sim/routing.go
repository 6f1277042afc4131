package sim

import (
	"fmt"

	"github.com/fleetsim/fleetsim/router"
)

// newRouter builds the router that cfg selects over pools (sorted by
// MaxContext ascending). seed seeds the routers that draw random numbers
// (through workload.NewRand with workload.StreamRouter).
//
// Supported kinds: "length" (and "", the default). The token-budget,
// spillover and compress-and-route routers are wired here as package router
// provides them.
func newRouter(cfg RouterConfig, pools []router.Pool, seed uint64) (router.Router, error) {
	_ = seed
	switch cfg.Kind {
	case "", "length":
		return router.NewLength(pools), nil
	case "token-budget", "spillover", "cr":
		return nil, fmt.Errorf("router.kind %q is not available yet in the simulator (supported: length)", cfg.Kind)
	}
	return nil, fmt.Errorf("unknown router.kind %q (allowed: length, token-budget, spillover, cr)", cfg.Kind)
}
