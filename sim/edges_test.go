package sim

import (
	"errors"
	"testing"

	"github.com/fleetsim/fleetsim/workload"
)

// TestIdleGapSkipsTicks: a trace that pauses for 10^12 s (a timestamp unit
// mix-up, say) must not cost one sampling tick per simulated second.
func TestIdleGapSkipsTicks(t *testing.T) {
	cfg := Config{
		Pools:    []PoolConfig{{Name: "p", GPU: "a100", Count: 1, MaxContext: 4096}},
		Timing:   "kv",
		Workload: workload.Spec{Requests: 2},
		SLO:      SLO{TTFTS: 1, TPOTS: 1},
	}
	src := &sliceSource{reqs: []workload.Request{
		{ID: 0, Arrival: 0, InputTokens: 100, OutputTokens: 3, MaxOutputTokens: 3},
		{ID: 1, Arrival: 4e6, InputTokens: 100, OutputTokens: 3, MaxOutputTokens: 3},
	}}
	sink := &memSink{}
	f, err := newFleet(cfg, src, sink, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.run(); err != nil {
		t.Fatal(err)
	}
	if len(sink.recs) != 2 || !(sink.recs[1].FinishS > 4e6) {
		t.Fatalf("records %+v: want both requests served, the second after 4e6 s", sink.recs)
	}
	if f.ticks > 10 {
		t.Errorf("%d sampling ticks over an idle gap of 4e6 s, want a handful", f.ticks)
	}
}

// TestStopOption: Options.Stop ends a run with ErrStopped.
func TestStopOption(t *testing.T) {
	cfg := Config{
		Pools:    []PoolConfig{{Name: "p", GPU: "a100", Count: 2, MaxContext: 4096}},
		Timing:   "kv",
		Workload: workload.Spec{Rate: 50, Requests: 10_000},
		SLO:      SLO{TTFTS: 1, TPOTS: 1},
	}
	polls := 0
	stop := func() bool { polls++; return polls > 100 }
	_, err := Run(cfg, newPoisson(10_000, 50, 100, 2000, 1), &memSink{}, Options{Stop: stop})
	if !errors.Is(err, ErrStopped) {
		t.Fatalf("Run: %v, want ErrStopped", err)
	}
	if polls != 101 {
		t.Errorf("Stop polled %d times after asking to stop at the 101st", polls)
	}
}

// TestWindowIncludesCompletionAtT0: a request finishing exactly when the
// measurement window opens (the first post-warm-up arrival) finished inside
// the window [T0, T1] and counts in its throughput.
func TestWindowIncludesCompletionAtT0(t *testing.T) {
	pool := PoolConfig{Name: "p", GPU: "a100", Count: 1, MaxContext: 4096}
	r0 := workload.Request{ID: 0, Arrival: 0, InputTokens: 100, OutputTokens: 3, MaxOutputTokens: 3}
	// Its finish time, from a run of its own.
	one := &memSink{}
	if _, err := Run(fleetCfg(1, 0, pool), &sliceSource{reqs: []workload.Request{r0}}, one, Options{}); err != nil {
		t.Fatal(err)
	}
	t0 := one.recs[0].FinishS
	reqs := []workload.Request{r0,
		{ID: 1, Arrival: t0, InputTokens: 100, OutputTokens: 3, MaxOutputTokens: 3},
		{ID: 2, Arrival: t0 + 1, InputTokens: 100, OutputTokens: 3, MaxOutputTokens: 3},
	}
	// 3 requests, warm-up 1/3: request 0 is warm-up, T0 = t0, T1 = t0 + 1.
	s, err := Run(fleetCfg(3, 1.0/3, pool), &sliceSource{reqs: reqs}, &memSink{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s.WindowStartS != t0 || s.WindowEndS != t0+1 {
		t.Fatalf("window [%v, %v], want [%v, %v]", s.WindowStartS, s.WindowEndS, t0, t0+1)
	}
	// Requests 0 (at T0) and 1 (well before T1) finish inside the window.
	if got := s.Fleet.ThroughputRPS; got != 2 {
		t.Errorf("throughput %v req/s over the 1 s window, want 2", got)
	}
}
