// Package sweep holds the searches and grids that need the simulator: a
// grid over scenario keys (rate, pool counts, GPUs, router, B_short, γ,
// timing, seeds) run in parallel on a worker pool, a deterministic partition
// of the grid into shards for runs across machines, and the search for the
// highest arrival rate a fleet sustains (a guidellm-style sweep refined by
// bisection, decided by the over-saturation detector) — `fleetsim sweep`,
// docs/sweep.md; and the smallest fleet that meets latency targets in
// simulation (`fleetsim size`, size.go).
//
// A grid's results never depend on scheduling: every point is a pure function of the
// base scenario and the point's own keys (its seed is the point's seed key),
// and results are returned in grid order whatever the number of workers.
//
// The package does no file I/O; the writers (sweep.parquet, the Markdown
// table, the plots) are in sim/export.
package sweep
