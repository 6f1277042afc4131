package sim

import "testing"

// TestOSDEnforceInDrain: the arrivals end at 25 s (40 req/s × 1,000
// requests on the a10g, far beyond its ~13 req/s), before minimum_duration
// (30 s) allows an alert, so the detector can only fire while the backlog
// drains. Enforce must stop the run there too: the stop is reported at the
// time of the event that raised the alert (not 0), the run's simulated time
// ends there, and the requests still queued stay in flight without a
// record, as for a stop during the arrivals (docs/osd.md, "Enforce").
func TestOSDEnforceInDrain(t *testing.T) {
	const rate, n = 40, 1000
	run := func(mode string) *Summary {
		s, err := Run(a10gCfg(rate, n, 0, mode), newPoisson(n, rate, 50, 2000, 3), nil, Options{})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	mon := run(OSDMonitor)
	if !mon.Pools[0].OSD.Fired || *mon.Pools[0].OSD.FiredAtS <= mon.WindowEndS {
		t.Fatalf("monitor: fired %v at %v; the case needs a detection after the last arrival (%v s)",
			mon.Pools[0].OSD.Fired, mon.Pools[0].OSD.FiredAtS, mon.WindowEndS)
	}
	first := min(*mon.Pools[0].OSD.FiredAtS, *mon.Fleet.OSD.FiredAtS)
	enf := run(OSDEnforce)
	st := enf.OSDStop
	if st == nil {
		t.Fatal("enforce: the run was not stopped")
	}
	if st.DetectedAtS != first || st.StoppedAtS < st.DetectedAtS {
		t.Errorf("stop %+v; monitor first fired at %v", st, first)
	}
	if enf.SimTimeS > st.StoppedAtS+1e-9 || enf.SimTimeS >= mon.SimTimeS {
		t.Errorf("enforce ran to %v s (stop at %v s, monitor to %v s)", enf.SimTimeS, st.StoppedAtS, mon.SimTimeS)
	}
	if enf.Pools[0].InFlight == 0 {
		t.Error("no request left in flight at a stop during the drain of an overloaded pool")
	}
	checkConservation(t, enf)
}
