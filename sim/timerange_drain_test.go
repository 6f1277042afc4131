package sim

import (
	"strings"
	"testing"

	"github.com/fleetsim/fleetsim/engine"
	"github.com/fleetsim/fleetsim/workload"
)

// TestWorkPastTimeRangeFails: a request whose work would run past the
// engines' time range (2^63 ps, about 106 days) cannot be reported as
// finished, and must not vanish either: with W = 100 s per iteration and
// nothing else, a 92,234-token output needs 92,234 iterations, about
// 9.22·10^6 s (hand computation), more than the range. The run fails and
// names the unfinished request instead of exiting with it left out.
func TestWorkPastTimeRangeFails(t *testing.T) {
	reqs := []workload.Request{
		{ID: 0, Arrival: 0, InputTokens: 1, OutputTokens: 2, MaxOutputTokens: 2, Bytes: 4},
		{ID: 1, Arrival: 1, InputTokens: 1, OutputTokens: 92_234, MaxOutputTokens: 92_234, Bytes: 4},
	}
	_, err := runPaper(t, []PoolConfig{{Name: "x", GPU: "a100", Count: 1, MaxContext: 100_000,
		Override: &EngineOverride{Timing: &engine.Timing{W: 100}, MaxSeqs: 1}}}, reqs)
	if err == nil || !strings.Contains(err.Error(), "time range") {
		t.Fatalf("err = %v, want the run to fail naming the time range", err)
	}
}

// TestWorkPastTimeRangeCountsQueued: the requests waiting behind such a
// request are named too, wherever they wait: one instance with one slot
// (W = 100 s) gets the 92,234-token request at t=0 and two 2-token ones at
// t=1 and t=2, which never start. Under central dispatch both wait in the
// pool's queue; under jsq and rr the first is in the engine's queue and
// the second packed behind it (privqueue.go). 3 requests are unfinished.
func TestWorkPastTimeRangeCountsQueued(t *testing.T) {
	for _, d := range []string{DispatchCentral, DispatchJSQ, DispatchRR} {
		reqs := []workload.Request{
			{ID: 0, Arrival: 0, InputTokens: 1, OutputTokens: 92_234, MaxOutputTokens: 92_234, Bytes: 4},
			{ID: 1, Arrival: 1, InputTokens: 1, OutputTokens: 2, MaxOutputTokens: 2, Bytes: 4},
			{ID: 2, Arrival: 2, InputTokens: 1, OutputTokens: 2, MaxOutputTokens: 2, Bytes: 4},
		}
		_, err := runPaper(t, []PoolConfig{{Name: "x", GPU: "a100", Count: 1, MaxContext: 100_000, Dispatch: d,
			Override: &EngineOverride{Timing: &engine.Timing{W: 100}, MaxSeqs: 1}}}, reqs)
		if err == nil || !strings.Contains(err.Error(), "3 requests unfinished") {
			t.Errorf("%s: err = %v, want 3 requests unfinished", d, err)
		}
	}
}

// TestWorkPastTimeRangeCountsKeptWhole: a waiting request whose values do
// not fit a packed waiter (here a declared output cap 65,536 tokens above
// its output, past the waiter's 16 bits: queue.go) keeps its flight whole
// in the queue; it is still one unfinished request, not two (the flight
// table and the queue both hold it). Same run as
// TestWorkPastTimeRangeCountsQueued: 3 requests are unfinished.
func TestWorkPastTimeRangeCountsKeptWhole(t *testing.T) {
	for _, d := range []string{DispatchCentral, DispatchJSQ, DispatchRR} {
		reqs := []workload.Request{
			{ID: 0, Arrival: 0, InputTokens: 1, OutputTokens: 92_234, MaxOutputTokens: 92_234, Bytes: 4},
			{ID: 1, Arrival: 1, InputTokens: 1, OutputTokens: 2, MaxOutputTokens: 2, Bytes: 4},
			{ID: 2, Arrival: 2, InputTokens: 1, OutputTokens: 2, MaxOutputTokens: 2 + 65_536, Bytes: 4},
		}
		_, err := runPaper(t, []PoolConfig{{Name: "x", GPU: "a100", Count: 1, MaxContext: 100_000, Dispatch: d,
			Override: &EngineOverride{Timing: &engine.Timing{W: 100}, MaxSeqs: 1}}}, reqs)
		if err == nil || !strings.Contains(err.Error(), "3 requests unfinished") {
			t.Errorf("%s: err = %v, want 3 requests unfinished", d, err)
		}
	}
}
