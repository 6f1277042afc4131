package osd

import "testing"

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
