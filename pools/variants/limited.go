package variants

import (
	"cmp"
	"math"
	"slices"
)

// entry is a workload waiting for an allocation in limited mode.
type entry struct {
	a      *Allocation
	order  int     // index in the file
	cur    int     // index of the candidate being tried
	regret float64 // value gap to the next candidate (MaxFloat64 at the last)
}

func (e *entry) setRegret() {
	if c := e.a.Candidates; e.cur+1 < len(c) {
		e.regret = c[e.cur+1].Value - c[e.cur].Value
	} else {
		e.regret = math.MaxFloat64
	}
}

// entryOrder is the greedy order: priority (1 first), then the larger
// regret (the workload that loses most by falling back goes first), then
// the larger value of the current candidate, then the file's order.
func entryOrder(x, y *entry) int {
	if c := cmp.Compare(x.a.Priority, y.a.Priority); c != 0 {
		return c
	}
	if c := cmp.Compare(y.regret, x.regret); c != 0 {
		return c
	}
	if c := cmp.Compare(y.a.Candidates[y.cur].Value, x.a.Candidates[x.cur].Value); c != 0 {
		return c
	}
	return cmp.Compare(x.order, y.order)
}

// limited allocates from r.Inventory: the SLO-meeting allocations greedily
// (entryOrder; a workload whose candidate does not fit falls back to its
// next candidate and is re-queued with its new regret), then the
// saturation policy on the workloads left without one — after each
// priority group, or once at the end when DeferBestEffort is set.
func limited(r *Result, cfg *Config) {
	avail := map[string]int{}
	for k, v := range r.Inventory {
		avail[k] = v
	}
	var all []*entry
	for i := range r.Allocations {
		if a := &r.Allocations[i]; len(a.Candidates) > 0 {
			e := &entry{a: a, order: i}
			e.setRegret()
			all = append(all, e)
		}
	}
	slices.SortFunc(all, entryOrder)
	if cfg.DeferBestEffort {
		left := greedy(all, avail)
		bestEffort(left, avail, r.Policy)
		return
	}
	for _, g := range priorityGroups(all) {
		left := greedy(g, avail)
		bestEffort(left, avail, r.Policy)
	}
}

// greedy gives each entry, in entryOrder, the first of its candidates (by
// value) that fits the available units, and returns the entries for which
// none fitted, in order.
func greedy(queue []*entry, avail map[string]int) []*entry {
	queue = slices.Clone(queue)
	var left []*entry
	for len(queue) > 0 {
		e := queue[0]
		queue = queue[1:]
		c := e.a.Candidates[e.cur]
		if need := c.Replicas * c.Units; avail[c.Accelerator] >= need {
			avail[c.Accelerator] -= need
			e.a.assign(c, c.Replicas)
			continue
		}
		e.cur++
		if e.cur == len(e.a.Candidates) {
			e.cur = 0
			left = append(left, e)
			continue
		}
		e.setRegret()
		i, _ := slices.BinarySearchFunc(queue, e, entryOrder)
		queue = slices.Insert(queue, i, e)
	}
	return left
}

// priorityGroups splits entries (sorted by priority) into runs of equal
// priority.
func priorityGroups(es []*entry) [][]*entry {
	var out [][]*entry
	for i := 0; i < len(es); {
		j := i + 1
		for j < len(es) && es[j].a.Priority == es[i].a.Priority {
			j++
		}
		out = append(out, es[i:j])
		i = j
	}
	return out
}

// bestEffort hands leftover units to the entries that got no SLO-meeting
// allocation, by policy; the replicas given are fewer than the SLOs need.
func bestEffort(left []*entry, avail map[string]int, policy string) {
	switch policy {
	case PolicyPriorityExhaustive:
		for _, e := range left {
			exhaust(e, avail)
		}
	case PolicyPriorityRoundRobin:
		for _, g := range priorityGroups(left) {
			roundRobin(g, avail)
		}
	case PolicyRoundRobin:
		roundRobin(left, avail)
	}
	for _, e := range left {
		if e.a.Replicas == 0 {
			e.a.Note = "no candidate fits the inventory"
		}
	}
}

// exhaust gives e, on the first of its candidates with room for a replica,
// as many replicas as fit (at most the SLO-meeting count).
func exhaust(e *entry, avail map[string]int) {
	for _, c := range e.a.Candidates {
		if n := min(avail[c.Accelerator]/c.Units, c.Replicas); n > 0 {
			avail[c.Accelerator] -= n * c.Units
			e.a.assign(c, n)
			return
		}
	}
}

// roundRobin gives one replica at a time to each entry in turn, each on the
// first of its candidates that had room for one replica when its turn first
// came, until no entry can take another (its candidate's accelerators are
// used up, or it reached the SLO-meeting count).
func roundRobin(es []*entry, avail map[string]int) {
	ts := make([]ticket, len(es))
	for round, active := 0, true; active; round++ {
		if round > 0 {
			bulkRounds(ts, avail)
		}
		active = false
		for i, e := range es {
			t := &ts[i]
			if t.done {
				continue
			}
			if t.c == nil {
				for j := range e.a.Candidates {
					if c := &e.a.Candidates[j]; avail[c.Accelerator] >= c.Units {
						t.c = c
						break
					}
				}
			}
			if t.c == nil || t.n == t.c.Replicas || avail[t.c.Accelerator] < t.c.Units {
				t.done = true
				continue
			}
			avail[t.c.Accelerator] -= t.c.Units
			t.n++
			active = true
		}
	}
	for i, e := range es {
		if t := ts[i]; t.n > 0 {
			e.a.assign(*t.c, t.n)
		}
	}
}

// ticket is an entry's state in round-robin allocation.
type ticket struct {
	c    *Candidate // the candidate it takes replicas of (nil: none chosen yet)
	n    int        // replicas taken
	done bool       // takes no more
}

// bulkRounds applies at once all but the last of the round-robin rounds in
// which every active ticket still takes a replica (none reaches its count
// and every accelerator type has room for a whole round), so that large
// inventories do not cost one loop turn per replica. The result is the
// same as stepping the rounds one by one.
func bulkRounds(ts []ticket, avail map[string]int) {
	rounds := math.MaxInt
	demand := map[string]int{}
	for _, t := range ts {
		if !t.done && t.c != nil {
			rounds = min(rounds, t.c.Replicas-t.n)
			demand[t.c.Accelerator] += t.c.Units
		}
	}
	for k, d := range demand {
		rounds = min(rounds, avail[k]/d)
	}
	if rounds == math.MaxInt || rounds < 2 {
		return
	}
	rounds--
	for i := range ts {
		if t := &ts[i]; !t.done && t.c != nil {
			t.n += rounds
			avail[t.c.Accelerator] -= rounds * t.c.Units
		}
	}
}
