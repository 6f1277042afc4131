package engine

import (
	"math"
	"math/rand/v2"
	"testing"
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
		seen := map[int]Time{}
		last := Time(math.MinInt64)
		e.OnFirstToken(func(j Job, at Time) {
			if _, dup := seen[j.Tag]; dup {
				t.Errorf("scenario %d: job %d: first token reported twice", k, j.Tag)
			}
			if at < last {
				t.Errorf("scenario %d: first token at %v after one at %v", k, at, last)
			}
			seen[j.Tag], last = at, at
		})
		var out []Result
		for i, r := range sc.reqs {
			out = e.AdvanceTo(r.at, out)
			if sc.shared[i] && e.Stats().Running+e.Stats().Queued > 0 {
				q.Push(r.job)
				continue
			}
			if res, ok := e.Submit(r.job, r.at); !ok {
				out = append(out, res)
			}
		}
		out = e.AdvanceTo(Never, out)
		served := 0
		for _, res := range out {
			at, ok := seen[res.Job.Tag]
			if res.Rejected {
				if ok {
					t.Errorf("scenario %d: rejected job %d reported a first token", k, res.Job.Tag)
				}
				continue
			}
			served++
			if !ok || at != res.FirstToken {
				t.Errorf("scenario %d: job %d: hook %v (called %v), Result.FirstToken %v", k, res.Job.Tag, at, ok, res.FirstToken)
			}
		}
		if served != len(seen) {
			t.Errorf("scenario %d: %d first tokens for %d served requests", k, len(seen), served)
		}
	}
}
