package engine

import "testing"

// BenchmarkSecondsLate converts arrival-like times past 4,096 s (the slow
// rounding path, roundestPS).
func BenchmarkSecondsLate(b *testing.B) {
	s := 5000.0
	var sink Time
	for range b.N {
		sink += Seconds(s)
		s += 0.000731
	}
	_ = sink
}

// BenchmarkSecondsEarly converts times below 4,096 s (one rounding).
func BenchmarkSecondsEarly(b *testing.B) {
	s := 1.0
	var sink Time
	for range b.N {
		sink += Seconds(s)
		s += 0.000731
	}
	_ = sink
}
