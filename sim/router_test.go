package sim

import (
	"reflect"
	"testing"

	"github.com/fleetsim/fleetsim/router"
	"github.com/fleetsim/fleetsim/workload"
)

// TestCompressAndRoute runs the C&R router end to end: compressed requests
// reach the short pool after the compression delay with fewer prompt tokens,
// the others are served as they came, and two runs agree record for record.
func TestCompressAndRoute(t *testing.T) {
	const n = 20000
	spec := workload.Spec{CDF: "azure", Rate: 200, Requests: n}
	cfg := Config{
		Seed: 3, Workload: spec, Timing: "kv", WarmupFraction: 0.1,
		Pools: []PoolConfig{
			{Name: "short", GPU: "a100", Count: 10, MaxContext: 4096},
			{Name: "long", GPU: "a100", Count: 30, MaxContext: 65536},
		},
		Router: RouterConfig{Config: router.Config{Kind: "cr", PC: router.DefaultPC}},
	}
	run := func() ([]Record, *Summary) {
		src, err := workload.NewSource(spec, cfg.Seed)
		if err != nil {
			t.Fatal(err)
		}
		sink := &memSink{}
		s, err := Run(cfg, src, sink, Options{})
		if err != nil {
			t.Fatal(err)
		}
		return sink.recs, s
	}
	recs, s := run()
	checkConservation(t, s)
	if len(recs) != n {
		t.Fatalf("%d records, want %d", len(recs), n)
	}
	compressed, cut := 0, 0
	for _, r := range recs {
		if !r.Compressed || r.Rejected {
			if !r.Rejected && r.InputTokens != r.OriginalInputTokens {
				t.Fatalf("request %d not compressed but served %d of %d prompt tokens", r.ID, r.InputTokens, r.OriginalInputTokens)
			}
			continue
		}
		compressed++
		if r.InputTokens < r.OriginalInputTokens {
			cut++
		}
		// The router cuts the prompt to at most b_short - max_output tokens
		// (unchanged when the true prompt already fits: the estimate was high).
		if r.InputTokens > r.OriginalInputTokens || r.InputTokens+r.OutputTokens > 4096 || r.Pool != "short" {
			t.Errorf("compressed request %d: %d -> %d tokens, pool %s", r.ID, r.OriginalInputTokens, r.InputTokens, r.Pool)
		}
		if !(r.AdmitS > r.ArrivalS) || !(r.QueueWaitS > 0) {
			t.Errorf("compressed request %d admitted at %v, arrived at %v: no compression delay", r.ID, r.AdmitS, r.ArrivalS)
		}
	}
	if compressed == 0 || cut == 0 {
		t.Errorf("%d requests compressed, %d of them cut: C&R not exercised", compressed, cut)
	}
	recs2, s2 := run()
	if !reflect.DeepEqual(stripNaN(recs), stripNaN(recs2)) || !reflect.DeepEqual(s, s2) {
		t.Error("two runs with the same seed differ")
	}
	t.Logf("%d of %d compressed, %d cut", compressed, n, cut)
}

// TestCalendarShortcut: handling arrivals without the calendar when nothing
// else is due (onArrival) gives exactly the records of a run that sends
// every arrival through simgo, here with compression delays and ticks.
func TestCalendarShortcut(t *testing.T) {
	const n = 5000
	spec := workload.Spec{CDF: "azure", Rate: 300, Requests: n}
	cfg := Config{
		Seed: 5, Workload: spec, Timing: "kv", WarmupFraction: 0.2,
		Pools: []PoolConfig{
			{Name: "short", GPU: "a100", Count: 4, MaxContext: 4096},
			{Name: "long", GPU: "a100", Count: 12, MaxContext: 65536},
		},
		Router: RouterConfig{Config: router.Config{Kind: "cr", PC: router.DefaultPC}, RetryDelayS: 0.2},
	}
	run := func(calendarOnly bool) ([]Record, *Summary) {
		src, err := workload.NewSource(spec, cfg.Seed)
		if err != nil {
			t.Fatal(err)
		}
		sink := &memSink{}
		f, err := newFleet(cfg, src, sink, Options{})
		if err != nil {
			t.Fatal(err)
		}
		f.calendarOnly = calendarOnly
		if err := f.run(); err != nil {
			t.Fatal(err)
		}
		return sink.recs, f.summary()
	}
	r1, s1 := run(false)
	r2, s2 := run(true)
	if len(r1) != n || !reflect.DeepEqual(stripNaN(r1), stripNaN(r2)) || !reflect.DeepEqual(s1, s2) {
		t.Error("the calendar shortcut changed the results")
	}
}
