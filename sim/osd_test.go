package sim

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/fleetsim/fleetsim/workload"
)

// a10gOSD runs one a10g at max context 2048 (kv timing; 20 slots,
// pools/gpu.go) on L_total uniform in [50, 2000] (80% input) at rate req/s
// for 300 simulated seconds (rate × 300 requests), 20% warm-up.
func a10gOSD(t *testing.T, rate float64, seed uint64, mode string) *Summary {
	return a10gOSDWarm(t, rate, seed, mode, 0.2)
}

func a10gOSDWarm(t *testing.T, rate float64, seed uint64, mode string, warm float64) *Summary {
	t.Helper()
	n := int(300 * rate)
	cfg := fleetCfg(n, warm, PoolConfig{Name: "a", GPU: "a10g", Count: 1, MaxContext: 2048})
	cfg.Workload.Rate = rate
	cfg.OSD.Mode = mode
	s, err := Run(cfg, newPoisson(n, rate, 50, 2000, seed), nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestOSDA10GBoundary is issue 9's acceptance case: the pool saturates
// between 12.5 and 13 req/s (TestOverloadDetector's estimate: roughly
// 14 req/s at full batch, less with the prefill work). guidellm's detector,
// in simulated time, must never fire at 12 or 12.5 req/s on 8 seeds and must
// always fire at 14 req/s. At 13 req/s (overloaded) it fires on every seed,
// where the backlog-slope flag catches only some (the issue: 2 of 8).
func TestOSDA10GBoundary(t *testing.T) {
	for _, c := range []struct {
		rate float64
		want bool
	}{{12, false}, {12.5, false}, {13, true}, {14, true}} {
		var line strings.Builder
		backlog := 0
		for seed := range uint64(8) {
			s := a10gOSD(t, c.rate, seed+1, "")
			v := s.Pools[0].OSD
			if v.Fired != c.want || s.Fleet.OSD.Fired != c.want {
				t.Errorf("rate %v seed %d: fired %v (fleet %v), want %v; final %+v", c.rate, seed+1, v.Fired, s.Fleet.OSD.Fired, c.want, v.Final)
			}
			if v.Fired {
				fmt.Fprintf(&line, " %.0fs", *v.FiredAtS)
			} else {
				line.WriteString(" -")
			}
			if s.Pools[0].Overloaded {
				backlog++
			}
		}
		t.Logf("rate %4.1f req/s: OSD fired at%s; backlog flag on %d of 8 seeds", c.rate, line.String(), backlog)
	}
}

// TestOSDEnforceStops: at 40 req/s on the a10g, enforce stops the run at
// the detection, reports who and when, and leaves the unfinished requests
// in flight (conserved; no warm-up, so they are all counted); monitor runs to the end with the same detection
// time and the same records up to it.
func TestOSDEnforceStops(t *testing.T) {
	mon := a10gOSDWarm(t, 40, 3, OSDMonitor, 0)
	enf := a10gOSDWarm(t, 40, 3, OSDEnforce, 0)
	if !mon.Pools[0].OSD.Fired || mon.OSDStop != nil {
		t.Fatalf("monitor: fired %v, stop %+v", mon.Pools[0].OSD.Fired, mon.OSDStop)
	}
	st := enf.OSDStop
	if st == nil {
		t.Fatal("enforce: the run was not stopped")
	}
	first := min(*mon.Pools[0].OSD.FiredAtS, *mon.Fleet.OSD.FiredAtS)
	if st.DetectedAtS != first || st.StoppedAtS < st.DetectedAtS {
		t.Errorf("stop %+v; monitor first fired at %v", st, first)
	}
	if enf.Requests >= mon.Requests || enf.SimTimeS > st.StoppedAtS+1e-9 {
		t.Errorf("enforce run not shorter: %d requests to %v s (monitor %d)", enf.Requests, enf.SimTimeS, mon.Requests)
	}
	if enf.Pools[0].InFlight == 0 {
		t.Error("no request left in flight at the stop of an overloaded pool")
	}
	checkConservation(t, enf)
	t.Logf("enforce: stopped by %s at %.2f s after %d arrivals, %d in flight", st.By, st.StoppedAtS, enf.Requests, enf.Pools[0].InFlight)
}

// TestOSDObservesOnly: the detectors never change what the fleet does:
// records are identical with --osd off and monitor, across dispatch modes
// and routers with delays and retries, and the detectors are fed in time
// order.
func TestOSDObservesOnly(t *testing.T) {
	for _, disp := range []string{"central", "jsq", "rr"} {
		run := func(mode string) ([]Record, *Summary, *fleet) {
			const n = 3000
			cfg := fleetCfg(n, 0.1,
				PoolConfig{Name: "s", GPU: "a10g", Count: 2, MaxContext: 2048, Dispatch: disp},
				PoolConfig{Name: "l", GPU: "a10g", Count: 1, MaxContext: 8192, Dispatch: disp})
			cfg.Workload.Rate = 30
			cfg.Router.RetryDelayS = 0.05
			cfg.OSD.Mode = mode
			sink := &memSink{}
			// Some requests exceed the short pool and are retried.
			src := &mapSource{src: newPoisson(n, 30, 50, 4000, 5), f: func(r *workload.Request) { r.MaxOutputTokens = 1 }}
			f, err := newFleet(cfg, src, sink, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if err := f.run(); err != nil {
				t.Fatal(err)
			}
			return sink.recs, f.summary(), f
		}
		offR, offS, _ := run(OSDOff)
		monR, monS, f := run(OSDMonitor)
		if !reflect.DeepEqual(stripNaN(offR), stripNaN(monR)) {
			t.Errorf("%s: records differ between --osd off and monitor", disp)
		}
		if offS.Pools[0].OSD != (OSDVerdict{}) || monS.Pools[0].OSD.Mode != OSDMonitor {
			t.Errorf("%s: verdicts off %+v, monitor %+v", disp, offS.Pools[0].OSD, monS.Pools[0].OSD)
		}
		if f.osd.backwards != 0 {
			t.Errorf("%s: %d detector events fed out of time order", disp, f.osd.backwards)
		}
		for i, p := range f.pools {
			if n := f.osd.pools[i].InFlight(); int64(n) != 0 {
				t.Errorf("%s: pool %s detector counts %d in flight after the drain", disp, p.cfg.Name, n)
			}
		}
	}
}

func TestOSDConfigValidate(t *testing.T) {
	cfg := fleetCfg(10, 0.1, PoolConfig{Name: "p", GPU: "a100", Count: 1, MaxContext: 4096})
	cfg.Workload.CDF, cfg.Workload.Rate = "azure", 1
	cfg.SLO = SLO{TTFTS: 1, TPOTS: 1}
	cfg.OSD.Mode = "on"
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "osd.mode") {
		t.Errorf("mode on: %v", err)
	}
	cfg.OSD.Mode = OSDEnforce
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
}
