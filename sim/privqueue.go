package sim

import "github.com/fleetsim/fleetsim/engine"

// Under jsq and rr each instance has a private FCFS queue. The engine keeps
// a whole sequence (about 200 bytes) for each request in its own queue, and
// the request's flight (about 150) stays in the fleet's table: an
// overloaded run would hold both for every waiting request. So a request
// dispatched to an instance whose queue is not empty is packed into a
// waitQueue of that instance (40 bytes, its flight released, as in the
// central queue), which the engine admits from once its own queue is empty
// (engine.Queue, SetShared). The engine then takes the same requests, in the
// same order, at the same iteration starts as if they had been submitted to
// it: it admits from its own queue first, and it holds at most the requests
// submitted while both queues were empty. Only the result's Enqueued
// (unused by the fleet) becomes the admission time.
//
// Pools whose jobs carry a prefix (a prefix cache: the waiter would keep the
// flight anyway), disaggregated pools and autoscaled ones (whose instances
// come and go) submit every request to the engine.

// compactPrivate reports whether p packs its instances' waiting requests.
func (p *pool) compactPrivate() bool {
	return p.mode != dispatchCentral && p.sc == nil && p.dg == nil && !p.cache
}

// pushPrivate packs j behind instance i's queue and reports true, or
// reports false when j is to be submitted to the engine: i's queue (the
// engine's and its waitQueue) is empty, or p does not pack. eQueued[i]
// must be fresh (refreshCounts). Once j is packed its flight is released.
// An instance's queue is attached to its engine at its first packed request
// (the engine then busy with its own queue): an engine with a shared queue
// checks it at every iteration start, which instances that never queue are
// spared.
func (p *pool) pushPrivate(i int, j *engine.Job) bool {
	if p.eQueued[i] == 0 || !p.compactPrivate() {
		return false
	}
	if p.pq == nil {
		p.pq = make([]waitQueue, len(p.eng))
	}
	q := &p.pq[i]
	if q.fls == nil { // the instance's first packed request: attach the queue
		*q = waitQueue{fls: p.fls, pool: p}
		p.eng[i].SetShared(q)
	}
	q.Push(p.fls.of(j))
	return true
}

// privPacked returns the number of requests packed behind instance i.
func (p *pool) privPacked(i int) int {
	if p.pq == nil {
		return 0
	}
	return p.pq[i].Len()
}

// packed returns the number of requests p holds packed, without a flight:
// in the central queue and behind its instances' queues.
func (p *pool) packed() int {
	n := p.cq.packed()
	for i := range p.pq {
		n += p.pq[i].packed()
	}
	return n
}
