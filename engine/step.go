package engine

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
	} else if e.qh > 1024 && e.qh*2 > len(e.q) {
		n := copy(e.q, e.q[e.qh:])
		clear(e.q[n:])
		e.q, e.qh = e.q[:n], 0
	}
}

// preemptLast preempts the most recently admitted running sequence and
// returns it.
func (e *Engine) preemptLast() *seq {
	n := len(e.running)
	v := e.running[n-1]
	e.running[n-1] = nil
	e.running = e.running[:n-1]
	e.free += v.blocks
	v.blocks, v.ctx = 0, 0
	v.p = v.res.Req.InputTokens + v.g
	v.res.Preemptions++
	e.preemptions++
	e.front = append(e.front, v)
	return v
}

// step runs the iteration starting at e.next (simple reference stepper).
func (e *Engine) step(out []Result) []Result {
	cfg := &e.cfg
	start := e.next
	// 1. KV growth of decoding sequences, oldest first; preempt the most
	// recently admitted sequence while no block is free.
	preempted := false
	for i := 0; i < len(e.running); i++ {
		s := e.running[i]
		if s.ctx < s.p || e.blocksFor(s.ctx+1) <= s.blocks {
			continue
		}
		for e.free == 0 {
			preempted = true
			if e.preemptLast() == s {
				break
			}
		}
		if i < len(e.running) && e.running[i] == s {
			e.free--
			s.blocks++
		}
	}
	// 2. Admission from the queue head(s), unless this iteration preempted.
	for !preempted && len(e.running) < cfg.MaxSeqs {
		s := e.headSeq()
		fromShared := false
		if s == nil && e.shared != nil {
			if r := e.shared.Peek(); r != nil {
				s = &seq{res: Result{Req: r, Enqueued: start}, p: r.InputTokens}
				fromShared = true
			}
		}
		if s == nil {
			break
		}
		need := e.blocksFor(s.p)
		if need > e.free {
			break
		}
		if fromShared {
			e.shared.Pop()
		} else {
			e.popSeq()
		}
		e.free -= need
		s.blocks = need
		s.ctx = 0
		e.seqno++
		s.ord = e.seqno
		if !s.admitt {
			s.admitt = true
			s.res.Admitted = start
		}
		e.running = append(e.running, s)
	}
	if len(e.running) == 0 {
		e.idle = true
		return out
	}
	// 3. Token assignment: decodes first, then prefill chunks FCFS.
	nDec := 0
	for _, s := range e.running {
		if s.ctx >= s.p {
			nDec++
		}
	}
	left := -1
	if cfg.BatchTokenBudget > 0 {
		left = max(0, cfg.BatchTokenBudget-nDec)
	}
	chunks := make([]int, len(e.running))
	nAct, kv, pre := 0, 0, 0
	for i, s := range e.running {
		if s.ctx >= s.p {
			chunks[i] = 1
			nAct++
			kv += s.ctx + 1
			continue
		}
		c := min(cfg.ChunkTokens, s.p-s.ctx)
		if left >= 0 {
			c = min(c, left)
			left -= c
		}
		chunks[i] = c
		if c > 0 {
			nAct++
			pre += c
			kv += s.ctx + c
		}
	}
	tm := &cfg.Timing
	dt := tm.W + tm.HSeq*float64(nAct) + tm.HKV*float64(kv) + tm.P*float64(pre)
	end := start + dt
	e.busy += float64(len(e.running)) * dt
	e.lastN = len(e.running)
	e.lastEnd = end
	e.iterations++
	// 4. Apply: tokens processed, outputs produced, finished requests leave.
	k := 0
	for i, s := range e.running {
		c := chunks[i]
		if c > 0 {
			if s.ctx >= s.p {
				s.ctx++
				s.g++
			} else {
				s.ctx += c
				if s.ctx == s.p {
					s.g++
					if !s.first {
						s.first = true
						s.res.FirstToken = end
					}
				}
			}
		}
		if s.g == s.res.Req.OutputTokens {
			e.free += s.blocks
			s.res.Finished = end
			out = append(out, s.res)
			e.completed++
			continue
		}
		e.running[k] = s
		k++
	}
	clear(e.running[k:])
	e.running = e.running[:k]
	e.next = end
	if len(e.running) == 0 && e.queued() == 0 && e.shared == nil {
		e.idle = true
	}
	return out
}
