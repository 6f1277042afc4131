package export

// smallDict is the number of dictionary entries up to which dictIndex
// looks a string up by comparing it with each, not through the map.
const smallDict = 8

// strKey is a string the page looked up (set: false for none) and its
// dictionary index.
type strKey struct {
	s   string
	set bool
	i   int32
}

// strKeys is the number of strings a column remembers.
const strKeys = 4

// noKeys are keys knowing no string.
var noKeys [strKeys]strKey

// known is the dictionary index of s, reported true, when s equals the
// string the page looked up last (lookup); its entry is then marked used
// already. Strings are compared by value: the comparison returns at once
// when both share their bytes, as the records' pool and category names do.
// Small enough to be inlined.
func (c *pageColumn) known(s string) (int32, bool) {
	k := &c.keys[0]
	return k.i, k.set && k.s == s
}

// lookup is s's dictionary index, the entry added when s is new; it marks
// the entry used by the page. The strings the page looked up last are
// remembered (keys), else s is looked up in the dictionary. Either way s
// becomes the first key (known).
func (c *pageColumn) lookup(s string) int32 {
	i := int32(-1)
	j := 1
	for ; j < strKeys; j++ {
		if k := &c.keys[j]; k.set && k.s == s {
			i = k.i
			break
		}
	}
	if i < 0 {
		j = strKeys - 1 // the oldest key gives way
		i = c.dictIndex(s)
		c.used[i] = true
	}
	copy(c.keys[1:j+1], c.keys[:j])
	c.keys[0] = strKey{s: s, set: true, i: i}
	return i
}

// dictIndex is s's dictionary index, the entry added when s is new.
func (c *pageColumn) dictIndex(s string) int32 {
	if len(c.dictStrs) <= smallDict {
		for j, e := range c.dictStrs {
			if e == s {
				return int32(j)
			}
		}
	} else if j, ok := c.dict[s]; ok {
		return j
	}
	i := int32(len(c.dictStrs))
	c.dict[s] = i
	c.dictStrs = append(c.dictStrs, s)
	c.dictVals = append(c.dictVals, s...)
	c.dictEnds = append(c.dictEnds, uint32(len(c.dictVals)))
	c.used = append(c.used, false)
	return i
}
