package sim

import (
	"fmt"

	"github.com/fleetsim/fleetsim/router"
	"github.com/fleetsim/fleetsim/workload"
)

// newRouter builds the router that cfg selects over pools (sorted by
// MaxContext ascending). seed is the run's seed; the routers that draw
// random numbers derive their streams from it (workload.StreamRouter,
// workload.StreamCompressor).
//
// Kinds: "length" (and "", the default), "token-budget", "spillover" and
// "cr" (package router, router.New). Zero tuning fields take the router
// package's defaults.
func newRouter(cfg RouterConfig, pools []router.Pool, seed uint64) (router.Router, error) {
	var gate []workload.Category
	for _, name := range cfg.Compressible {
		c, err := workload.ParseCategory(name)
		if err != nil {
			return nil, fmt.Errorf("router.compressible: %w", err)
		}
		gate = append(gate, c)
	}
	return router.New(router.Config{
		Kind:             cfg.Kind,
		BShort:           cfg.BShort,
		Gamma:            cfg.Gamma,
		PC:               cfg.PC,
		SpillQueuePerGPU: cfg.SpillQueuePerGPU,
		EMADecay:         cfg.EMADecay,
		SpillKVOccupancy: cfg.SpillKVOccupancy,
		SigmaWeight:      cfg.SigmaWeight,
		ColdStart:        cfg.ColdStart,
		MinObservations:  cfg.MinObservations,
		Compressible:     gate,
		CompressP50S:     cfg.CompressP50S,
		CompressP99S:     cfg.CompressP99S,
	}, pools, seed)
}
