package sim

import (
	"math"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/fleetsim/fleetsim/workload"
)

// sliceSource yields a fixed list of requests.
type sliceSource struct {
	reqs []workload.Request
	i    int
}

func (s *sliceSource) Next(r *workload.Request) bool {
	if s.i >= len(s.reqs) {
		return false
	}
	*r = s.reqs[s.i]
	s.i++
	return true
}

func (s *sliceSource) Err() error { return nil }

// poissonSource draws n requests with exponential inter-arrival times at
// rate req/s and L_total uniform in [lo, hi], input 80% (at least 1).
type poissonSource struct {
	n, i   int
	rate   float64
	lo, hi int
	t      float64
	seed   uint64
	rnd    interface {
		ExpFloat64() float64
		IntN(int) int
	}
}

func newPoisson(n int, rate float64, lo, hi int, seed uint64) *poissonSource {
	return &poissonSource{n: n, rate: rate, lo: lo, hi: hi, rnd: workload.NewRand(seed, workload.StreamArrivals)}
}

func (s *poissonSource) Next(r *workload.Request) bool {
	if s.i >= s.n {
		return false
	}
	s.t += s.rnd.ExpFloat64() / s.rate
	l := s.lo + s.rnd.IntN(s.hi-s.lo+1)
	in := max(1, l*8/10)
	out := max(1, l-in)
	*r = workload.Request{ID: int64(s.i), Arrival: s.t, InputTokens: in, OutputTokens: out, MaxOutputTokens: out, Bytes: 4 * in}
	s.i++
	return true
}

func (s *poissonSource) Err() error { return nil }

// memSink keeps every record.
type memSink struct{ recs []Record }

func (m *memSink) Write(r *Record) error {
	m.recs = append(m.recs, *r)
	return nil
}

func approxEq(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// TestTwoRequestsByHand: one A100 instance (kv timing: W = 8 ms,
// HKV = h = 0.65 ms/8192 per KV token, pools/catalog/gpu.go), two requests.
//
// r0 arrives at 0 (L_in 100, L_out 3); r1 at 1 ms (L_in 100, L_out 2).
//
//	it1 [0, a):    r0 prefill 100 tokens, kv 100     a = 0.008 + 100h; r0 first token
//	it2 [a, b):    r0 decode (kv 101) + r1 admitted, prefill 100 (kv 100)
//	               b = a + 0.008 + 201h = 0.016 + 301h; r0 token 2, r1 first token
//	it3 [b, c):    r0 decode kv 102, r1 decode kv 101
//	               c = b + 0.008 + 203h = 0.024 + 504h; both finish
//
// Records in (finish, ID) order: r0 then r1.
func TestTwoRequestsByHand(t *testing.T) {
	h := 0.00065 / 8192
	a, b, c := 0.008+100*h, 0.016+301*h, 0.024+504*h
	cfg := Config{
		Pools:    []PoolConfig{{Name: "p", GPU: "a100", Count: 1, MaxContext: 4096}},
		Timing:   "kv",
		Workload: workload.Spec{Requests: 2},
		SLO:      SLO{TTFTS: 0.01},
	}
	src := &sliceSource{reqs: []workload.Request{
		{ID: 0, Arrival: 0, InputTokens: 100, OutputTokens: 3, MaxOutputTokens: 3},
		{ID: 1, Arrival: 0.001, InputTokens: 100, OutputTokens: 2, MaxOutputTokens: 2},
	}}
	sink := &memSink{}
	sum, err := Run(cfg, src, sink, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(sink.recs) != 2 {
		t.Fatalf("%d records, want 2", len(sink.recs))
	}
	want := []Record{
		{ID: 0, ArrivalS: 0, AdmitS: 0, FirstTokenS: a, FinishS: c, QueueWaitS: 0, TTFTS: a, TPOTS: (c - a) / 2, E2ES: c},
		{ID: 1, ArrivalS: 0.001, AdmitS: a, FirstTokenS: b, FinishS: c, QueueWaitS: a - 0.001, TTFTS: b - 0.001, TPOTS: c - b, E2ES: c - 0.001},
	}
	for i, w := range want {
		g := sink.recs[i]
		if g.ID != w.ID || g.Pool != "p" || g.Instance != 0 || g.Rejected || g.Warmup {
			t.Errorf("record %d: %+v", i, g)
		}
		got := []float64{g.ArrivalS, g.AdmitS, g.FirstTokenS, g.FinishS, g.QueueWaitS, g.TTFTS, g.TPOTS, g.E2ES}
		exp := []float64{w.ArrivalS, w.AdmitS, w.FirstTokenS, w.FinishS, w.QueueWaitS, w.TTFTS, w.TPOTS, w.E2ES}
		for k := range got {
			if !approxEq(got[k], exp[k], 1e-12) {
				t.Errorf("record %d field %d: got %.15g want %.15g", i, k, got[k], exp[k])
			}
		}
	}
	p := sum.Pools[0]
	if p.Arrived != 2 || p.Completed != 2 || p.Rejected != 0 || p.InFlight != 0 {
		t.Errorf("counts %+v", p)
	}
	// SLO TTFT 10 ms: r0 (a = 8.008 ms) meets it, r1 (b-0.001 = 15 ms) does not.
	if p.SLOAttainment != 0.5 {
		t.Errorf("slo attainment %v, want 0.5", p.SLOAttainment)
	}
	// Busy slot-seconds over the window [0, 0.001]: one sequence running.
	if !approxEq(p.SlotUtilization, 1.0/256, 1e-12) {
		t.Errorf("utilization %v, want 1/256 (one of 256 slots busy)", p.SlotUtilization)
	}
}

func fleetCfg(n int, warm float64, pools ...PoolConfig) Config {
	return Config{Pools: pools, Timing: "kv", WarmupFraction: warm, Workload: workload.Spec{Requests: n}}
}

func checkConservation(t *testing.T, s *Summary) {
	t.Helper()
	for _, m := range append([]PoolMetrics{s.Fleet}, s.Pools...) {
		if m.Arrived != m.Completed+m.Rejected+m.InFlight || m.InFlight < 0 {
			t.Errorf("pool %s: arrived %d != completed %d + rejected %d + in flight %d",
				m.Name, m.Arrived, m.Completed, m.Rejected, m.InFlight)
		}
		if m.SlotUtilization < 0 || m.SlotUtilization > 1 {
			t.Errorf("pool %s: utilization %v outside [0,1]", m.Name, m.SlotUtilization)
		}
	}
}

func TestConservationAndDeterminism(t *testing.T) {
	for _, mode := range []string{"central", "jsq", "rr"} {
		t.Run(mode, func(t *testing.T) {
			cfg := fleetCfg(4000, 0.2,
				PoolConfig{Name: "short", GPU: "a10g", Count: 3, MaxContext: 2048, Dispatch: mode},
				PoolConfig{Name: "long", GPU: "a10g", Count: 2, MaxContext: 8192, Dispatch: mode},
			)
			run := func() ([]Record, *Summary) {
				sink := &memSink{}
				s, err := Run(cfg, newPoisson(4000, 40, 50, 9000, 7), sink, Options{})
				if err != nil {
					t.Fatal(err)
				}
				return sink.recs, s
			}
			r1, s1 := run()
			r2, s2 := run()
			if len(r1) != 4000 {
				t.Fatalf("%d records, want 4000", len(r1))
			}
			if !reflect.DeepEqual(stripNaN(r1), stripNaN(r2)) {
				t.Error("two runs with the same input gave different records")
			}
			if !reflect.DeepEqual(s1, s2) {
				t.Error("two runs gave different summaries")
			}
			checkConservation(t, s1)
			seen := make([]bool, 4000)
			prev := math.Inf(-1)
			for _, r := range r1 {
				if seen[r.ID] {
					t.Fatalf("request %d written twice", r.ID)
				}
				seen[r.ID] = true
				if r.Rejected {
					continue
				}
				if r.Instance < 0 || r.Instance >= 3 {
					t.Fatalf("request %d served by instance %d", r.ID, r.Instance)
				}
				if r.FinishS < prev {
					t.Fatalf("request %d finished at %v, before the previous record (%v)", r.ID, r.FinishS, prev)
				}
				prev = r.FinishS
				if !(r.AdmitS >= r.ArrivalS && r.FirstTokenS > r.AdmitS && r.FinishS >= r.FirstTokenS) {
					t.Fatalf("request %d: inconsistent times %+v", r.ID, r)
				}
			}
			// L_total above 8192 exists (up to 9000): misrouted by nobody, but
			// too long for every pool: rejected with a reason.
			if s1.Fleet.Rejected == 0 {
				t.Error("no rejection although some requests exceed every pool")
			}
			for _, r := range r1 {
				if r.Rejected && r.RejectedReason != RejectMisrouted {
					t.Errorf("unexpected rejection reason %q", r.RejectedReason)
				}
			}
		})
	}
}

// stripNaN replaces NaNs (which never compare equal) by a sentinel.
func stripNaN(rs []Record) []Record {
	out := append([]Record(nil), rs...)
	for i := range out {
		for _, p := range []*float64{&out[i].AdmitS, &out[i].FirstTokenS, &out[i].FinishS, &out[i].QueueWaitS, &out[i].TTFTS, &out[i].TPOTS, &out[i].E2ES} {
			if math.IsNaN(*p) {
				*p = -12345
			}
		}
	}
	return out
}

// TestCentralQueueFCFS: with one slot per instance... An a10g pool at max
// context 8192 has 5 slots per instance; saturate two instances with
// simultaneous long requests so that later ones wait in the central queue,
// and check that admissions follow arrival order (FCFS across instances).
func TestCentralQueueFCFS(t *testing.T) {
	var reqs []workload.Request
	for i := range 60 {
		reqs = append(reqs, workload.Request{ID: int64(i), Arrival: float64(i) * 0.01, InputTokens: 500 + 37*(i%7), OutputTokens: 50 + 13*(i%5), MaxOutputTokens: 200})
	}
	cfg := fleetCfg(len(reqs), 0, PoolConfig{Name: "p", GPU: "a10g", Count: 2, MaxContext: 8192})
	sink := &memSink{}
	s, err := Run(cfg, &sliceSource{reqs: reqs}, sink, Options{})
	if err != nil {
		t.Fatal(err)
	}
	admit := make([]float64, len(reqs))
	waited := 0
	for _, r := range sink.recs {
		admit[r.ID] = r.AdmitS
		if r.QueueWaitS > 0.05 {
			waited++
		}
	}
	for i := 1; i < len(admit); i++ {
		if admit[i] < admit[i-1] {
			t.Errorf("request %d admitted at %v before request %d (%v): central queue not FCFS", i, admit[i], i-1, admit[i-1])
		}
	}
	if waited < 10 {
		t.Errorf("only %d requests waited: the test does not exercise the central queue", waited)
	}
	checkConservation(t, s)
}

func TestQueueLimit(t *testing.T) {
	var reqs []workload.Request
	for i := range 100 { // 100 simultaneous requests, 5 slots
		reqs = append(reqs, workload.Request{ID: int64(i), Arrival: 0, InputTokens: 1000, OutputTokens: 100, MaxOutputTokens: 100})
	}
	for _, mode := range []string{"central", "jsq", "rr"} {
		cfg := fleetCfg(len(reqs), 0, PoolConfig{Name: "p", GPU: "a10g", Count: 1, MaxContext: 8192, QueueLimit: 10, Dispatch: mode})
		sink := &memSink{}
		s, err := Run(cfg, &sliceSource{reqs: append([]workload.Request(nil), reqs...)}, sink, Options{})
		if err != nil {
			t.Fatal(err)
		}
		// 5 start at once, 10 wait, 85 are refused.
		if s.Pools[0].Rejected != 85 || s.Pools[0].Completed != 15 {
			t.Errorf("%s: rejected %d completed %d, want 85 and 15", mode, s.Pools[0].Rejected, s.Pools[0].Completed)
		}
		n := 0
		for _, r := range sink.recs {
			if r.Rejected {
				n++
				if r.RejectedReason != RejectQueueFull || !strings.HasPrefix(r.RejectedDetail, "pool p holds 10 waiting") || !math.IsNaN(r.TTFTS) {
					t.Errorf("%s: rejected record %+v", mode, r)
				}
			}
		}
		if n != 85 {
			t.Errorf("%s: %d rejected records, want 85", mode, n)
		}
		checkConservation(t, s)
	}
}

func TestWarmupExcluded(t *testing.T) {
	cfg := fleetCfg(1000, 0.3, PoolConfig{Name: "p", GPU: "a100", Count: 2, MaxContext: 4096})
	sink := &memSink{}
	s, err := Run(cfg, newPoisson(1000, 20, 100, 4000, 3), sink, Options{})
	if err != nil {
		t.Fatal(err)
	}
	nw := 0
	for _, r := range sink.recs {
		if r.Warmup != (r.ID < 300) {
			t.Errorf("request %d: warmup %v", r.ID, r.Warmup)
		}
		if r.Warmup {
			nw++
		}
	}
	if nw != 300 || s.WarmupRequests != 300 {
		t.Errorf("%d warm-up records, summary %d, want 300", nw, s.WarmupRequests)
	}
	if s.Fleet.Arrived != 700 || s.Pools[0].Arrived != 700 {
		t.Errorf("arrived fleet %d pool %d, want 700", s.Fleet.Arrived, s.Pools[0].Arrived)
	}
	if want := sink.recs[0].ArrivalS; s.WindowStartS <= want {
		t.Errorf("window starts at %v, not after warm-up", s.WindowStartS)
	}
	checkConservation(t, s)
}

func TestRetryAtLargerPool(t *testing.T) {
	// The length router reads MaxOutputTokens; a request declaring less
	// output than it produces is misrouted to the short pool.
	reqs := []workload.Request{
		{ID: 0, Arrival: 0, InputTokens: 1000, OutputTokens: 2000, MaxOutputTokens: 100},
		{ID: 1, Arrival: 1, InputTokens: 100, OutputTokens: 10, MaxOutputTokens: 10},
	}
	for _, delay := range []float64{0, 0.5} {
		cfg := fleetCfg(2, 0,
			PoolConfig{Name: "long", GPU: "a100", Count: 1, MaxContext: 8192},
			PoolConfig{Name: "short", GPU: "a100", Count: 1, MaxContext: 2048},
		)
		cfg.Router.RetryDelayS = delay
		sink := &memSink{}
		s, err := Run(cfg, &sliceSource{reqs: append([]workload.Request(nil), reqs...)}, sink, Options{})
		if err != nil {
			t.Fatal(err)
		}
		var r0 Record
		for _, r := range sink.recs {
			if r.ID == 0 {
				r0 = r
			}
		}
		if delay == 0 {
			if !r0.Rejected || r0.RejectedReason != RejectMisrouted || r0.RejectedDetail != "3000 tokens > max_ctx 2048 of pool short" {
				t.Errorf("no retry: %+v", r0)
			}
			if s.Fleet.Rejected != 1 || s.Pools[1].Rejected != 1 {
				t.Errorf("rejections fleet %d short %d", s.Fleet.Rejected, s.Pools[1].Rejected)
			}
		} else {
			if r0.Rejected || r0.Pool != "long" || r0.Retries != 1 || r0.AdmitS != 0.5 {
				t.Errorf("retry: %+v", r0)
			}
			// Per pool: short saw it arrive and refused it; long served it.
			if s.Pools[1].Arrived != 2 || s.Pools[1].Rejected != 1 || s.Pools[0].Arrived != 1 || s.Pools[0].Completed != 1 || s.Fleet.Rejected != 0 {
				t.Errorf("counts %+v %+v", s.Pools[0], s.Pools[1])
			}
		}
		checkConservation(t, s)
	}
}

// TestRetrySkipsEqualContext: a retry goes to the next pool with a larger
// max context, past a pool of the same max context that would refuse the
// request again.
func TestRetrySkipsEqualContext(t *testing.T) {
	cfg := fleetCfg(1, 0,
		PoolConfig{Name: "a", GPU: "a100", Count: 1, MaxContext: 2048},
		PoolConfig{Name: "b", GPU: "a100", Count: 1, MaxContext: 2048},
		PoolConfig{Name: "c", GPU: "a100", Count: 1, MaxContext: 8192},
	)
	cfg.Router.RetryDelayS = 0.5
	sink := &memSink{}
	req := workload.Request{ID: 0, Arrival: 0, InputTokens: 1000, OutputTokens: 2000, MaxOutputTokens: 100}
	s, err := Run(cfg, &sliceSource{reqs: []workload.Request{req}}, sink, Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := sink.recs[0]
	if r.Rejected || r.Pool != "c" || r.Retries != 1 {
		t.Errorf("record %+v: want served by pool c after one retry", r)
	}
	if s.Pools[1].Arrived != 0 {
		t.Errorf("pool b saw %d arrivals, want 0", s.Pools[1].Arrived)
	}
	checkConservation(t, s)
}

func TestBadInput(t *testing.T) {
	good := PoolConfig{Name: "p", GPU: "a100", Count: 1, MaxContext: 4096}
	cases := []struct {
		cfg  Config
		want string
	}{
		{fleetCfg(1, 0), "pools"},
		{fleetCfg(1, 0, PoolConfig{Name: "p", GPU: "v100", Count: 1, MaxContext: 4096}), "gpu"},
		{fleetCfg(1, 0, PoolConfig{Name: "p", GPU: "a100", Count: 1, MaxContext: 1 << 24}), "max_ctx"},
		{fleetCfg(1, 0, PoolConfig{Name: "p", GPU: "a100", Count: 0, MaxContext: 4096}), "count"},
		{fleetCfg(1, 0, PoolConfig{Name: "p", GPU: "a100", Count: 1, MaxContext: 4096, Dispatch: "random"}), "dispatch"},
		{fleetCfg(1, 1.5, good), "warmup_fraction"},
		{func() Config { c := fleetCfg(1, 0, good); c.Router.Kind = "magic"; return c }(), "kind"},
	}
	for _, tc := range cases {
		_, err := Run(tc.cfg, &sliceSource{}, nil, Options{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v, want one naming %q", err, tc.want)
		}
	}
	// Requests out of order.
	src := &sliceSource{reqs: []workload.Request{
		{ID: 0, Arrival: 1, InputTokens: 10, OutputTokens: 1},
		{ID: 1, Arrival: 0.5, InputTokens: 10, OutputTokens: 1},
	}}
	if _, err := Run(fleetCfg(2, 0, good), src, nil, Options{}); err == nil || !strings.Contains(err.Error(), "arrival order") {
		t.Errorf("out-of-order arrivals: %v", err)
	}
}

// TestCentralQueueBurst: 2,000 requests arrive at once at a pool of 5
// instances with 20 slots each (a10g at 2048, pools/catalog/gpu.go). The first 100
// start at once; the others wait in the central queue. While it is
// non-empty an instance that frees a slot takes the head at the start of
// its next iteration, i.e. at the completion time. So, for the queued
// requests: admissions follow arrival (ID) order, each admission time is
// the finish time of a request on the same instance, and no instance ever
// runs more than 20 sequences.
func TestCentralQueueBurst(t *testing.T) {
	const n, c, slots = 2000, 5, 20
	src := &mapSource{src: newPoisson(n, 1, 50, 2000, 9), f: func(r *workload.Request) { r.Arrival = 0 }}
	cfg := fleetCfg(n, 0, PoolConfig{Name: "p", GPU: "a10g", Count: c, MaxContext: 2048})
	sink := &memSink{}
	s, err := Run(cfg, src, sink, Options{})
	if err != nil {
		t.Fatal(err)
	}
	checkConservation(t, s)
	byID := make([]Record, n)
	finishes := make([]map[float64]bool, c)
	for k := range finishes {
		finishes[k] = map[float64]bool{}
	}
	for _, r := range sink.recs {
		if r.Rejected {
			t.Fatalf("request %d rejected: %s", r.ID, r.RejectedReason)
		}
		if r.Preemptions != 0 {
			t.Fatalf("request %d preempted", r.ID)
		}
		byID[r.ID] = r
		finishes[r.Instance][r.FinishS] = true
	}
	for id := slots * c; id < n; id++ {
		r := byID[id]
		if id > slots*c && r.AdmitS < byID[id-1].AdmitS {
			t.Fatalf("request %d admitted at %v before request %d (%v)", id, r.AdmitS, id-1, byID[id-1].AdmitS)
		}
		if !finishes[r.Instance][r.AdmitS] {
			t.Fatalf("request %d admitted on instance %d at %v, when no request finished there", id, r.Instance, r.AdmitS)
		}
	}
	// Occupancy: sweep admissions (+1) and finishes (-1) per instance.
	for k := range c {
		type ev struct {
			t float64
			d int
		}
		var evs []ev
		for _, r := range byID {
			if int(r.Instance) == k {
				evs = append(evs, ev{r.AdmitS, +1}, ev{r.FinishS, -1})
			}
		}
		sort.Slice(evs, func(a, b int) bool {
			if evs[a].t != evs[b].t {
				return evs[a].t < evs[b].t
			}
			return evs[a].d < evs[b].d // finishes first at equal times
		})
		run := 0
		for _, e := range evs {
			run += e.d
			if run > slots {
				t.Fatalf("instance %d runs %d sequences at %v", k, run, e.t)
			}
		}
	}
}

func TestProgress(t *testing.T) {
	var calls []int64
	cfg := fleetCfg(100000, 0, PoolConfig{Name: "p", GPU: "a100", Count: 8, MaxContext: 4096})
	s, err := Run(cfg, newPoisson(100000, 500, 50, 3000, 1), nil, Options{Progress: func(n int64) { calls = append(calls, n) }})
	if err != nil {
		t.Fatal(err)
	}
	// Every 65,536 arrivals, and once at the end.
	if want := []int64{65536, 100000}; !reflect.DeepEqual(calls, want) {
		t.Errorf("progress calls %v, want %v", calls, want)
	}
	if s.Requests != 100000 {
		t.Errorf("requests %d", s.Requests)
	}
}

// TestDispatchOrder: 9 simultaneous requests on 3 instances. Round robin
// and join-the-shortest-queue (ties: lowest index) both give 0,1,2,0,1,2,...;
// central dispatch picks the instance with the most free slots (5 each on
// a10g at 8192), again cycling through 0,1,2.
func TestDispatchOrder(t *testing.T) {
	for _, mode := range []string{"rr", "jsq", "central"} {
		var reqs []workload.Request
		for i := range 9 {
			reqs = append(reqs, workload.Request{ID: int64(i), InputTokens: 100, OutputTokens: 10, MaxOutputTokens: 10})
		}
		cfg := fleetCfg(9, 0, PoolConfig{Name: "p", GPU: "a10g", Count: 3, MaxContext: 8192, Dispatch: mode})
		sink := &memSink{}
		if _, err := Run(cfg, &sliceSource{reqs: reqs}, sink, Options{}); err != nil {
			t.Fatal(err)
		}
		for _, r := range sink.recs {
			if want := int32(r.ID % 3); r.Instance != want {
				t.Errorf("%s: request %d on instance %d, want %d", mode, r.ID, r.Instance, want)
			}
		}
	}
}
