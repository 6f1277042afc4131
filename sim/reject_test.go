package sim

import (
	"testing"

	"github.com/fleetsim/fleetsim/workload"
)

// TestEngineRejectRecord: a request within the pool's max context that its
// instances' KV cache can never hold is refused by the engine at dispatch,
// and its record carries the engine's reason (the Result dispatch leaves in
// pool.rejected). Hand computation: 6,000 prompt + 100 output tokens keep
// at most 6,099 tokens in the KV cache (engine.Fits), ceil(6099/16) = 382
// blocks of 16 tokens, more than the 300 the override gives each instance;
// max_ctx 16,384 lets the router send it there. Every 4th of 40 requests is
// such a one (10 refused, at the arrival instants of served ones in flight).
func TestEngineRejectRecord(t *testing.T) {
	var reqs []workload.Request
	for i := range 40 {
		in := 500
		if i%4 == 0 {
			in = 6000
		}
		reqs = append(reqs, workload.Request{ID: int64(i), Arrival: float64(i/8) * 0.01, InputTokens: in, OutputTokens: 100, MaxOutputTokens: 100})
	}
	for _, mode := range []string{"central", "jsq", "rr"} {
		cfg := fleetCfg(len(reqs), 0, PoolConfig{Name: "p", GPU: "a100", Count: 2, MaxContext: 16384, Dispatch: mode,
			Override: &EngineOverride{KVBlocks: 300}})
		sink := &memSink{}
		s, err := Run(cfg, &sliceSource{reqs: append([]workload.Request(nil), reqs...)}, sink, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if s.Pools[0].Rejected != 10 || s.Pools[0].Completed != 30 {
			t.Errorf("%s: rejected %d completed %d, want 10 and 30", mode, s.Pools[0].Rejected, s.Pools[0].Completed)
		}
		for _, r := range sink.recs {
			want := r.ID%4 == 0
			if r.Rejected != want {
				t.Errorf("%s: request %d rejected %v, want %v", mode, r.ID, r.Rejected, want)
				continue
			}
			if want && (r.RejectedReason != RejectTooLong || r.RejectedDetail != "needs 382 KV blocks, instance has 300") {
				t.Errorf("%s: request %d rejected as %q: %q, want %q: %q", mode, r.ID, r.RejectedReason, r.RejectedDetail,
					RejectTooLong, "needs 382 KV blocks, instance has 300")
			}
		}
		checkConservation(t, s)
	}
}
