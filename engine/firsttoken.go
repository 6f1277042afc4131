package engine

// FirstTokenFunc is told of a job's first token: the job and the end of the
// iteration that finished its prefill.
type FirstTokenFunc func(j Job, t Time)

// OnFirstToken makes the engine call f (nil: nothing) whenever an iteration
// finishes a job's prefill, as that iteration is run. Calls come in the
// order the engine runs its iterations, which may be ahead of the time it was
// advanced to (AdvanceTo runs every iteration that starts before t); the
// same time later appears in the job's Result.FirstToken. A preempted job's
// recomputation does not call f again.
func (e *Engine) OnFirstToken(f FirstTokenFunc) { e.onFirst = f }
