package sim

import (
	"testing"

	"github.com/fleetsim/fleetsim/workload"
)

// TestOSDEnforceWithRetries: an enforce stop while retried requests wait for
// their delayed delivery keeps every count conserved (arrived = completed +
// rejected + in flight, fleet and pools) and the detectors' own in-flight
// counts equal the fleet's, with no warm-up so that every request counts.
func TestOSDEnforceWithRetries(t *testing.T) {
	for _, disp := range []string{"central", "jsq"} {
		const n, rate = 6000, 60
		cfg := fleetCfg(n, 0,
			PoolConfig{Name: "s", GPU: "a10g", Count: 1, MaxContext: 2048, Dispatch: disp},
			PoolConfig{Name: "l", GPU: "a10g", Count: 1, MaxContext: 8192, Dispatch: disp})
		cfg.Workload.Rate = rate
		cfg.Router.RetryDelayS = 0.5
		cfg.OSD.Mode = OSDEnforce
		src := &mapSource{src: newPoisson(n, rate, 50, 4000, 5), f: func(r *workload.Request) { r.MaxOutputTokens = 1 }}
		f, err := newFleet(cfg, src, &memSink{}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if err := f.run(); err != nil {
			t.Fatal(err)
		}
		s := f.summary()
		if s.OSDStop == nil {
			t.Fatalf("%s: not stopped", disp)
		}
		checkConservation(t, s)
		if got := int64(f.osd.fleet.InFlight()); got != s.Fleet.InFlight {
			t.Errorf("%s: fleet detector counts %d in flight, summary %d", disp, got, s.Fleet.InFlight)
		}
		for i, p := range f.pools {
			if got := int64(f.osd.pools[i].InFlight()); got != s.Pools[i].InFlight {
				t.Errorf("%s: pool %s detector counts %d in flight, summary %d", disp, p.cfg.Name, got, s.Pools[i].InFlight)
			}
		}
		t.Logf("%s: stop %+v, fleet in flight %d", disp, *s.OSDStop, s.Fleet.InFlight)
	}
}
