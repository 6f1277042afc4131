package engine

import (
	"math"
	"testing"
)

// approx reports whether t is within 1e-9 s of s seconds.
func approx(t Time, s float64) bool { return math.Abs(t.Seconds()-s) <= 1e-9 }

// TestHandComputed checks cases worked out by hand.
func TestHandComputed(t *testing.T) {
	paper := Timing{W: 0.008, HSeq: 0.00065}
	cfg := Config{MaxSeqs: 4, KVBlocks: 1000, BlockTokens: 16, ChunkTokens: 512, MaxModelLen: 8192, Timing: paper}
	tests := []struct {
		name       string
		cfg        Config
		in, out    int
		first, fin float64
		iters      int64
	}{
		// L_in=1000, L_out=3, C=512, t_iter = W + HSeq*1 = 0.00865 s.
		// it1 [0, 0.00865): prefill 512; it2: prefill 488, first token at
		// 0.0173; it3: decode, token 2; it4: decode, token 3 -> done at
		// 4*0.00865 = 0.0346. ceil(1000/512)+3-1 = 4 iterations.
		{"paper 1000/3", cfg, 1000, 3, 0.0173, 0.0346, 4},
		// L_out = 1: the prefill iteration produces the only token.
		// ceil(1000/512) = 2 iterations: 0.0173.
		{"paper 1000/1", cfg, 1000, 1, 0.0173, 0.0173, 2},
		// KV form, W=0.008, HKV=0.00065/8192, L_in=100, L_out=3.
		// it1: prefill 100, kv=100: 0.008+100h; it2: decode kv=101;
		// it3: decode kv=102. first = 0.008+100h,
		// fin = 0.024 + 303h with h = 0.00065/8192.
		{"kv 100/3", func() Config {
			c := cfg
			c.Timing = Timing{W: 0.008, HKV: 0.00065 / 8192}
			return c
		}(), 100, 3, 0.008 + 100*0.00065/8192, 0.024 + 303*0.00065/8192, 3},
	}
	for _, tc := range tests {
		e, err := New(tc.cfg)
		if err != nil {
			t.Fatal(err)
		}
		r := Job{In: tc.in, Out: tc.out}
		if _, ok := e.Submit(r, 0); !ok {
			t.Fatalf("%s: rejected", tc.name)
		}
		res := e.AdvanceTo(10*Second, nil)
		if len(res) != 1 {
			t.Fatalf("%s: %d results", tc.name, len(res))
		}
		if !approx(res[0].FirstToken, tc.first) || !approx(res[0].Finished, tc.fin) || res[0].Admitted != 0 {
			t.Errorf("%s: got first %v fin %v admitted %v, want %v %v 0", tc.name,
				res[0].FirstToken, res[0].Finished, res[0].Admitted, tc.first, tc.fin)
		}
		if st := e.Stats(); st.Iterations != tc.iters || st.Completed != 1 || st.FreeBlocks != tc.cfg.KVBlocks {
			t.Errorf("%s: stats %+v, want %d iterations", tc.name, st, tc.iters)
		}
	}
}

func TestReject(t *testing.T) {
	e, err := New(Config{MaxSeqs: 4, KVBlocks: 10, BlockTokens: 16, ChunkTokens: 512, MaxModelLen: 65536, Timing: Timing{W: 0.01}})
	if err != nil {
		t.Fatal(err)
	}
	res, ok := e.Submit(Job{In: 60000, Out: 10000}, 1)
	if ok || !res.Rejected || res.Reason != "input+output 70000 tokens exceeds max model length 65536" || res.Finished != 1 {
		t.Errorf("got %+v %v", res, ok)
	}
	// 160 tokens fit 10 blocks (L_in+L_out-1 = 160), 162 do not.
	if _, ok := e.Submit(Job{In: 100, Out: 61}, 1); !ok {
		t.Error("161-token request rejected")
	}
	if res, ok := e.Submit(Job{In: 100, Out: 62}, 1); ok || res.Reason != "needs 11 KV blocks, instance has 10" {
		t.Errorf("got %+v", res)
	}
	if st := e.Stats(); st.Rejected != 2 {
		t.Errorf("rejected %d", st.Rejected)
	}
}

func TestValidate(t *testing.T) {
	good := Config{MaxSeqs: 4, KVBlocks: 10, BlockTokens: 16, ChunkTokens: 512, MaxModelLen: 4096, Timing: Timing{W: 0.01}}
	if err := good.Validate(); err != nil {
		t.Fatal(err)
	}
	bad := []func(*Config){
		func(c *Config) { c.MaxSeqs = 0 },
		func(c *Config) { c.KVBlocks = -1 },
		func(c *Config) { c.BlockTokens = 0 },
		func(c *Config) { c.ChunkTokens = 0 },
		func(c *Config) { c.BatchTokenBudget = -5 },
		func(c *Config) { c.MaxModelLen = 0 },
		func(c *Config) { c.Timing.W = 0 },
		func(c *Config) { c.Timing.HKV = math.NaN() },
		func(c *Config) { c.Timing.P = -1 },
		// W below one picosecond, the engine's time unit.
		func(c *Config) { c.Timing.W = 4e-13 },
		// The longest iteration beyond MaxIterationS: 4 slots × 300 s.
		func(c *Config) { c.Timing.HSeq = 300 },
	}
	for i, f := range bad {
		c := good
		f(&c)
		if err := c.Validate(); err == nil {
			t.Errorf("case %d: no error", i)
		} else if _, err2 := New(c); err2 == nil {
			t.Errorf("case %d: New accepted", i)
		}
	}
}

// TestHandPreemption follows a preemption worked out by hand.
//
// KVBlocks = 4, BlockTokens = 16, MaxSeqs = 2, t_iter = 0.010 + 0.001*n_active.
// A and B (L_in = 16, L_out = 40) arrive at 0.
//   - it0 [0, 0.012): both admitted (1 block each), both prefill 16 tokens
//     and produce their first token (FirstToken = 0.012).
//   - it1: both hold 16 tokens and need a 2nd block: free 2 -> 0.
//   - it1..it16 decode (ctx before iteration i is 15+i), 0.012 s each.
//   - it17 starts at 17*0.012 = 0.204: A (ctx 32) needs a 3rd block, none is
//     free, so B (the most recent) is preempted: its 2 blocks are freed, A
//     takes one (free 1). B has generated 17 tokens, so it needs
//     ceil((16+17)/16) = 3 blocks to come back. NextEvent before that
//     preemption is 0.204 + W = 0.214.
//   - A alone: 0.011 s per iteration; it takes its 4th block at it33 and
//     produces its 40th token in it39: Finished = 0.204 + 23*0.011 = 0.457.
//   - it40 starts at 0.457: B is readmitted (3 blocks), prefills 33 tokens
//     and produces token 18 at 0.468; tokens 19..40 take it41..it62:
//     Finished = 0.468 + 22*0.011 = 0.710. 63 iterations in all.
func TestHandPreemption(t *testing.T) {
	cfg := Config{MaxSeqs: 2, KVBlocks: 4, BlockTokens: 16, ChunkTokens: 512, MaxModelLen: 100,
		Timing: Timing{W: 0.010, HSeq: 0.001}}
	e, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	a := Job{Tag: 0, In: 16, Out: 40}
	b := Job{Tag: 1, In: 16, Out: 40}
	e.Submit(a, 0)
	e.Submit(b, 0)
	var events []Time
	var res []Result
	for ne := e.NextEvent(); ne != Never; ne = e.NextEvent() {
		events = append(events, ne)
		res = e.AdvanceTo(ne, res)
	}
	// Events: the first admission (0 + W; advancing there runs it0, which
	// also finishes both prefills), the preemption, A's end, B's
	// readmission (0.457 + W; runs it40 and B's prefill), B's end.
	wantEvents := []float64{0.010, 0.214, 0.457, 0.467, 0.710}
	if len(events) != len(wantEvents) {
		t.Fatalf("events %v, want %v", events, wantEvents)
	}
	for i := range events {
		if !approx(events[i], wantEvents[i]) {
			t.Errorf("event %d at %v, want %v", i, events[i], wantEvents[i])
		}
	}
	want := []Result{
		{Job: a, FirstToken: Seconds(0.012), Finished: Seconds(0.457)},
		{Job: b, FirstToken: Seconds(0.012), Finished: Seconds(0.710), Preemptions: 1},
	}
	if len(res) != 2 {
		t.Fatalf("%d results", len(res))
	}
	for i, w := range want {
		g := res[i]
		if g.Job != w.Job || g.Admitted != 0 || g.FirstToken != w.FirstToken ||
			g.Finished != w.Finished || g.Preemptions != w.Preemptions {
			t.Errorf("result %d: %+v, want %+v", i, g, w)
		}
		if g.Finished != events[2+2*i] {
			t.Errorf("result %d: NextEvent %v is not exactly Finished %v", i, events[2+2*i], g.Finished)
		}
	}
	if s := e.Stats(); s.Iterations != 63 || s.Preemptions != 1 || s.FreeBlocks != 4 || s.Completed != 2 {
		t.Errorf("stats %+v", s)
	}
}

// TestTimeBookkeeping checks Now, the busy integral inside an iteration,
// admission at the next iteration start and the restart of an idle engine.
// W = 1 s, no other cost: every iteration lasts exactly 1 s.
func TestTimeBookkeeping(t *testing.T) {
	e, err := New(Config{MaxSeqs: 2, KVBlocks: 100, BlockTokens: 16, ChunkTokens: 512, MaxModelLen: 1000, Timing: Timing{W: 1}})
	if err != nil {
		t.Fatal(err)
	}
	a := Job{In: 10, Out: 3} // iterations [0,1) [1,2) [2,3)
	b := Job{In: 10, Out: 2}
	c := Job{In: 10, Out: 1}
	if !e.CanAdmit(a) {
		t.Fatal("idle engine cannot admit")
	}
	e.Submit(a, 0)
	const S = Second
	if ne := e.NextEvent(); ne != S { // admission at 0: 0 + W
		t.Errorf("NextEvent %v, want 1", ne)
	}
	res := e.AdvanceTo(S/2, nil)
	// it0 [0,1) ran: busy up to Now = 0.5 is 1 sequence * 0.5 s.
	if s := e.Stats(); e.Now() != S/2 || s.BusySlotSeconds != 0.5 || s.Running != 1 || s.Iterations != 1 || len(res) != 0 {
		t.Errorf("at 0.5: now %v stats %+v", e.Now(), s)
	}
	res = e.AdvanceTo(5*S/2, res) // it1 [1,2), it2 [2,3) ran; a finishes at 3
	if !e.CanAdmit(b) {
		t.Error("cannot admit with a free slot")
	}
	e.Submit(b, 5*S/2) // admitted at 3, prefill [3,4), decode [4,5)
	res = e.AdvanceTo(7*S, res)
	e.Submit(c, 10*S) // idle since 5: starts at 10, done at 11
	res = e.AdvanceTo(20*S, res)
	want := []Result{
		{Job: a, Enqueued: 0, Admitted: 0, FirstToken: 1 * S, Finished: 3 * S},
		{Job: b, Enqueued: 5 * S / 2, Admitted: 3 * S, FirstToken: 4 * S, Finished: 5 * S},
		{Job: c, Enqueued: 10 * S, Admitted: 10 * S, FirstToken: 11 * S, Finished: 11 * S},
	}
	if len(res) != len(want) {
		t.Fatalf("results %+v", res)
	}
	for i := range want {
		if res[i] != want[i] {
			t.Errorf("result %d: %+v, want %+v", i, res[i], want[i])
		}
	}
	// Busy: a 3 s + b 2 s + c 1 s = 6 sequence-seconds over 20 s.
	if s := e.Stats(); s.BusySlotSeconds != 6 || s.Completed != 3 || s.Iterations != 6 || e.NextEvent() != Never {
		t.Errorf("stats %+v", s)
	}
}
