package experiments

import "testing"

// BenchmarkFleetOptTable3 is the whole of Table 3 (four methods × three
// workloads, exact and Monte Carlo calibration).
func BenchmarkFleetOptTable3(b *testing.B) {
	for b.Loop() {
		if _, err := FleetOptTable3(Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFleetOptTable5 is Table 5 at its default size: three planned
// fleets simulated (1,483,817 requests in all at the time of writing, see
// docs/experiments.md). Run it with -benchtime 1x.
func BenchmarkFleetOptTable5(b *testing.B) {
	for b.Loop() {
		if _, err := FleetOptTable5(Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkExperimentAll is `fleetsim experiment all` at the default sizes
// (every table and figure of both papers; the target is ≤ 10 minutes on
// 2 cores). Run it with -benchtime 1x.
func BenchmarkExperimentAll(b *testing.B) {
	for b.Loop() {
		for _, e := range All() {
			if _, err := e.Run(Options{}); err != nil {
				b.Fatal(e.Name, err)
			}
		}
	}
}
