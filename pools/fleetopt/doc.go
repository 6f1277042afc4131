// Package fleetopt is the FleetOpt planner: service-time calibration of a
// pool from a slice (or a mixture of slices) of a token-length CDF, the
// methods it compares (homogeneous, pool routing, retrofit with C&R, the
// FleetOpt sweep over the boundary B and bandwidth γ), the cost model, and
// plan files read back as pools for a simulation. It sizes pools with
// pools/queueing and takes GPU profiles from pools/catalog.
package fleetopt
