package engine

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fleetsim/fleetsim/workload"
)

// TestOnFirstToken: on random scenarios (preemption, chunked prefill, shared
// queues), the hook is called exactly once per served request, with the
// time its Result later reports as FirstToken, and calls come in time order
// (iterations run in order); rejected requests never call it.
func TestOnFirstToken(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 9))
	for k := range 300 {
		sc := randomScenario(rng)
		e, err := New(sc.cfg)
		if err != nil {
			t.Fatal(err)
		}
		q := &sliceQueue{}
		e.SetShared(q)
		seen := map[int64]float64{}
		last := math.Inf(-1)
		e.OnFirstToken(func(r *workload.Request, at float64) {
			if _, dup := seen[r.ID]; dup {
				t.Errorf("scenario %d: request %d: first token reported twice", k, r.ID)
			}
			if at < last {
				t.Errorf("scenario %d: first token at %v after one at %v", k, at, last)
			}
			seen[r.ID], last = at, at
		})
		var out []Result
		for i, r := range sc.reqs {
			out = e.AdvanceTo(r.Arrival, out)
			if sc.shared[i] && e.Stats().Running+e.Stats().Queued > 0 {
				q.Push(r)
				continue
			}
			if res, ok := e.Submit(r, r.Arrival); !ok {
				out = append(out, res)
			}
		}
		out = e.AdvanceTo(math.Inf(1), out)
		served := 0
		for _, res := range out {
			at, ok := seen[res.Req.ID]
			if res.Rejected {
				if ok {
					t.Errorf("scenario %d: rejected request %d reported a first token", k, res.Req.ID)
				}
				continue
			}
			served++
			if !ok || at != res.FirstToken {
				t.Errorf("scenario %d: request %d: hook %v (called %v), Result.FirstToken %v", k, res.Req.ID, at, ok, res.FirstToken)
			}
		}
		if served != len(seen) {
			t.Errorf("scenario %d: %d first tokens for %d served requests", k, len(seen), served)
		}
	}
}
