package engine

import "testing"

// BenchmarkSeconds converts arrival-like times below 4,096 s (one rounding)
// and past it (the slower exact path, roundestPS).
func BenchmarkSeconds(b *testing.B) {
	for _, c := range []struct {
		name  string
		start float64
	}{{"Early", 1}, {"Late", 5000}} {
		b.Run(c.name, func(b *testing.B) {
			s := c.start
			var sink Time
			for range b.N {
				sink += Seconds(s)
				s += 0.000731
			}
			_ = sink
		})
	}
}
