package sim

import (
	"testing"

	"github.com/fleetsim/fleetsim/workload"
)

// TestObservingChangesNothing: the warm-up fraction and the sampling ticks
// only observe the fleet. Changing either must leave every record (but its
// warm-up flag) identical, under every dispatch mode, in a loaded fleet where
// dispatch decisions are sensitive to the state each instance shows.
func TestObservingChangesNothing(t *testing.T) {
	for _, mode := range []string{DispatchCentral, DispatchJSQ, DispatchRR} {
		cfg := Defaults()
		cfg.Workload = workload.Spec{CDF: "azure", Rate: 300, Requests: 20_000}
		cfg.Pools = []PoolConfig{
			{Name: "short", GPU: "a100", Count: 8, MaxContext: 4096, Dispatch: mode},
			{Name: "long", GPU: "a100", Count: 12, MaxContext: 65536, Dispatch: mode},
		}
		run := func(warmup, tick float64) []Record {
			c := cfg
			c.WarmupFraction = warmup
			src, err := workload.NewSource(c.Workload, c.Seed)
			if err != nil {
				t.Fatal(err)
			}
			sink := &memSink{}
			f, err := newFleet(c, src, sink, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if tick > 0 {
				f.tick = tick
			}
			if err := f.run(); err != nil {
				t.Fatal(err)
			}
			return sink.recs
		}
		base := run(0.2, 0)
		for _, v := range []struct {
			name         string
			warmup, tick float64
		}{{"warm-up 0.5", 0.5, 0}, {"ticks every 3 ms", 0.2, 0.003}} {
			got := run(v.warmup, v.tick)
			if len(got) != len(base) {
				t.Fatalf("%s, %s: %d records, want %d", mode, v.name, len(got), len(base))
			}
			want, have := stripNaN(base), stripNaN(got)
			diff := 0
			for i := range have {
				want[i].Warmup, have[i].Warmup = false, false
				if want[i] != have[i] {
					diff++
				}
			}
			if diff > 0 {
				t.Errorf("%s, %s: %d of %d records differ from the base run", mode, v.name, diff, len(got))
			}
		}
	}
}
