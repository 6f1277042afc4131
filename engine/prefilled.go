package engine

import "fmt"

// SubmitPrefilled hands j to the engine at time now, like Submit, as a
// decode instance of a disaggregated pool receives it: j's prompt was
// prefilled on another instance, which produced its first token, and its KV
// cache (L_in tokens) arrives with it. When admitted (from the private
// queue, FIFO with the other jobs) it takes ceil((L_in+1)/BlockTokens)
// blocks — its prompt and the first token it decodes — and decodes from
// that iteration on, producing the other L_out − 1 tokens; it never looks
// up or publishes the prefix cache. Its Result has FirstToken = 0 (the first
// token is the prefill instance's) and Cached = 0. If it is preempted, its
// KV is lost and it is recomputed here like any preempted job (a prompt of
// L_in + g tokens). A prefilled job needs L_out >= 2 (reason otherwise).
// Prefilled jobs cannot go through a shared queue.
func (e *Engine) SubmitPrefilled(j Job, now Time) (Result, bool) {
	if j.Out < 2 && e.reason(&j) == "" {
		e.rejected++
		why := fmt.Sprintf("prefilled job with output length %d tokens: must be >= 2 (its prefill produced the first token)", j.Out)
		return Result{Job: j, Enqueued: now, Finished: now, Rejected: true, Reason: why}, false
	}
	res, ok := e.Submit(j, now)
	if ok {
		e.q[len(e.q)-1].prefilled = true
	}
	return res, ok
}

// CanAdmitPrefilled is CanAdmit for SubmitPrefilled: j fits, has L_out >= 2,
// the private queue is empty, a slot is free and ceil((L_in+1)/BlockTokens)
// blocks are free.
func (e *Engine) CanAdmitPrefilled(j Job) bool {
	return j.Out >= 2 && e.Fits(j) && e.queued() == 0 && e.nRunning() < e.maxSeqs &&
		e.blocksFor(j.In+1) <= e.free
}

// admitPrefilled makes s, admitted by iteration i with its blocks taken, a
// decoder: its KV holds its prompt and its first token is out.
func (e *Engine) admitPrefilled(s *seq, i int) {
	s.prefilled = false // a preemption recomputes it like any other job
	s.ctx, s.g, s.first = s.p, 1, true
	e.addDecoder(s, i)
}
