package engine

import "testing"

// TestNextFinishing drives an instance event by event (BenchmarkEngineLowLoad
// workload, 2,000 requests): whenever NextFinishing names a job, advancing
// to NextEvent must finish that job at exactly that time; AdvanceTo and
// Submit clear it.
func TestNextFinishing(t *testing.T) {
	reqs := azureShort(t, 2000, benchRate/3)
	e, err := New(a100Short)
	if err != nil {
		t.Fatal(err)
	}
	var out []Result
	named, completions := 0, 0
	check := func(ne Time) {
		tag, ok := e.NextFinishing()
		out = e.AdvanceTo(ne, out[:0])
		completions += len(out)
		if _, still := e.NextFinishing(); still {
			t.Fatalf("t=%d: NextFinishing still set after AdvanceTo", ne)
		}
		if !ok {
			return
		}
		named++
		for _, r := range out {
			if r.Job.Tag == tag {
				if r.Finished != ne {
					t.Fatalf("job %d finished at %d, NextEvent said %d", tag, r.Finished, ne)
				}
				return
			}
		}
		t.Fatalf("t=%d: NextFinishing named job %d, AdvanceTo finished %d others", ne, tag, len(out))
	}
	for _, r := range reqs {
		for ne := e.NextEvent(); ne < r.at; ne = e.NextEvent() {
			check(ne)
		}
		e.NextEvent()
		out = e.AdvanceTo(r.at, out[:0])
		completions += len(out)
		e.NextEvent()
		if _, ok := e.Submit(r.job, r.at); !ok {
			t.Fatalf("job %d rejected", r.job.Tag)
		}
		if _, ok := e.NextFinishing(); ok {
			t.Fatal("NextFinishing still set after Submit")
		}
	}
	for ne := e.NextEvent(); ne != Never; ne = e.NextEvent() {
		check(ne)
	}
	// At this load most completions are the event NextEvent names (others
	// share an iteration with another, or end an advance to an arrival):
	// 1,284 of 2,000 when written.
	if completions != len(reqs) || named < len(reqs)/2 {
		t.Fatalf("%d completions of %d jobs, %d named by NextFinishing", completions, len(reqs), named)
	}
	t.Logf("%d of %d completions named ahead", named, completions)
}
