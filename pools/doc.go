// Package pools holds no code: it names the analytic layer of fleetsim, one
// concept per subpackage.
//
//   - pools/catalog: GPU profiles, models and deployments, slots per
//     instance at a max context, and the engine configuration of a GPU.
//   - pools/queueing: Erlang-C, Kimura's P99 wait for M/G/c, and the
//     SLO-constrained minimum GPU count of one pool.
//   - pools/fleetopt: service-time calibration from a token-length CDF,
//     the FleetOpt planner (homogeneous, pool routing, retrofit, FleetOpt
//     sweep), the cost model, and plan files read back for simulation.
//
// The subpackages may import engine and workload; fleetopt builds on
// catalog and queueing, and neither of those imports another pools
// package. No pools package imports sim: searches that need a simulation
// live above it.
package pools
