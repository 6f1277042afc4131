// Package autoscale holds the autoscaling policies of a simulated day
// (docs/day.md): pure controllers that take what a real controller can
// observe of each pool every interval (Observation) and return the number
// of instances each pool should have. They hold no simulation state
// beyond their own memory (the threshold policy's stabilization windows)
// and do no I/O; the simulator applies their answers through
// sim.Lifecycle.
//
// Policies: static (today's fixed fleet), threshold (Kubernetes-HPA-like
// on one metric), wva (the variant optimizer of pools/variants on the load
// measured over the last interval) and schedule (instances given as data
// per time of day).
package autoscale
