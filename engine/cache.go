package engine

// pcache is an instance's prefix cache (docs/model.md, "Prefix cache"): the
// KV blocks whose content is named by a chained key. An entry is referenced
// by the running sequences that use it (ref > 0) or, unreferenced, waits in
// the LRU list as a free block that still holds its content, until it is
// evicted to make room or reused by a hit.
type pcache struct {
	limit     int              // most unreferenced entries kept (Config.CacheBlocks)
	index     map[uint64]int32 // key -> entry
	ents      []centry
	spare     []int32 // recycled entry indices
	head      int32   // least recently released unreferenced entry, -1 if none
	tail      int32   // most recently released, -1 if none
	nLRU      int     // unreferenced entries (part of the engine's free blocks)
	evictions int64
	version   uint64 // changes with every change of the entries (for memos)
}

// centry is one cached block.
type centry struct {
	key        uint64
	ref        int32 // running sequences using the block
	prev, next int32 // LRU links while unreferenced
	doomed     bool  // marked by mark: treated as evicted by a lookahead
}

func newCache(limit int) *pcache {
	return &pcache{limit: limit, index: make(map[uint64]int32), head: -1, tail: -1}
}

// lookup returns the entry of key, or -1.
func (c *pcache) lookup(key uint64) int32 {
	if i, ok := c.index[key]; ok {
		return i
	}
	return -1
}

// add enters key with one reference and returns its entry.
func (c *pcache) add(key uint64) int32 {
	var i int32
	if n := len(c.spare); n > 0 {
		i = c.spare[n-1]
		c.spare = c.spare[:n-1]
	} else {
		i = int32(len(c.ents))
		c.ents = append(c.ents, centry{})
	}
	c.version++
	c.ents[i] = centry{key: key, ref: 1, prev: -1, next: -1}
	c.index[key] = i
	return i
}

// unlink takes entry i out of the LRU list.
func (c *pcache) unlink(i int32) {
	e := &c.ents[i]
	if e.prev >= 0 {
		c.ents[e.prev].next = e.next
	} else {
		c.head = e.next
	}
	if e.next >= 0 {
		c.ents[e.next].prev = e.prev
	} else {
		c.tail = e.prev
	}
	e.prev, e.next = -1, -1
	c.nLRU--
}

// touch adds a reference to entry i; it reports whether the entry was
// unreferenced (it then stops being a free block).
func (c *pcache) touch(i int32) bool {
	c.version++
	e := &c.ents[i]
	e.ref++
	if e.ref == 1 {
		c.unlink(i)
		return true
	}
	return false
}

// release drops a reference to entry i; it reports whether the entry became
// unreferenced (it then joins the LRU list as the most recent free block).
func (c *pcache) release(i int32) bool {
	c.version++
	e := &c.ents[i]
	e.ref--
	if e.ref > 0 {
		return false
	}
	e.prev, e.next = c.tail, -1
	if c.tail >= 0 {
		c.ents[c.tail].next = i
	} else {
		c.head = i
	}
	c.tail = i
	c.nLRU++
	return true
}

// evict drops the n least recently released unreferenced entries.
func (c *pcache) evict(n int) {
	c.version++
	for ; n > 0; n-- {
		i := c.head
		c.unlink(i)
		delete(c.index, c.ents[i].key)
		c.spare = append(c.spare, i)
		c.evictions++
	}
}

// mark sets doomed on the n least recently released unreferenced entries
// (on = true) or clears it (on = false): the entries the next take would
// evict, for a lookahead that must not change the cache.
func (c *pcache) mark(n int, on bool) {
	for i := c.head; n > 0 && i >= 0; n-- {
		c.ents[i].doomed = on
		i = c.ents[i].next
	}
}
