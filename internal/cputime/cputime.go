// Package cputime reads CPU time for benchmarks. On a shared machine a
// benchmark's wall-clock rate measures waiting as much as work, so the
// benchmarks of the project report CPU-time rates beside ns/op; this is the
// one place that reads the clocks.
package cputime
