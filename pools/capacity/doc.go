// Package capacity plans reserved capacity (provisioned throughput units,
// committed GPUs) for a request trace, after the slosizer formalization
// (docs/references.md; docs/capacity.md):
//
//   - a provider Profile turns each request into work
//     B = w_in·(I − C) + w_cache·C + w_out·O + w_think·H adjusted tokens,
//     and one reserved unit serves τ adjusted tokens per second;
//   - throughput planning buckets the work into windows of Δ seconds,
//     X_n = D_n/(τΔ) units, and picks the smallest purchasable G that covers
//     a percentile of X_n in the worst window (plus headroom), or keeps the
//     worst window's overload probability P(X_n > G) under a target;
//   - latency planning adds a single-server FCFS fluid queue at rate G·τ to a
//     baseline latency L_base (a linear model in I, C, O, H, fitted by
//     non-negative least squares when observed latencies are given) and picks
//     the smallest G whose latency percentile meets a threshold.
//
// The package is pure: no I/O, clock or randomness; it never imports sim.
// The check of the fluid model against the iteration-level simulator lives
// in sim/capacitycheck.
package capacity
