package engine

import "testing"

// TestArrivalAtIterationStartIsAdmitted is issue 7's bug 2: an arrival at
// exactly the start of an iteration is admitted by it (docs/model.md: an
// iteration starting at s >= t admits). Paper timing on an A100 (W = 8 ms,
// H = 0.65 ms): a lone 1024/128 request runs iterations of 8.65 ms, so
// iteration 7 starts at 7 × 8.65 = 60.55 ms (hand computation), exactly when
// the second request arrives.
func TestArrivalAtIterationStartIsAdmitted(t *testing.T) {
	cfg := Config{MaxSeqs: 256, KVBlocks: 65536, BlockTokens: 16, ChunkTokens: 512, MaxModelLen: 4096,
		Timing: Timing{W: 0.008, HSeq: 0.00065}}
	e, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	e.Submit(Job{Tag: 0, In: 1024, Out: 128}, 0)
	at := Seconds(0.06055)
	out := e.AdvanceTo(at, nil)
	e.Submit(Job{Tag: 1, In: 16, Out: 2}, at)
	out = e.AdvanceTo(Never, out)
	for _, r := range out {
		if r.Job.Tag == 1 && r.Admitted != at {
			t.Errorf("second request admitted at %v s, want 0.06055", r.Admitted.Seconds())
		}
	}
	if len(out) != 2 {
		t.Fatalf("%d results", len(out))
	}
}

// TestBeyondTimeRange: a run whose iterations would end past the range of
// Time (2^63 ps, about 106 days) saturates at Never instead of wrapping
// around: one request of 10^6 output tokens at 100 s per iteration would
// finish after 10^8 s. AdvanceTo(Never) returns and NextEvent stays >= Now.
func TestBeyondTimeRange(t *testing.T) {
	e, err := New(Config{MaxSeqs: 1, KVBlocks: 70_000, BlockTokens: 16, ChunkTokens: 512, MaxModelLen: 1_100_000,
		Timing: Timing{W: 100}})
	if err != nil {
		t.Fatal(err)
	}
	e.Submit(Job{In: 1, Out: 1_000_000}, 0)
	if ne := e.NextEvent(); ne <= 0 {
		t.Fatalf("NextEvent %v", ne)
	}
	out := e.AdvanceTo(Seconds(1e6), nil)
	if ne := e.NextEvent(); ne < e.Now() {
		t.Errorf("NextEvent %v before Now %v", ne, e.Now())
	}
	out = e.AdvanceTo(Never, out)
	if len(out) != 0 {
		t.Errorf("results %+v: the request cannot finish inside the range", out)
	}
	if ne := e.NextEvent(); ne != Never {
		t.Errorf("NextEvent %v, want Never", ne)
	}
}
