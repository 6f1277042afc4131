// Package queueing holds the queueing layer of the planner: the Erlang-C
// probability of waiting, Kimura's P99 wait for M/G/c (FleetOpt eq. 5, 6,
// 16) and the minimum GPU count of one pool under a P99 wait budget and a
// utilization cap (FleetOpt eq. 11 and Appendix A). It knows nothing of
// GPUs or workloads: callers pass rates, slots and service-time moments.
package queueing
