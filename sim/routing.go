package sim

import "github.com/fleetsim/fleetsim/router"

// newRouter builds the router that cfg selects over pools (sorted by
// MaxContext ascending). seed is the run's seed; the routers that draw
// random numbers derive their streams from it (workload.StreamRouter,
// workload.StreamCompressor).
//
// Kinds: "length" (and "", the default), "token-budget", "spillover" and
// "cr" (package router, router.New, which runs router.Config.Validate).
func newRouter(cfg RouterConfig, pools []router.Pool, seed uint64) (router.Router, error) {
	return router.New(cfg.Config, pools, seed)
}
