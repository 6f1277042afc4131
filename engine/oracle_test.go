package engine

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// This file holds the test oracle: a naive stepper that runs one iteration
// at a time, written independently of the engine from the model in
// docs/model.md. It favours obviousness over speed.

// sliceQueue is a simple shared Queue.
type sliceQueue struct{ items []*Job }

func (q *sliceQueue) Peek() *Job {
	if len(q.items) == 0 {
		return nil
	}
	return q.items[0]
}

func (q *sliceQueue) Pop() *Job {
	r := q.items[0]
	q.items = q.items[1:]
	return r
}

func (q *sliceQueue) Push(j Job) { q.items = append(q.items, &j) }

type oReq struct {
	res       Result
	everAdm   bool
	firstDone bool
	generated int      // output tokens produced so far
	prompt    int      // tokens to prefill in the current admission
	kv        int      // tokens whose KV is stored
	blocks    int      // blocks held
	prefilled bool     // submitted with its KV computed elsewhere, not yet admitted
	hitBlocks int      // prefix cache: blocks found cached at the current admission
	shared    []string // prefix cache: names of the cached blocks it uses, in block order
}

func (o *oReq) decoding() bool { return o.kv >= o.prompt }

type oracle struct {
	cfg     Config
	shared  Queue
	waiting []*oReq // index 0 is the head
	batch   []*oReq // admission order
	used    int     // KV blocks in use

	haveWork  bool // an iteration is scheduled at start
	start     Time // start of the next iteration
	lastEnd   Time
	lastBatch int
	now       Time

	// The current run (docs/model.md, "Time"): the iterations since the
	// last change iteration, timed from the first one's start.
	runOn      bool
	runStart   Time
	runA, runD float64 // duration of the run's first iteration and its growth per iteration, ps
	runJ       int     // iterations of the run so far

	completed, rejected, preemptions, iterations int64
	busy                                         float64 // sequence·ps
	maxUsed                                      int

	// Prefix cache (docs/model.md, "Prefix cache"), kept by name: a block
	// is named by the decimal hashes of every unit up to its own and its
	// place in its unit, so equal names mean equal content and prefix.
	cached    map[string]*oBlock
	stamp     int64 // release counter, for LRU
	hitTokens int64
	evictions int64
	hits      int64 // admissions that found at least one cached block
	unused    int   // cached blocks nobody uses (checked against the map)
	prefilled int64 // prefilled admissions

	// The most prompt tokens and KV tokens (the timing's kv_tokens) of any
	// iteration so far, for the bounds Config.Validate assumes.
	maxPrefill, maxKV int

	// Completions NextFinishing named ahead (runScenario, checkNamed): all,
	// and those preempted before, with a prefix-cache hit, prefilled.
	named struct{ all, preempted, cached, prefilled int }
}

// oBlock is a cached block in the oracle.
type oBlock struct {
	ref      int   // requests in the batch using it
	released int64 // stamp of the release that left it unreferenced
}

func newOracle(cfg Config) *oracle { return &oracle{cfg: cfg, cached: map[string]*oBlock{}} }

// --- prefix cache, written from docs/model.md without the engine's code ---

func (o *oracle) caching(j Job) bool { return o.cfg.CacheBlocks > 0 && j.Prefix != nil }

// blockName names block b (0-based) of j's prompt.
func (o *oracle) blockName(j Job, b int) string {
	per := j.Prefix.Tokens / o.cfg.BlockTokens
	unit := b / per
	var sb strings.Builder
	for k := 0; k <= unit; k++ {
		sb.WriteString(strconv.FormatUint(j.Prefix.Hashes[k], 10))
		sb.WriteByte(',')
	}
	sb.WriteString("#" + strconv.Itoa(b%per))
	return sb.String()
}

// nameable returns how many leading blocks of j's prompt have a name.
func (o *oracle) nameable(j Job) int {
	toks := len(j.Prefix.Hashes) * j.Prefix.Tokens
	if j.In < toks {
		toks = j.In
	}
	return toks / o.cfg.BlockTokens
}

// lookup returns the names of the longest run of cached leading blocks of a
// prompt of `prompt` tokens of j (at most (prompt-1)/b blocks), and how many
// of them nobody uses. gone names blocks to treat as evicted.
func (o *oracle) lookup(j Job, prompt int, gone map[string]bool) (names []string, unused int) {
	if !o.caching(j) {
		return nil, 0
	}
	limit := min(o.nameable(j), (prompt-1)/o.cfg.BlockTokens)
	for b := 0; b < limit; b++ {
		n := o.blockName(j, b)
		blk, ok := o.cached[n]
		if !ok || gone[n] {
			break
		}
		if blk.ref == 0 {
			unused++
		}
		names = append(names, n)
	}
	return names, unused
}

// unusedByAge returns the unused cached blocks, least recently released
// first.
func (o *oracle) unusedByAge() []string {
	var names []string
	for n, b := range o.cached {
		if b.ref == 0 {
			names = append(names, n)
		}
	}
	sort.Slice(names, func(a, b int) bool { return o.cached[names[a]].released < o.cached[names[b]].released })
	return names
}

// allocate takes n blocks; when the blocks holding nothing cached run out,
// the oldest unused cached blocks are evicted.
func (o *oracle) allocate(n int) {
	o.used += n
	free := o.cfg.KVBlocks - o.used
	if o.unused <= free {
		return
	}
	unused := o.unusedByAge()
	for k := 0; k < len(unused)-free; k++ {
		delete(o.cached, unused[k])
		o.unused--
		o.evictions++
	}
}

// publish caches the named blocks of s's prompt it computed (the first kv
// tokens) that are not cached yet.
func (o *oracle) publish(s *oReq, kv int) {
	j := s.res.Job
	if !o.caching(j) {
		return
	}
	n := min(o.nameable(j), kv/o.cfg.BlockTokens)
	for b := s.hitBlocks; b < n; b++ {
		name := o.blockName(j, b)
		if _, ok := o.cached[name]; !ok {
			o.cached[name] = &oBlock{ref: 1}
			s.shared = append(s.shared, name)
		}
	}
}

// release frees s's blocks: its own ones, and one use of each cached one,
// last block first; then trims the unused cached blocks to CacheBlocks.
func (o *oracle) release(s *oReq) {
	own := s.blocks - len(s.shared)
	o.used -= own
	for k := len(s.shared) - 1; k >= 0; k-- {
		b := o.cached[s.shared[k]]
		b.ref--
		if b.ref == 0 {
			o.used--
			o.unused++
			o.stamp++
			b.released = o.stamp
		}
	}
	s.shared, s.blocks, s.hitBlocks = nil, 0, 0
	if o.unused > o.cfg.CacheBlocks {
		unused := o.unusedByAge()
		for k := 0; k < len(unused)-o.cfg.CacheBlocks; k++ {
			delete(o.cached, unused[k])
			o.unused--
			o.evictions++
		}
	}
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// never returns why j can never run, or "".
func (o *oracle) never(j Job) string {
	total := j.In + j.Out
	switch {
	case j.In < 1 || j.Out < 1:
		return "bad lengths"
	case total > o.cfg.MaxModelLen:
		return fmt.Sprintf("input+output %d tokens exceeds max model length %d", total, o.cfg.MaxModelLen)
	case ceilDiv(total-1, o.cfg.BlockTokens) > o.cfg.KVBlocks:
		return "kv"
	case o.caching(j) && (j.Prefix.Tokens < 1 || j.Prefix.Tokens%o.cfg.BlockTokens != 0):
		return "prefix unit"
	}
	return ""
}

func (o *oracle) submit(j Job, now Time) (Result, bool) {
	if bad := o.never(j); bad != "" {
		o.rejected++
		return Result{Job: j, Enqueued: now, Finished: now, Rejected: true, Reason: bad}, false
	}
	if now > o.now {
		o.now = now
	}
	if len(o.batch) == 0 && len(o.waiting) == 0 {
		o.haveWork = true
		o.start = now
		if o.lastEnd > o.start {
			o.start = o.lastEnd
		}
	}
	o.waiting = append(o.waiting, &oReq{res: Result{Job: j, Enqueued: now}, prompt: j.In})
	return Result{}, true
}

// submitPrefilled is submit for a job whose prompt was prefilled on another
// instance (docs/model.md, "Prefilled jobs").
func (o *oracle) submitPrefilled(j Job, now Time) (Result, bool) {
	if o.never(j) == "" && j.Out < 2 {
		o.rejected++
		return Result{Job: j, Enqueued: now, Finished: now, Rejected: true, Reason: "prefilled"}, false
	}
	r, ok := o.submit(j, now)
	if ok {
		o.waiting[len(o.waiting)-1].prefilled = true
	}
	return r, ok
}

func (o *oracle) advance(t Time, out []Result) []Result {
	for o.haveWork && o.start < t {
		out = o.iterate(out)
		if o.used > o.maxUsed {
			o.maxUsed = o.used
		}
		if o.used > o.cfg.KVBlocks || o.used < 0 {
			panic(fmt.Sprintf("oracle: %d blocks used of %d", o.used, o.cfg.KVBlocks))
		}
		held := 0
		var refs map[string]int
		if len(o.cached) > 0 {
			refs = map[string]int{}
		}
		for _, s := range o.batch {
			held += s.blocks - len(s.shared)
			for _, n := range s.shared {
				refs[n]++
			}
		}
		unused := 0
		for n, b := range o.cached {
			if b.ref != refs[n] {
				panic("oracle: reference count of " + n)
			}
			if b.ref > 0 {
				held++
			} else {
				unused++
			}
		}
		if unused != o.unused {
			panic("oracle: unused cached blocks")
		}
		if held != o.used {
			panic("oracle: block accounting")
		}
	}
	if t > o.now {
		o.now = t
	}
	return out
}

func (o *oracle) evict() *oReq {
	v := o.batch[len(o.batch)-1]
	o.batch = o.batch[:len(o.batch)-1]
	if !v.decoding() {
		o.publish(v, v.kv)
	}
	o.release(v)
	v.kv = 0
	v.prompt = v.res.Job.In + v.generated
	v.res.Preemptions++
	o.preemptions++
	o.waiting = append([]*oReq{v}, o.waiting...)
	return v
}

func (o *oracle) inBatch(s *oReq) bool {
	for _, x := range o.batch {
		if x == s {
			return true
		}
	}
	return false
}

func (o *oracle) iterate(out []Result) []Result {
	bt := o.cfg.BlockTokens
	// Growth: snapshot the decoders that need a block, oldest first.
	var needy []*oReq
	for _, s := range o.batch {
		if s.decoding() && ceilDiv(s.kv+1, bt) > s.blocks {
			needy = append(needy, s)
		}
	}
	evicted := false
	for _, s := range needy {
		if !o.inBatch(s) {
			continue
		}
		for o.used == o.cfg.KVBlocks && o.inBatch(s) {
			o.evict()
			evicted = true
		}
		if o.inBatch(s) {
			s.blocks++
			o.allocate(1)
		}
	}
	// Admission.
	admitted, rejected := false, false
	if !evicted {
		for len(o.batch) < o.cfg.MaxSeqs {
			var cand *oReq
			if len(o.waiting) > 0 {
				cand = o.waiting[0]
			} else if o.shared != nil && o.shared.Peek() != nil {
				r := *o.shared.Peek()
				if o.never(r) != "" {
					o.shared.Pop()
					o.rejected++
					rejected = true
					out = append(out, Result{Job: r, Enqueued: o.start, Finished: o.start, Rejected: true, Reason: o.never(r)})
					continue
				}
				cand = &oReq{res: Result{Job: r, Enqueued: o.start}, prompt: r.In}
			} else {
				break
			}
			nb := ceilDiv(cand.prompt, bt)
			var names []string
			var unusedHits int
			if cand.prefilled {
				// Its prompt's KV and the token it decodes now.
				nb = ceilDiv(cand.prompt+1, bt)
			} else {
				names, unusedHits = o.lookup(cand.res.Job, cand.prompt, nil)
			}
			if o.used+nb-len(names)+unusedHits > o.cfg.KVBlocks {
				break
			}
			if len(o.waiting) > 0 {
				o.waiting = o.waiting[1:]
			} else {
				o.shared.Pop()
			}
			for _, n := range names {
				if o.cached[n].ref == 0 {
					o.used++
					o.unused--
				}
				o.cached[n].ref++
			}
			cand.shared = names
			cand.hitBlocks = len(names)
			cand.kv = len(names) * bt
			if cand.prefilled {
				o.prefilled++
				cand.prefilled = false
				cand.kv = cand.prompt
				cand.generated = 1
				cand.firstDone = true
			}
			cand.blocks = nb
			o.allocate(nb - len(names))
			admitted = true
			if len(names) > 0 {
				o.hits++
			}
			if !cand.everAdm {
				cand.everAdm = true
				cand.res.Admitted = o.start
				cand.res.Cached = len(names) * bt
				o.hitTokens += int64(len(names) * bt)
			}
			o.batch = append(o.batch, cand)
		}
	}
	if len(o.batch) == 0 {
		o.haveWork = false
		return out
	}
	// Tokens.
	work := make(map[*oReq]int)
	decoders := 0
	for _, s := range o.batch {
		if s.decoding() {
			decoders++
			work[s] = 1
		}
	}
	budget := 1 << 62
	if o.cfg.BatchTokenBudget > 0 {
		budget = o.cfg.BatchTokenBudget - decoders
		if budget < 0 {
			budget = 0
		}
	}
	for _, s := range o.batch {
		if s.decoding() {
			continue
		}
		c := min(o.cfg.ChunkTokens, s.prompt-s.kv, budget)
		budget -= c
		work[s] = c
	}
	active, kvTokens, prefill := 0, 0, 0
	// A change iteration admits, preempts or rejects at its start, or a
	// prefill completes or a sequence finishes in it.
	change := evicted || admitted || rejected
	for _, s := range o.batch {
		w := work[s]
		if w == 0 {
			continue
		}
		active++
		kvTokens += s.kv + w
		if !s.decoding() {
			prefill += w
			change = change || s.kv+w == s.prompt
		} else {
			change = change || s.generated+1 == s.res.Job.Out
		}
	}
	o.maxPrefill, o.maxKV = max(o.maxPrefill, prefill), max(o.maxKV, kvTokens)
	// The iteration-time model in picoseconds, and the time rule of
	// docs/model.md: a change iteration lasts its duration rounded to the
	// picosecond; the others form runs whose starts are computed from the
	// run's first start, rounded once.
	tm := o.cfg.Timing
	tp := Timing{W: tm.W * 1e12, HSeq: tm.HSeq * 1e12, HKV: tm.HKV * 1e12, P: tm.P * 1e12}
	dur := tp.W + tp.HSeq*float64(active) + tp.HKV*float64(kvTokens) + tp.P*float64(prefill)
	var end Time
	if change {
		end = o.start + Time(math.Round(dur))
		o.runOn = false
	} else {
		if !o.runOn {
			o.runOn, o.runStart, o.runJ = true, o.start, 0
			o.runA, o.runD = dur, tp.HKV*float64(decoders+prefill)
		}
		if want := o.runA + o.runD*float64(o.runJ); math.Abs(dur-want) > 1e-9*dur {
			panic(fmt.Sprintf("oracle: iteration %d of a run lasts %v ps, the run's form gives %v", o.runJ, dur, want))
		}
		o.runJ++
		x := float64(o.runJ)
		end = o.runStart + Time(math.Round(x*o.runA+o.runD*(x*(x-1)/2)))
	}
	o.busy += float64(end-o.start) * float64(len(o.batch))
	o.lastBatch = len(o.batch)
	o.lastEnd = end
	o.iterations++
	var keep, finished []*oReq
	for _, s := range o.batch {
		w := work[s]
		wasDecoding := s.decoding()
		s.kv += w
		if w > 0 && (wasDecoding || s.kv == s.prompt) {
			if !wasDecoding {
				o.publish(s, s.kv) // prompts are published before anything is released
			}
			s.generated++
			if !s.firstDone {
				s.firstDone = true
				s.res.FirstToken = end
			}
		}
		if s.generated == s.res.Job.Out {
			finished = append(finished, s)
		} else {
			keep = append(keep, s)
		}
	}
	for _, s := range finished { // admission order
		o.release(s)
		s.res.Finished = end
		out = append(out, s.res)
		o.completed++
	}
	o.batch = keep
	o.start = end
	if len(o.batch) == 0 && len(o.waiting) == 0 && o.shared == nil {
		o.haveWork = false
	}
	return out
}

// busyUpTo returns the busy slot-seconds up to now.
func (o *oracle) busyUpTo() float64 {
	b := o.busy
	if o.lastEnd > o.now {
		b -= float64(o.lastBatch) * float64(o.lastEnd-o.now)
	}
	return b / 1e12
}
