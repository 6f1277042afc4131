package engine

import (
	"errors"
	"math"

	"github.com/fleetsim/fleetsim/workload"
)

// CONTRACT (agreed interface, implementation pending in the engine work):
// the exported names and signatures below are what package sim relies on.

// Queue is a FCFS waiting line an engine admits from after its own queue.
// A pool shares one Queue among its instances for central (M/G/c) dispatch.
type Queue interface {
	Peek() *workload.Request // head of the line, nil when empty
	Pop() *workload.Request  // removes and returns the head
}

// Stats are an engine's counters, valid up to Now().
type Stats struct {
	Running         int     // sequences in the batch
	Queued          int     // requests in the private queue (preempted ones included)
	FreeBlocks      int     // free KV blocks
	Completed       int64   // requests served to completion
	Rejected        int64   // requests refused (too long for MaxModelLen)
	Preemptions     int64   // preemption events
	Iterations      int64   // iterations run
	BusySlotSeconds float64 // integral over time of running sequences, sequence*s
}

// Engine is one serving instance. The zero value is not usable; call New.
type Engine struct {
	cfg Config
}

// ErrNotImplemented marks the contract stub.
var errNotImplemented = errors.New("engine: not implemented")

// New returns an idle engine at time 0.
func New(cfg Config) (*Engine, error) { return nil, errNotImplemented }

// SetShared makes the engine admit from q once its private queue is empty.
func (e *Engine) SetShared(q Queue) {}

// Fits reports whether r can ever run here: L_in + L_out <= MaxModelLen and
// its largest KV footprint fits in KVBlocks.
func (e *Engine) Fits(r *workload.Request) bool { return false }

// Submit hands r to the engine at time now (the engine must already have been
// advanced to now). A request that does not fit is rejected at once: Submit
// then returns its Result and false. Otherwise r joins the tail of the private
// queue and Submit returns a zero Result and true.
func (e *Engine) Submit(r *workload.Request, now float64) (Result, bool) {
	return Result{}, false
}

// CanAdmit reports whether r would be admitted by the next iteration: the
// private queue is empty, a slot is free and enough KV blocks are free for
// its prompt.
func (e *Engine) CanAdmit(r *workload.Request) bool { return false }

// NextEvent returns the end time of the next iteration that changes the
// batch composition (a prefill finishes, a request finishes, a decode step
// finds no free block), or +Inf when the engine has nothing to do.
func (e *Engine) NextEvent() float64 { return math.Inf(1) }

// AdvanceTo runs every iteration that starts before t and appends the
// results of the requests that finished to out, in finishing order.
// AdvanceTo(t1) followed by AdvanceTo(t2) gives the same state as
// AdvanceTo(t2) alone.
func (e *Engine) AdvanceTo(t float64, out []Result) []Result { return out }

// Now returns the time up to which the engine's state is materialized.
func (e *Engine) Now() float64 { return 0 }

// Stats returns the engine's counters.
func (e *Engine) Stats() Stats { return Stats{} }
