package engine

import "testing"

// TestLastIterationBeyondTimeRange: the iteration that finishes a request
// starts inside the range of Time but would end past it. W = 100 s =
// 10^14 ps and nothing else, so iteration i of a lone 1-token prompt starts
// at i·10^14 ps; with Out = 92,234 its last iteration (i = 92,233, hand
// computation) starts at 9.2233·10^18 ps < 2^63−1 ≈ 9.22337·10^18 and would
// end at 9.2234·10^18, past it. The engine must not wrap around to a
// negative time: the request does not finish (iterations starting after
// 2^63−1 − MaxIterationS − 1 s are not run), NextEvent is Never.
func TestLastIterationBeyondTimeRange(t *testing.T) {
	e, err := New(Config{MaxSeqs: 1, KVBlocks: 6000, BlockTokens: 16, ChunkTokens: 512, MaxModelLen: 100_000,
		Timing: Timing{W: 100}})
	if err != nil {
		t.Fatal(err)
	}
	e.Submit(Job{In: 1, Out: 92_234}, 0)
	out := e.AdvanceTo(Never, nil)
	for _, r := range out {
		if r.Finished < r.Admitted || r.FirstToken < r.Admitted {
			t.Errorf("result %+v: times wrapped around", r)
		}
	}
	if len(out) != 0 {
		t.Errorf("%d results: the request cannot finish inside the range", len(out))
	}
	if ne := e.NextEvent(); ne != Never {
		t.Errorf("NextEvent %v, want Never", ne)
	}
	if s := e.Stats(); s.Running != 1 {
		t.Errorf("stats %+v: the request should still be running", s)
	}
}

// TestStepBeyondTimeRange: the same with change iterations only (every
// request has one output token, so every iteration admits and finishes one;
// none is jumped in closed form). Requests queued at 0 at 100 s per
// iteration reach the end of the range; the ones left must stay queued,
// not finish at negative times.
func TestStepBeyondTimeRange(t *testing.T) {
	e, err := New(Config{MaxSeqs: 1, KVBlocks: 10, BlockTokens: 16, ChunkTokens: 512, MaxModelLen: 100,
		Timing: Timing{W: 100}})
	if err != nil {
		t.Fatal(err)
	}
	const n = 92_300
	for i := 0; i < n; i++ {
		e.Submit(Job{In: 1, Out: 1, Tag: i}, 0)
	}
	out := e.AdvanceTo(Never, nil)
	prev := Time(0)
	for _, r := range out {
		if r.Finished < prev || r.Finished <= r.Admitted {
			t.Fatalf("result %+v after one finished at %v: times wrapped around", r, prev)
		}
		prev = r.Finished
	}
	// Iteration i starts at i·10^14 ps; the last one run starts by
	// maxStart = 2^63−1 − 10^15 − 10^12 ≈ 9.222371·10^18 ps: i = 92,223
	// (hand computation), so 92,224 requests finish.
	if len(out) != 92_224 {
		t.Errorf("%d results, want 92224", len(out))
	}
	if ne := e.NextEvent(); ne != Never {
		t.Errorf("NextEvent %v, want Never", ne)
	}
	if s := e.Stats(); s.Running+s.Queued != n-len(out) {
		t.Errorf("stats %+v: %d requests should be left", s, n-len(out))
	}
}
