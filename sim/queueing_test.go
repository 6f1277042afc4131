package sim

import (
	"math"
	"reflect"
	"testing"

	"github.com/fleetsim/fleetsim/pools/queueing"
	"github.com/fleetsim/fleetsim/workload"
)

// TestMMcAgainstErlangC checks central dispatch against queueing theory. An
// a10g instance at max context 40,960 has exactly one slot (pools/catalog/gpu.go:
// min(5*8192/40960, 2688/2560) = 1), so a pool of c instances with a central
// queue is an M/G/c queue. With paper timing every iteration of a lone
// sequence lasts W + H = 6.5 ms; a 100-token prompt is prefilled in one
// iteration that yields the first token, so S = L_out*(W+H). L_out is
// geometric with mean 50 (squared coefficient of variation of S is
// 1 - 1/50 = 0.98, almost exponential), so the M/M/c formulas apply:
// P(wait > 0) = ErlangC(c, a) and E[wait] = ErlangC*E[S]/(c - a), a = λE[S]
// (queueing.ErlangC, itself tested against exact rational values). A request
// that finds an instance idle starts at once (wait exactly 0).
func TestMMcAgainstErlangC(t *testing.T) {
	const (
		c    = 4
		n    = 60000
		mean = 50.0
		d    = 0.006 + 0.0005 // a10g W + H, s
		rho  = 0.7
	)
	es := mean * d
	lambda := rho * c / es
	lens := workload.NewRand(17, workload.StreamLengths)
	src := &mapSource{src: newPoisson(n, lambda, 10, 10, 17), f: func(r *workload.Request) {
		r.InputTokens = 100
		r.OutputTokens = 1 + int(math.Floor(lens.ExpFloat64()/-math.Log(1-1/mean)))
		r.MaxOutputTokens = r.OutputTokens
	}}
	cfg := fleetCfg(n, 0.1, PoolConfig{Name: "p", GPU: "a10g", Count: c, MaxContext: 40960})
	cfg.Timing = "paper"
	sink := &memSink{}
	s, err := Run(cfg, src, sink, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s.Pools[0].Slots != 1 {
		t.Fatalf("slots %d, want 1", s.Pools[0].Slots)
	}
	var waited, cnt int
	var sumWait, sumS float64
	for _, r := range sink.recs {
		if r.Warmup || r.Rejected {
			continue
		}
		cnt++
		if r.QueueWaitS > 0 {
			waited++
		}
		sumWait += r.QueueWaitS
		sumS += r.FinishS - r.AdmitS
	}
	// Measured mean service time and offered load.
	esm := sumS / float64(cnt)
	a := s.Pools[0].ArrivalRPS * esm
	pc := queueing.ErlangC(c, a)
	wq := pc * esm / (c - a)
	pw := float64(waited) / float64(cnt)
	mw := sumWait / float64(cnt)
	t.Logf("a = %.3f: P(wait>0) %.4f (Erlang C %.4f), mean wait %.4f s (M/M/c %.4f s), utilization %.4f (rho %.4f)",
		a, pw, pc, mw, wq, s.Pools[0].SlotUtilization, a/c)
	if math.Abs(pw-pc) > 0.03 {
		t.Errorf("P(wait > 0) = %.4f, Erlang C gives %.4f", pw, pc)
	}
	if math.Abs(mw-wq) > 0.1*wq {
		t.Errorf("mean wait %.4f s, M/M/c gives %.4f s", mw, wq)
	}
	if u := s.Pools[0].SlotUtilization; math.Abs(u-a/c) > 0.02*a/c {
		t.Errorf("utilization %.4f, want rho = %.4f", u, a/c)
	}
}

// TestCentralOneInstanceEqualsPrivateQueue: with one instance, the central
// queue (pulled by the instance at its iteration starts, through the pool's
// event-by-event advance) must give exactly the records of the engine's own
// FCFS private queue (round robin over one instance). Loads from light to
// saturated, with KV pressure (a10g: 2,688 blocks) and long prompts.
func TestCentralOneInstanceEqualsPrivateQueue(t *testing.T) {
	cases := []struct {
		gpu    string
		maxCtx int
		rate   float64
		lo, hi int
	}{
		{"a10g", 8192, 0.5, 50, 8000},
		{"a10g", 8192, 3, 50, 8000},
		{"a10g", 2048, 20, 50, 2000},
		{"a100", 4096, 40, 100, 4000},
		{"a100", 4096, 400, 100, 4000},
	}
	for _, tc := range cases {
		run := func(dispatch string) ([]Record, *Summary) {
			cfg := fleetCfg(3000, 0.1, PoolConfig{Name: "p", GPU: tc.gpu, Count: 1, MaxContext: tc.maxCtx, Dispatch: dispatch})
			sink := &memSink{}
			s, err := Run(cfg, newPoisson(3000, tc.rate, tc.lo, tc.hi, 21), sink, Options{})
			if err != nil {
				t.Fatal(err)
			}
			return sink.recs, s
		}
		central, sc := run("central")
		private, _ := run("rr")
		if len(central) != len(private) {
			t.Fatalf("%+v: %d records vs %d", tc, len(central), len(private))
		}
		for i := range central {
			if !reflect.DeepEqual(stripNaN(central[i:i+1]), stripNaN(private[i:i+1])) {
				t.Fatalf("%+v: record %d differs:\ncentral %+v\nprivate %+v", tc, i, central[i], private[i])
			}
		}
		t.Logf("%s@%d at %v req/s: utilization %.3f, P99 wait %.3f s, preemptions %d",
			tc.gpu, tc.maxCtx, tc.rate, sc.Pools[0].SlotUtilization, sc.Pools[0].QueueWait.P99, sc.Pools[0].Preemptions)
	}
}
