package sim

import "github.com/fleetsim/fleetsim/workload"

// idxHeap is an indexed binary min-heap over the instances 0..n-1 of a pool,
// ordered by a float64 key and, on equal keys, by the lower instance index
// (the explicit tie rule of the fleet model). Every instance is always in
// the heap; update moves one instance after its key changed. It replaces
// container/heap on the hot path: no interface calls, no boxing.
type idxHeap struct {
	heap []int32   // heap[k] = instance at heap position k
	pos  []int32   // pos[i] = heap position of instance i
	key  []float64 // key[i] = current key of instance i
}

func newIdxHeap(n int, key float64) idxHeap {
	h := idxHeap{heap: make([]int32, n), pos: make([]int32, n), key: make([]float64, n)}
	for i := range n {
		h.heap[i], h.pos[i], h.key[i] = int32(i), int32(i), key
	}
	return h
}

func (h *idxHeap) less(a, b int32) bool {
	ka, kb := h.key[a], h.key[b]
	if ka != kb {
		return ka < kb
	}
	return a < b
}

// top returns the instance with the smallest key and that key.
func (h *idxHeap) top() (int, float64) {
	i := h.heap[0]
	return int(i), h.key[i]
}

// update sets instance i's key and restores the heap order.
func (h *idxHeap) update(i int, key float64) {
	if h.key[i] == key {
		return
	}
	h.key[i] = key
	k := int(h.pos[i])
	if !h.up(k) {
		h.down(k)
	}
}

func (h *idxHeap) up(k int) bool {
	moved := false
	x := h.heap[k]
	for k > 0 {
		p := (k - 1) / 2
		if !h.less(x, h.heap[p]) {
			break
		}
		h.heap[k] = h.heap[p]
		h.pos[h.heap[k]] = int32(k)
		k = p
		moved = true
	}
	h.heap[k] = x
	h.pos[x] = int32(k)
	return moved
}

func (h *idxHeap) down(k int) {
	n := len(h.heap)
	x := h.heap[k]
	for {
		c := 2*k + 1
		if c >= n {
			break
		}
		if r := c + 1; r < n && h.less(h.heap[r], h.heap[c]) {
			c = r
		}
		if !h.less(h.heap[c], x) {
			break
		}
		h.heap[k] = h.heap[c]
		h.pos[h.heap[k]] = int32(k)
		k = c
	}
	h.heap[k] = x
	h.pos[x] = int32(k)
}

// fifo is a growable ring buffer of requests: a pool's central queue. It
// implements engine.Queue so that a pool's instances can share it.
type fifo struct {
	buf  []*workload.Request
	head int
	n    int
}

// Len returns the number of waiting requests.
func (q *fifo) Len() int { return q.n }

// Peek returns the head of the line, nil when empty.
func (q *fifo) Peek() *workload.Request {
	if q.n == 0 {
		return nil
	}
	return q.buf[q.head]
}

// Pop removes and returns the head of the line (nil when empty).
func (q *fifo) Pop() *workload.Request {
	if q.n == 0 {
		return nil
	}
	r := q.buf[q.head]
	q.buf[q.head] = nil
	q.head++
	if q.head == len(q.buf) {
		q.head = 0
	}
	q.n--
	return r
}

// Push appends r at the tail.
func (q *fifo) Push(r *workload.Request) {
	if q.n == len(q.buf) {
		nb := make([]*workload.Request, max(16, 2*len(q.buf)))
		for i := range q.n {
			nb[i] = q.buf[(q.head+i)%len(q.buf)]
		}
		q.buf, q.head = nb, 0
	}
	q.buf[(q.head+q.n)%len(q.buf)] = r
	q.n++
}
