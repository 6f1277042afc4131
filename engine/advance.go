package engine

import (
	"math"
	"math/bits"
	"slices"
)

// run is a stretch of iterations with an unchanged batch: every iteration
// takes a + d*j picoseconds (j counted from the anchor), so iteration j
// starts at anchorT + round(j*a + d*j*(j-1)/2). Every start time inside a
// run is computed from its anchor and rounded once (no accumulation), so
// splitting an advance anywhere gives identical times.
type run struct {
	valid    bool
	anchorIt int     // global index of the run's first iteration
	anchorT  Time    // its start
	a        float64 // duration of the first iteration, ps
	d        float64 // growth of the duration per iteration, ps
	// The run's horizon (see horizon), once computed: hzK iterations
	// from iteration hzIt, and whether it ends in a preemption. Quiet
	// iterations (jump) do not move it: it is the index of the first
	// iteration that changes the batch, fixed by the batch alone.
	hzKnown bool
	hzEx    bool
	hzIt    int
	hzK     int
}

// startOf returns the start of the run's j-th iteration (Never when that
// lies beyond the range of Time: only for runs far past MaxArrival).
func (r *run) startOf(j int) Time {
	x := float64(j)
	off := math.Round(x*r.a + r.d*(x*(x-1)/2))
	if off >= float64(Never-r.anchorT) {
		return Never
	}
	return r.anchorT + Time(off)
}

// --- private queue ---

// headSeq returns the head of the private queue, or nil.
func (e *Engine) headSeq() *seq {
	if n := len(e.front); n > 0 {
		return e.front[n-1]
	}
	if e.qh < len(e.q) {
		return e.q[e.qh]
	}
	return nil
}

func (e *Engine) popSeq() {
	if n := len(e.front); n > 0 {
		e.front[n-1] = nil
		e.front = e.front[:n-1]
		return
	}
	e.q[e.qh] = nil
	e.qh++
	if e.qh == len(e.q) {
		e.q, e.qh = e.q[:0], 0
	} else if e.qh >= 1024 && e.qh*2 > len(e.q) {
		n := copy(e.q, e.q[e.qh:])
		clear(e.q[n:])
		e.q, e.qh = e.q[:n], 0
	}
}

// --- decoder heap on (fin, ord) ---

// The decoders are a 4-ary min-heap: node i's children are 4i+1 … 4i+4.
// Half as deep as a binary heap, so a removal from the top touches half as
// many levels of the array (an engine's heap is usually out of the caches
// when an event runs: each level is a miss). The keys (fin, ord) are unique
// (ord is), so the order in which decoders leave does not depend on the
// heap's shape.

// decEnt is a decoder in the heap with its key inline, so that sifting
// compares without loading the sequences.
type decEnt struct {
	fin int   // iteration in which the sequence produces its last token
	ord int64 // its ord
	tag int   // its Job.Tag (NextFinishing)
	s   *seq
}

func decLess(a, b *decEnt) bool { return a.fin < b.fin || (a.fin == b.fin && a.ord < b.ord) }

// decBelow is decLess as 1 or 0, computed without a branch: (fin, ord) as
// a 128-bit unsigned number (both are >= 0: fin is at least the iteration
// it is set in, ord at least 1), a < b exactly when a - b borrows.
func decBelow(a, b *decEnt) int {
	_, borrow := bits.Sub64(uint64(a.ord), uint64(b.ord), 0)
	_, borrow = bits.Sub64(uint64(a.fin), uint64(b.fin), borrow)
	return int(borrow)
}

func (e *Engine) heapUp(i int) {
	h := e.dec
	x := h[i]
	for i > 0 {
		p := (i - 1) / 4
		if !decLess(&x, &h[p]) {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = x
}

func (e *Engine) heapDown(i int) {
	h := e.dec
	n := len(h)
	x := h[i]
	for {
		c := 4*i + 1
		if c >= n {
			break
		}
		// The smallest of the (up to four) children.
		m := c
		if end := min(c+4, n); end-c == 4 {
			// Without branches: which child is smaller is a coin toss
			// a branch predictor loses half the time.
			c1 := c + decBelow(&h[c+1], &h[c])
			c2 := c + 2 + decBelow(&h[c+3], &h[c+2])
			m = c1 + (c2-c1)*decBelow(&h[c2], &h[c1])
		} else {
			for k := c + 1; k < end; k++ {
				if decLess(&h[k], &h[m]) {
					m = k
				}
			}
		}
		if !decLess(&h[m], &x) {
			break
		}
		h[i] = h[m]
		i = m
	}
	h[i] = x
}

// addDecoder makes s, whose prefill just completed (KV holds s.p tokens,
// s.g tokens generated), a decoder from iteration i on.
func (e *Engine) addDecoder(s *seq, i int) {
	s.isDec = true
	s.base = s.p - i
	s.gb = s.g - i
	s.grown = 0
	e.cnt[e.residue(s.base)]++
	e.sumBase += s.base
	// It produces its last token in iteration fin (gb + fin = Out - 1).
	e.dec = append(e.dec, decEnt{fin: s.res.Job.Out - 1 - s.gb, ord: s.ord, tag: s.res.Job.Tag, s: s})
	e.heapUp(len(e.dec) - 1)
}

// removeDecoder takes s out of the decoder heap (a preemption's victim,
// after a linear search; the top: removeTop).
func (e *Engine) removeDecoder(s *seq) {
	i := 0
	for e.dec[i].s != s {
		i++
	}
	n := len(e.dec) - 1
	if i != n {
		e.dec[i] = e.dec[n]
	}
	e.dec[n] = decEnt{}
	e.dec = e.dec[:n]
	if i != n {
		e.heapDown(i)
		e.heapUp(i)
	}
	e.dropDecoder(s)
}

// removeTop takes the top of the decoder heap, s, out of it.
func (e *Engine) removeTop(s *seq) {
	n := len(e.dec) - 1
	if n > 0 {
		e.dec[0] = e.dec[n]
	}
	e.dec[n] = decEnt{}
	e.dec = e.dec[:n]
	if n > 0 {
		e.heapDown(0)
	}
	e.dropDecoder(s)
}

// dropDecoder updates the decoder counts for s, just taken out of the heap.
func (e *Engine) dropDecoder(s *seq) {
	e.cnt[e.residue(s.base)]--
	e.sumBase -= s.base
	s.isDec = false
}

// residue returns the class of a decoder with the given base: it needs a new
// block at the start of iteration i exactly when i mod BlockTokens equals
// the class (its KV then holds a multiple of BlockTokens tokens).
func (e *Engine) residue(base int) int {
	bt := e.bt
	if e.btShift >= 0 {
		// Two's complement: x & (bt-1) is x mod bt in [0, bt) for every x.
		return (-base) & (bt - 1)
	}
	return ((-base)%bt + bt) % bt
}

// blocksNeeded returns the blocks decoders claim at the start of iteration i.
func (e *Engine) blocksNeeded(i int) int {
	if len(e.dec) == 0 {
		return 0
	}
	return e.cnt[e.modBT(i)]
}

// admissible reports whether the queue head would be admitted at the next
// iteration's start, after the decoders' growth has taken grow of the free
// blocks.
func (e *Engine) admissible(grow int) bool {
	if e.nRunning() >= e.maxSeqs {
		return false
	}
	free := e.free - grow
	if s := e.headSeq(); s != nil {
		if s.prefilled {
			return e.blocksFor(s.p+1) <= free
		}
		if e.cache == nil {
			return e.blocksFor(s.p) <= free
		}
		return e.admitNeedAfter(&s.res.Job, s.p, grow) <= free
	}
	if e.shared != nil {
		if j := e.shared.Peek(); j != nil {
			// A job that can never run here is rejected by the next
			// iteration, which therefore changes something.
			return e.reason(j) != "" || e.admitNeedAfter(j, j.In, grow) <= free
		}
	}
	return false
}

// planAt returns the active sequences, KV tokens and prompt tokens of
// iteration it+k, assuming the batch does not change before it and, for
// k > 0, that every prefilling sequence gets its run chunk until then. With
// store it records each prefilling sequence's chunk.
func (e *Engine) planAt(k int, store bool) (nAct, kv, pt int) {
	nDec := len(e.dec)
	nAct = nDec
	kv = e.sumBase + nDec*(e.it+k+1)
	left := -1
	if b := e.budget; b > 0 {
		left = max(0, b-nDec)
	}
	C := e.chunk
	for _, s := range e.pre {
		ctx := s.ctx
		if k > 0 {
			ctx += s.chunk * k
		}
		c := min(C, s.p-ctx)
		if left >= 0 {
			c = min(c, left)
			left -= c
		}
		if store {
			s.chunk = c
		}
		if c > 0 {
			nAct++
			pt += c
			kv += ctx + c
		}
	}
	return nAct, kv, pt
}

// iterTime is the iteration-time model, in picoseconds (not rounded).
func (e *Engine) iterTime(nAct, kv, pt int) float64 {
	tm := &e.tps
	return tm.W + tm.HSeq*float64(nAct) + tm.HKV*float64(kv) + tm.P*float64(pt)
}

// establish anchors a run at the next iteration.
func (e *Engine) establish() {
	nAct, kv, pt := e.planAt(0, true)
	// Field by field: the composite literal was built on the stack and
	// copied 16 bytes at a time from 8-byte stores (a store-forwarding
	// stall on each of the four loads).
	r := &e.run
	r.valid, r.anchorIt, r.anchorT = true, e.it, e.next
	r.a, r.d = e.iterTime(nAct, kv, pt), e.tps.HKV*float64(len(e.dec)+pt)
	r.hzKnown, r.hzEx, r.hzIt, r.hzK = false, false, 0, 0
}

// quiet reports whether the next iteration starts without a change to the
// batch (no preemption, no admission).
func (e *Engine) quiet() bool {
	if e.nRunning() == 0 {
		return false
	}
	need := e.blocksNeeded(e.it)
	return need <= e.free && !e.admissible(need)
}

// horizon returns, for a quiet next iteration, the number of iterations
// before the next one that changes the batch (it may be 0), and whether that
// one starts with a preemption. It establishes the run if needed.
func (e *Engine) horizon() (k int, exhaust bool) {
	if !e.run.valid {
		e.establish()
	} else if r := &e.run; r.hzKnown {
		return r.hzK - (e.it - r.hzIt), r.hzEx
	}
	k, exhaust = e.searchHorizon()
	e.run.hzKnown, e.run.hzEx, e.run.hzIt, e.run.hzK = true, exhaust, e.it, k
	return k, exhaust
}

// searchHorizon computes horizon's answer from the batch.
func (e *Engine) searchHorizon() (k int, exhaust bool) {
	k = math.MaxInt
	if n := len(e.dec); n > 0 {
		k = e.dec[0].fin - e.it
		// First iteration whose block needs exceed the free blocks: every
		// BlockTokens iterations each decoder needs exactly one block.
		// (The search stops as soon as j = q·bt + l is past k: it could no
		// longer lower k.)
		bt := e.bt
		q := e.free / n
		acc := q * n
		r := e.modBT(e.it)
		for l := 0; q*bt+l <= k; l++ {
			acc += e.cnt[r]
			if acc > e.free {
				k, exhaust = q*bt+l, true
				break
			}
			if r++; r == bt {
				r = 0
			}
		}
	}
	for _, s := range e.pre {
		if s.chunk > 0 {
			if j := (s.p - s.ctx - 1) / s.chunk; j < k {
				k, exhaust = j, false
			}
		}
	}
	return k, exhaust
}

// jumpLen returns how many quiet iterations starting before t to jump over
// (0: run the next iteration with the general step), and whether they are
// the whole horizon: the iteration after them then changes the batch.
func (e *Engine) jumpLen(t Time) (int, bool) {
	if !e.quiet() {
		return 0, false
	}
	kMax, _ := e.horizon()
	if kMax == 0 {
		return 0, false
	}
	full := kMax <= 1<<40
	kMax = min(kMax, 1<<40) // a run always ends; this only guards the arithmetic
	r := &e.run
	m := e.it - r.anchorIt
	last := m + kMax - 1
	if r.startOf(last) < t {
		return kMax, full
	}
	// Smallest J in (m, last] with startOf(J) >= t: solve
	// a*J + d*J*(J-1)/2 = t - anchorT, then correct with the exact sum.
	D := float64(t - r.anchorT)
	b := r.a - r.d/2
	x := D / r.a
	if r.d > 0 {
		x = 2 * D / (b + math.Sqrt(b*b+2*r.d*D))
	}
	J := last
	if x < float64(last) {
		J = max(m+1, int(math.Ceil(x)))
	}
	for J > m+1 && r.startOf(J-1) >= t {
		J--
	}
	for J < last && r.startOf(J) < t {
		J++
	}
	return J - m, false
}

// jump runs k quiet iterations in closed form.
func (e *Engine) jump(k int) {
	i := e.it
	if n := len(e.dec); n > 0 {
		bt := e.bt
		q, rest := k/bt, k%bt
		if e.btShift >= 0 {
			q, rest = k>>e.btShift, k&(bt-1)
		}
		alloc := q * n
		r := e.modBT(i)
		for l := 0; l < rest; l++ {
			alloc += e.cnt[r]
			if r++; r == bt {
				r = 0
			}
		}
		e.take(alloc)
	}
	for _, s := range e.pre {
		s.ctx += s.chunk * k
	}
	end := e.run.startOf(i - e.run.anchorIt + k)
	n := e.nRunning()
	e.busy += float64(n) * float64(end-e.next)
	e.lastN, e.lastEnd = n, end
	e.next = end
	e.it += k
}

// AdvanceTo runs every iteration that starts before t and appends
// the results of the requests that finished to out, in finishing order (ties
// within one iteration in admission order). AdvanceTo(t1) followed by
// AdvanceTo(t2) gives the same state as AdvanceTo(t2) alone.
func (e *Engine) AdvanceTo(t Time, out []Result) []Result {
	e.finOK = false
	// Iterations starting after maxStart could end past the range of Time:
	// they are not run.
	tr := min(t, maxStart+1)
	for !e.idle && e.next < tr {
		k, full := e.jumpLen(tr)
		if k == 0 {
			out = e.step(out)
			continue
		}
		e.jump(k)
		// After the whole horizon the next iteration changes the batch:
		// jumpLen would say 0 (not quiet, or a horizon of 0 left).
		if full && e.next < tr {
			out = e.step(out)
		}
	}
	if t > e.now {
		e.now = t
	}
	return out
}

// NextEvent returns a time strictly after Now() and no later
// than the end of the next iteration that changes the batch composition (a
// prefill finishes, a request finishes, a decode step finds no free block,
// an admission), or Never when the engine has nothing to do. When the next
// change is a prefill or a completion it is exactly that iteration's end;
// when it is an admission or a preemption at an iteration's start it is that
// start plus Timing.W (rounded to the picosecond). Advancing the engine to NextEvent() always runs at
// least one iteration. It must be read again after Submit and after any
// change to the shared queue.
func (e *Engine) NextEvent() Time {
	e.finOK = false
	if e.idle {
		return Never
	}
	if e.nRunning() == 0 && e.queued() == 0 && (e.shared == nil || e.shared.Peek() == nil) {
		return Never
	}
	if e.next > maxStart { // the next iteration would not be run
		return Never
	}
	if !e.quiet() {
		return e.next + e.wps
	}
	k, exhaust := e.horizon()
	start := e.run.startOf(e.it - e.run.anchorIt + k)
	if start > maxStart { // beyond the range of Time: not run
		return Never
	}
	if exhaust {
		return start + e.wps
	}
	if len(e.dec) > 0 && e.dec[0].fin == e.it+k {
		// That iteration finishes the top decoder, untouched since its
		// prefill: its memory is likely out of the caches by now. The
		// caller runs other instances before this event; let the load
		// overlap with them instead of stalling step.
		prefetch(e.dec[0].s)
		e.finTag, e.finOK = e.dec[0].tag, true
	}
	return start + Time(math.Round(e.iterTime(e.planAt(k, false))))
}

// NextFinishing returns the Tag of the job whose last token the event
// found by the last call to NextEvent produces, and true (when several
// decoders finish in that iteration: the first admitted). It returns false
// when that event was not found as a decoder's completion in closed form: an
// admission, a prefill's end, a preemption at an iteration's start, or an
// iteration the engine steps alone (one may still finish jobs). AdvanceTo
// and Submit clear it. It costs nothing and touches no sequence: a caller
// may use it to bring its own state for that job into the caches ahead of
// the event; results never depend on it.
func (e *Engine) NextFinishing() (tag int, ok bool) { return e.finTag, e.finOK }

// step runs the iteration starting at e.next with the general rules.
func (e *Engine) step(out []Result) []Result {
	i := e.it
	start := e.next
	e.run.valid = false
	// 1. KV growth of decoding sequences.
	preempted := false
	if need := e.blocksNeeded(i); need <= e.free {
		e.take(need)
	} else {
		e.growPreempt(i)
		preempted = true
	}
	// 2. Admission from the queue head(s), unless this iteration preempted.
	for !preempted && e.nRunning() < e.maxSeqs {
		s := e.headSeq()
		var need int
		if s != nil {
			switch {
			case s.prefilled:
				need = e.blocksFor(s.p + 1)
			case e.cache == nil:
				need = e.blocksFor(s.p)
			default:
				need = e.admitNeed(&s.res.Job, s.p)
			}
			if need > e.free {
				break
			}
			e.popSeq()
		} else {
			if e.shared == nil {
				break
			}
			j := e.shared.Peek()
			if j == nil {
				break
			}
			if why := e.reason(j); why != "" {
				e.shared.Pop()
				e.rejected++
				out = append(out, Result{Job: *j, Enqueued: start, Finished: start, Rejected: true, Reason: why})
				continue
			}
			if need = e.admitNeed(j, j.In); need > e.free {
				break
			}
			e.shared.Pop()
			// A job from the shared queue reaches this instance when it
			// is admitted.
			s = e.newSeq(*j, start)
		}
		pf := s.prefilled
		switch {
		case pf:
			e.take(need)
		case e.cache == nil:
			e.free -= need
			s.ctx = 0
		default:
			e.admitBlocks(s)
		}
		s.chunk = 0
		e.seqno++
		s.ord = e.seqno
		if !s.admitt {
			s.admitt = true
			s.res.Admitted = start
		}
		if pf {
			e.admitPrefilled(s, i)
			continue
		}
		e.pre = append(e.pre, s)
	}
	n := e.nRunning()
	if n == 0 {
		e.idle = true
		return out
	}
	// 3. Tokens and time.
	dt := Time(math.Round(e.iterTime(e.planAt(0, true))))
	end := start + dt
	e.busy += float64(n) * float64(dt)
	e.lastN, e.lastEnd = n, end
	// 4. Apply. Decoders that produce their last token leave first.
	done := e.done[:0]
	for len(e.dec) > 0 && e.dec[0].fin == i {
		s := e.dec[0].s
		s.held = e.blocksFor(s.base + i + 1)
		e.removeTop(s)
		done = append(done, s)
	}
	nd := len(done)
	k := 0
	for _, s := range e.pre {
		if s.chunk > 0 {
			s.ctx += s.chunk
			if s.ctx == s.p {
				e.publish(s, s.p)
				s.g++
				if !s.first {
					s.first = true
					s.res.FirstToken = end
					if e.onFirst != nil {
						e.onFirst(s.res.Job, end)
					}
				}
				if s.g == s.res.Job.Out {
					s.held = e.blocksFor(s.p)
					done = append(done, s)
				} else {
					e.addDecoder(s, i+1)
				}
				continue
			}
		}
		e.pre[k] = s
		k++
	}
	if k < len(e.pre) {
		clear(e.pre[k:])
		e.pre = e.pre[:k]
	}
	if nd > 0 && len(done) > nd {
		slices.SortFunc(done, func(a, b *seq) int { return int(a.ord - b.ord) })
	}
	for _, s := range done {
		e.release(s, s.held)
		s.res.Finished = end
		out = append(out, s.res)
		*s = seq{pc: s.pc}
		e.spare = append(e.spare, s)
	}
	e.completed += int64(len(done))
	clear(done)
	e.done = done[:0]
	e.it++
	e.next = end
	if e.nRunning() == 0 && e.queued() == 0 && e.shared == nil {
		e.idle = true
	}
	return out
}

// growPreempt hands out the blocks decoders need at the start of iteration
// i, oldest first, preempting the most recently admitted sequence while none
// is free.
func (e *Engine) growPreempt(i int) {
	bt := e.bt
	var needy []*seq
	for _, d := range e.dec {
		if s := d.s; (s.base+i)%bt == 0 {
			needy = append(needy, s)
		}
	}
	slices.SortFunc(needy, func(a, b *seq) int { return int(a.ord - b.ord) })
	for _, s := range needy {
		if !s.isDec {
			continue // preempted for an older one
		}
		for e.free == 0 {
			v := e.victim()
			e.preempt(v, i)
			if v == s {
				break
			}
		}
		if s.isDec {
			e.take(1)
			s.grown = i + 1
		}
	}
}

// victim returns the most recently admitted running sequence.
func (e *Engine) victim() *seq {
	var v *seq
	if n := len(e.pre); n > 0 {
		v = e.pre[n-1]
	}
	for _, d := range e.dec {
		if v == nil || d.ord > v.ord {
			v = d.s
		}
	}
	return v
}

// preempt frees all of s's blocks at the start of iteration i and puts it
// back at the head of the private queue.
func (e *Engine) preempt(s *seq, i int) {
	if s.isDec {
		blocks := e.blocksFor(s.base + i)
		if s.grown == i+1 {
			blocks++
		}
		s.g = s.gb + i
		e.removeDecoder(s)
		e.release(s, blocks)
	} else {
		// The most recent sequence, when prefilling, is the last one.
		e.pre[len(e.pre)-1] = nil
		e.pre = e.pre[:len(e.pre)-1]
		// Its computed prompt blocks stay cached for its readmission.
		e.publish(s, s.ctx)
		e.release(s, e.blocksFor(s.p))
	}
	s.p = s.res.Job.In + s.g
	s.ctx, s.chunk = 0, 0
	s.res.Preemptions++
	e.preemptions++
	e.front = append(e.front, s)
}
