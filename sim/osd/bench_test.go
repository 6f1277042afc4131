package osd

import (
	"runtime"
	"testing"

	"github.com/fleetsim/fleetsim/internal/cputime"
)

// threadCPU pins the benchmark to its thread and returns a function that
// reports the thread's CPU time per op (cpu-ns/op): on a shared machine
// ns/op counts the waits for a core as well.
func threadCPU(b *testing.B) func() {
	runtime.LockOSThread()
	t0, ok0 := cputime.Thread()
	return func() {
		t1, ok1 := cputime.Thread()
		runtime.UnlockOSThread()
		if ok0 && ok1 && b.N > 0 {
			b.ReportMetric((t1-t0)*1e9/float64(b.N), "cpu-ns/op")
		}
	}
}

// BenchmarkDetectorSteady feeds one detector the events of requests arriving
// every millisecond (1,000 req/s), each starting, getting its first token
// 60 ms later and ending 2 s later, in time order: the default scenario's
// fleet detector, with full 120 s windows (~120,000 points each) once warm.
// One op is one request (three events).
func BenchmarkDetectorSteady(b *testing.B) {
	d := New(DefaultConfig(), 0)
	const dt, ttft, e2e = 0.001, 0.06, 2.0
	// Pending first tokens and ends, in time order (fixed offsets).
	k := 0
	defer threadCPU(b)()
	for b.Loop() {
		t := float64(k) * dt
		d.Start(t)
		if j := k - int(ttft/dt); j >= 0 {
			d.FirstToken(float64(j)*dt+ttft, ttft)
		}
		if j := k - int(e2e/dt); j >= 0 {
			d.End(float64(j)*dt + e2e)
		}
		k++
	}
}
