// Package osd is an over-saturation detector: guidellm's OSD algorithm
// (guidellm.scheduler.constraints.saturation, docs/references.md)
// re-implemented for simulated time.
//
// A Detector watches two series and fits a least-squares line to each:
//
//   - concurrency: the number of requests in flight, sampled at every request
//     start (the request that starts is counted);
//   - TTFT: the time to first token of every request, sampled when its first
//     token appears.
//
// Both windows drop their oldest points when they hold more than
// MaximumWindowRatio of all the points they were ever given, or when their
// oldest point is more than MaximumWindowSeconds old. After every event the
// detector evaluates its alert: the run must be at least MinimumDuration
// (and MinimumTTFT) seconds old; at least half of the TTFTs in the window must
// exceed MinimumTTFT; the concurrency slope must be positive with a relative
// margin of error (t-quantile × standard error / slope) below MOEThreshold;
// and, once the TTFT window has MinimumWindowSize points, so must the TTFT
// slope. The sample size used for the degrees of freedom and the minimum-size
// checks is the effective n = min(seconds since the start, points in the
// window), guidellm's guard against counting requests of the same second as
// independent.
//
// The package is pure: no I/O, no clock, no randomness. Times are simulated
// seconds passed in by the caller; every method is O(1) amortized.
package osd
