package engine

import (
	"fmt"
	"math"
	"math/bits"
)

// Queue is a FCFS waiting line an engine admits from after its own queue.
// A pool shares one Queue among its instances for central (M/G/c) dispatch;
// under jsq and rr it gives an instance a Queue of its own, as compact
// storage for the tail of its private queue.
//
// The engine consults the shared queue only at the start of an iteration,
// when its private queue is empty and a slot is free; an idle engine never
// polls it (hand work to an idle engine with Submit). Because the engine is
// advanced lazily, a caller that pushes to a shared queue at time t must
// first advance every engine sharing it to t, and must re-read their
// NextEvent afterwards. A job taken from it has Enqueued = Admitted; one
// that can never run on the engine (see Fits) is rejected when it reaches
// the head, with Enqueued = Finished = the start of that iteration.
type Queue interface {
	Peek() *Job // head of the line, nil when empty
	Pop() *Job  // removes and returns the head
}

// Stats are an engine's counters, valid up to Now().
type Stats struct {
	Running         int     // sequences in the batch
	Queued          int     // requests in the private queue (preempted ones included)
	FreeBlocks      int     // free KV blocks
	Completed       int64   // requests served to completion
	Rejected        int64   // requests refused (see Fits)
	Preemptions     int64   // preemption events
	Iterations      int64   // iterations run
	BusySlotSeconds float64 // integral over time of running sequences up to Now(), sequence*s
	// Prefix cache (zero when off).
	CachedBlocks   int   // unreferenced blocks holding cached content (part of FreeBlocks)
	CachedTokens   int64 // Σ Result.Cached over admitted jobs: prompt tokens served from the cache, tokens
	CacheEvictions int64 // cached blocks evicted
}

// Engine is one serving instance. The zero value is not usable; call New.
// An Engine must not be copied (cnt may point into the struct itself).
//
// Internally time is counted in iterations: it is the index of the next
// iteration to run. A decoding sequence processes exactly one token in every
// iteration, so its state is kept relative to it (ctx = base + it before
// iteration it) and is never touched while it decodes; decoders sit in a
// heap keyed by the iteration that produces their last token. Prefilling
// sequences (few) are kept in admission order. Between two iterations that
// change the batch, AdvanceTo jumps in closed form (see advance.go).
type Engine struct {
	// The fields every event reads or writes come first, in about the
	// order an event touches them: an engine's state is usually out of
	// the caches when its next event runs (a pool runs many), and each
	// cache line of it is a miss. The rest (configuration, prefix-cache
	// memos, rare counters) follows.
	finOK bool // finTag is set
	idle  bool // nothing running, nothing queued
	it    int  // index of the next iteration (= iterations run)
	next  Time // start of the next iteration (valid when not idle)
	free  int  // free KV blocks

	pre []*seq   // prefilling sequences, admission order
	dec []decEnt // decoding sequences, a 4-ary min-heap on (fin, ord)
	cnt []int    // decoders by residue (-base) mod BlockTokens (in cntBuf when it fits)

	bt      int // cfg.BlockTokens
	btShift int // log2(bt) when bt is a power of two, else -1 (see blocksFor)
	maxSeqs int // cfg.MaxSeqs

	// private FCFS queue: front holds preempted sequences (a stack, last
	// element is the head), q[qh:] the submitted ones in order.
	front  []*seq
	q      []*seq
	qh     int
	shared Queue
	cache  *pcache // prefix cache, nil when Config.CacheBlocks is 0

	run run // the current closed-form run, if any

	sumBase int // sum of base over decoders
	chunk   int // cfg.ChunkTokens
	budget  int // cfg.BatchTokenBudget

	tps    Timing // cfg.Timing in picoseconds (coefficients × 1e12)
	wps    Time   // W rounded to the picosecond (>= 1)
	finTag int    // NextFinishing: the Tag of the job NextEvent's event finishes

	seqno     int64   // admission counter
	lastEnd   Time    // end of the last iteration run
	lastN     int     // sequences running in the last iteration
	now       Time    // latest time the caller advanced to
	busy      float64 // integral up to lastEnd, sequence·ps
	completed int64
	done      []*seq         // scratch: finished in one iteration
	spare     []*seq         // finished seqs for reuse
	onFirst   FirstTokenFunc // see OnFirstToken

	cntBuf [16]int // cnt's storage for BlockTokens <= 16

	cfg                   Config
	cachedTokens          int64 // Σ Result.Cached of admitted jobs
	rejected, preemptions int64
	memo                  needMemo
	found                 found // the last cache lookup (cacheuse.go)
}

// newSeq returns a queued sequence for j, enqueued at time now.
func (e *Engine) newSeq(j Job, now Time) *seq {
	var s *seq
	if n := len(e.spare); n > 0 {
		s = e.spare[n-1]
		e.spare = e.spare[:n-1]
	} else {
		s = new(seq)
	}
	// s.res is zero (new, or a spare cleared when it finished, in step):
	// set only what differs, without building a Result on the stack and
	// copying it over.
	s.res.Job, s.res.Enqueued = j, now
	s.p = j.In
	return s
}

// seq is one request while it is queued or running on this engine. It is
// 192 bytes (TestSeqLayout), an allocation size class whose objects start on
// a 64-byte boundary: three cache lines, all of which a completion reads
// (a decoder's last iteration, in the heap entry, is not kept here).
type seq struct {
	res    Result
	ord    int64 // admission order of the current admission
	admitt bool  // admitted at least once
	first  bool  // first token produced
	isDec  bool  // decoding
	// prefilled: queued by SubmitPrefilled and not yet admitted.
	prefilled bool
	g         int       // output tokens generated (prefilling or queued sequences)
	p         int       // prompt tokens of the current admission (L_in + g at admission)
	ctx       int       // tokens prefilled so far (prefilling sequences)
	chunk     int       // prompt tokens given in the current iteration or run
	base      int       // decoders: KV tokens before iteration i = base + i
	gb        int       // decoders: tokens generated before iteration i = gb + i
	grown     int       // decoders: i+1 when given a block at the start of iteration i
	held      int       // blocks held when it finished (set in step)
	pc        *seqCache // prefix cache state, nil until admitted with a prefix
}

// seqCache is a sequence's use of the prefix cache.
type seqCache struct {
	hit  int     // blocks found cached at the current admission
	ents []int32 // entries it references, in block order
}

// New returns an idle engine at time 0.
func New(cfg Config) (*Engine, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	tm := cfg.Timing
	tps := Timing{W: tm.W * 1e12, HSeq: tm.HSeq * 1e12, HKV: tm.HKV * 1e12, P: tm.P * 1e12}
	e := &Engine{cfg: cfg, free: cfg.KVBlocks, idle: true, bt: cfg.BlockTokens, maxSeqs: cfg.MaxSeqs,
		chunk: cfg.ChunkTokens, budget: cfg.BatchTokenBudget, tps: tps, wps: Time(math.Round(tps.W))}
	e.btShift = -1
	if bits.OnesCount(uint(cfg.BlockTokens)) == 1 {
		e.btShift = bits.TrailingZeros(uint(cfg.BlockTokens))
	}
	if cfg.BlockTokens <= len(e.cntBuf) {
		e.cnt = e.cntBuf[:cfg.BlockTokens]
	} else {
		e.cnt = make([]int, cfg.BlockTokens)
	}
	if cfg.CacheBlocks > 0 {
		e.cache = newCache(cfg.CacheBlocks)
	}
	return e, nil
}

// Config returns the engine's configuration.
func (e *Engine) Config() Config { return e.cfg }

// SetShared makes the engine admit from q once its private queue is empty
// (nil detaches it).
func (e *Engine) SetShared(q Queue) { e.shared = q }

func (e *Engine) blocksFor(tokens int) int {
	// A shift instead of a division (tens of cycles, and on the path of
	// every event) when BlockTokens is a power of two: the same for x >= 0.
	x := tokens + e.bt - 1
	if e.btShift >= 0 && x >= 0 {
		return x >> e.btShift
	}
	return x / e.bt
}

// modBT returns x mod BlockTokens for x >= 0 (as blocksFor, a mask
// instead of a division when it can).
func (e *Engine) modBT(x int) int {
	if e.btShift >= 0 && x >= 0 {
		return x & (e.bt - 1)
	}
	return x % e.bt
}

// reason returns why j can never run here, or "" when it can.
func (e *Engine) reason(j *Job) string {
	switch {
	case j.In < 1:
		return fmt.Sprintf("input length %d tokens, must be >= 1", j.In)
	case j.Out < 1:
		return fmt.Sprintf("output length %d tokens, must be >= 1", j.Out)
	case j.In+j.Out > e.cfg.MaxModelLen:
		return fmt.Sprintf("input+output %d tokens exceeds max model length %d",
			j.In+j.Out, e.cfg.MaxModelLen)
	case e.usesCache(j):
		if why := prefixReason(j.Prefix, e.bt); why != "" {
			return why
		}
	}
	// The KV cache holds at most L_in + L_out - 1 tokens (the last token
	// is never written back).
	if need := e.blocksFor(j.In + j.Out - 1); need > e.cfg.KVBlocks {
		return fmt.Sprintf("needs %d KV blocks, instance has %d", need, e.cfg.KVBlocks)
	}
	return ""
}

// Fits reports whether j can ever run here: 1 <= L_in, 1 <= L_out,
// L_in + L_out <= MaxModelLen and its largest KV footprint,
// ceil((L_in+L_out-1)/BlockTokens) blocks, fits in KVBlocks.
func (e *Engine) Fits(j Job) bool { return e.reason(&j) == "" }

// Submit hands j to the engine at time now (the engine must already have
// been advanced to now; now <= MaxArrival). A job that does not fit is rejected
// at once: Submit then returns its Result (Rejected, Reason set, Enqueued =
// Finished = now) and false. Otherwise j joins the tail of the private queue,
// may be admitted by any iteration starting at or after now, and Submit
// returns a zero Result and true.
func (e *Engine) Submit(j Job, now Time) (Result, bool) {
	if why := e.reason(&j); why != "" {
		e.rejected++
		return Result{Job: j, Enqueued: now, Finished: now, Rejected: true, Reason: why}, false
	}
	if now > e.now {
		e.now = now
	}
	e.finOK = false
	s := e.newSeq(j, now)
	wasEmpty := e.nRunning() == 0 && e.queued() == 0
	e.q = append(e.q, s)
	if e.idle || wasEmpty {
		e.idle = false
		e.next = max(now, e.lastEnd)
	}
	return Result{}, true
}

// queued returns the number of requests in the private queue.
func (e *Engine) queued() int { return len(e.front) + len(e.q) - e.qh }

// CanAdmit reports whether j would be admitted by the next iteration if it
// were submitted now: j fits, the private queue is empty, a slot is free and
// enough KV blocks are free for its prompt (ceil(L_in/BlockTokens), less
// the blocks of its cached prefix that are in use). It ignores the blocks
// decoding sequences may claim at that iteration's start.
func (e *Engine) CanAdmit(j Job) bool {
	return e.Fits(j) && e.queued() == 0 && e.nRunning() < e.maxSeqs &&
		e.admitNeed(&j, j.In) <= e.free
}

// Now returns the time up to which the engine's state is materialized: the
// latest time passed to AdvanceTo or Submit.
func (e *Engine) Now() Time { return e.now }

// Stats returns the engine's counters.
func (e *Engine) Stats() Stats {
	busy := e.busy
	if e.lastEnd > e.now {
		busy -= float64(e.lastN) * float64(e.lastEnd-e.now)
	}
	var cb int
	var ev int64
	if c := e.cache; c != nil {
		cb, ev = c.nLRU, c.evictions
	}
	return Stats{
		CachedBlocks:    cb,
		CachedTokens:    e.cachedTokens,
		CacheEvictions:  ev,
		Running:         e.nRunning(),
		Queued:          e.queued(),
		FreeBlocks:      e.free,
		Completed:       e.completed,
		Rejected:        e.rejected,
		Preemptions:     e.preemptions,
		Iterations:      int64(e.it),
		BusySlotSeconds: busy / 1e12,
	}
}

// Counts returns Stats().Running, Queued and FreeBlocks without the rest
// (a dispatcher reads them after every operation on the engine).
func (e *Engine) Counts() (running, queued, freeBlocks int) {
	return e.nRunning(), e.queued(), e.free
}

// nRunning returns the number of sequences in the batch.
func (e *Engine) nRunning() int { return len(e.pre) + len(e.dec) }
