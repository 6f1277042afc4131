package engine

import (
	"fmt"
	"math"

	"github.com/fleetsim/fleetsim/workload"
)

// Queue is a FCFS waiting line an engine admits from after its own queue.
// A pool shares one Queue among its instances for central (M/G/c) dispatch.
//
// The engine consults the shared queue only at the start of an iteration,
// when its private queue is empty and a slot is free; an idle engine never
// polls it (hand work to an idle engine with Submit). Because the engine is
// advanced lazily, a caller that pushes to a shared queue at time t must
// first advance every engine sharing it to t, and must re-read their
// NextEvent afterwards.
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
	Rejected        int64   // requests refused (too long for MaxModelLen or the KV cache)
	Preemptions     int64   // preemption events
	Iterations      int64   // iterations run
	BusySlotSeconds float64 // integral over time of running sequences up to Now(), sequence*s
}

// Engine is one serving instance. The zero value is not usable; call New.
type Engine struct {
	cfg    Config
	shared Queue

	// private FCFS queue: front holds preempted sequences (a stack, last
	// element is the head), q[qh:] the submitted ones in order.
	front []*seq
	q     []*seq
	qh    int

	running []*seq // admission order
	free    int    // free KV blocks
	seqno   int64  // admission counter

	next    float64 // start of the next iteration (valid when not idle)
	idle    bool    // nothing running, nothing queued
	lastEnd float64 // end of the last iteration run
	lastN   int     // sequences running in the last iteration
	now     float64 // latest time the caller advanced to

	completed, rejected, preemptions, iterations int64
	busy                                         float64 // integral up to lastEnd
}

// seq is one request while it is queued or running on this engine.
type seq struct {
	res    Result
	ord    int64 // admission order of the current admission
	admitt bool  // admitted at least once
	first  bool  // first token produced
	g      int   // output tokens generated so far
	p      int   // prompt tokens of the current admission (L_in + g at admission)
	ctx    int   // tokens in the KV cache (prefilled so far while prefilling)
	blocks int   // KV blocks held
}

// New returns an idle engine at time 0.
func New(cfg Config) (*Engine, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Engine{cfg: cfg, free: cfg.KVBlocks, idle: true}, nil
}

// Config returns the engine's configuration.
func (e *Engine) Config() Config { return e.cfg }

// SetShared makes the engine admit from q once its private queue is empty
// (nil detaches it).
func (e *Engine) SetShared(q Queue) { e.shared = q }

func (e *Engine) blocksFor(tokens int) int {
	return (tokens + e.cfg.BlockTokens - 1) / e.cfg.BlockTokens
}

// reason returns why r can never run here, or "" when it can.
func (e *Engine) reason(r *workload.Request) string {
	switch {
	case r.InputTokens < 1:
		return fmt.Sprintf("input length %d tokens, must be >= 1", r.InputTokens)
	case r.OutputTokens < 1:
		return fmt.Sprintf("output length %d tokens, must be >= 1", r.OutputTokens)
	case r.InputTokens+r.OutputTokens > e.cfg.MaxModelLen:
		return fmt.Sprintf("input+output %d tokens exceeds max model length %d",
			r.InputTokens+r.OutputTokens, e.cfg.MaxModelLen)
	}
	// The KV cache holds at most L_in + L_out - 1 tokens (the last token
	// is never written back).
	if need := e.blocksFor(r.InputTokens + r.OutputTokens - 1); need > e.cfg.KVBlocks {
		return fmt.Sprintf("needs %d KV blocks, instance has %d", need, e.cfg.KVBlocks)
	}
	return ""
}

// Fits reports whether r can ever run here: 1 <= L_in, 1 <= L_out,
// L_in + L_out <= MaxModelLen and its largest KV footprint,
// ceil((L_in+L_out-1)/BlockTokens) blocks, fits in KVBlocks.
func (e *Engine) Fits(r *workload.Request) bool { return e.reason(r) == "" }

// Submit hands r to the engine at time now, in seconds (the engine must
// already have been advanced to now). A request that does not fit is rejected
// at once: Submit then returns its Result (Rejected, Reason set, Enqueued =
// Finished = now) and false. Otherwise r joins the tail of the private queue,
// may be admitted by any iteration starting at or after now, and Submit
// returns a zero Result and true.
func (e *Engine) Submit(r *workload.Request, now float64) (Result, bool) {
	if why := e.reason(r); why != "" {
		e.rejected++
		return Result{Req: r, Enqueued: now, Finished: now, Rejected: true, Reason: why}, false
	}
	if now > e.now {
		e.now = now
	}
	s := &seq{res: Result{Req: r, Enqueued: now}, p: r.InputTokens}
	wasEmpty := len(e.running) == 0 && e.queued() == 0
	e.q = append(e.q, s)
	if e.idle || wasEmpty {
		e.idle = false
		e.next = math.Max(now, e.lastEnd)
	}
	return Result{}, true
}

// queued returns the number of requests in the private queue.
func (e *Engine) queued() int { return len(e.front) + len(e.q) - e.qh }

// CanAdmit reports whether r would be admitted by the next iteration if it
// were submitted now: r fits, the private queue is empty, a slot is free and
// enough KV blocks are free for its prompt (ceil(L_in/BlockTokens)). It
// ignores the blocks decoding sequences may claim at that iteration's start.
func (e *Engine) CanAdmit(r *workload.Request) bool {
	return e.Fits(r) && e.queued() == 0 && len(e.running) < e.cfg.MaxSeqs &&
		e.blocksFor(r.InputTokens) <= e.free
}

// NextEvent returns a time, in seconds and strictly after Now(), at or before
// the end of the next iteration that changes the batch composition (a
// prefill finishes, a request finishes, a decode step finds no free block, an
// admission), or +Inf when the engine has nothing to do. Advancing the engine
// to NextEvent() always runs at least one iteration.
func (e *Engine) NextEvent() float64 {
	if e.idle || (len(e.running) == 0 && e.queued() == 0 && (e.shared == nil || e.shared.Peek() == nil)) {
		return math.Inf(1)
	}
	return e.next + e.cfg.Timing.W
}

// Now returns the time, in seconds, up to which the engine's state is
// materialized: the latest time passed to AdvanceTo or Submit.
func (e *Engine) Now() float64 { return e.now }

// Stats returns the engine's counters.
func (e *Engine) Stats() Stats {
	busy := e.busy
	if e.lastEnd > e.now {
		busy -= float64(e.lastN) * (e.lastEnd - e.now)
	}
	return Stats{
		Running:         len(e.running),
		Queued:          e.queued(),
		FreeBlocks:      e.free,
		Completed:       e.completed,
		Rejected:        e.rejected,
		Preemptions:     e.preemptions,
		Iterations:      e.iterations,
		BusySlotSeconds: busy,
	}
}

// AdvanceTo runs every iteration that starts before t (seconds) and appends
// the results of the requests that finished to out, in finishing order (ties
// within one iteration in admission order). AdvanceTo(t1) followed by
// AdvanceTo(t2) gives the same state as AdvanceTo(t2) alone.
func (e *Engine) AdvanceTo(t float64, out []Result) []Result {
	for !e.idle && e.next < t {
		out = e.step(out)
	}
	if t > e.now {
		e.now = t
	}
	return out
}
