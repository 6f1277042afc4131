package export

import "unsafe"

// smallDict is the number of dictionary entries up to which dictIndex
// looks a string up by comparing it with each, not through the map.
const smallDict = 8

// strKey is a string by its data pointer and length (-1: no string), and
// its dictionary index.
type strKey struct {
	p *byte
	n int
	i int32
}

// strKeys is the number of strings a column knows by pointer.
const strKeys = 4

// noKeys are keys knowing no string.
var noKeys = [strKeys]strKey{{n: -1}, {n: -1}, {n: -1}, {n: -1}}

// known is the dictionary index of s, reported true, when s has the data
// pointer and length of the string the page looked up last (lookup): then
// it is that string (Go strings do not change, and keys keeps their bytes
// alive), and its entry is marked used. Small enough to be inlined.
func (c *pageColumn) known(s string) (int32, bool) {
	k := &c.keys[0]
	return k.i, k.p == unsafe.StringData(s) && k.n == len(s)
}

// lookup is s's dictionary index, the entry added when s is new; it marks
// the entry used by the page. The strings the page looked up are known by
// their data pointer and length (keys), else s is looked up in the
// dictionary. Either way s becomes the first key (known).
func (c *pageColumn) lookup(s string) int32 {
	p := unsafe.StringData(s)
	i := int32(-1)
	j := 1
	for ; j < strKeys; j++ {
		if k := &c.keys[j]; k.p == p && k.n == len(s) {
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
	c.keys[0] = strKey{p: p, n: len(s), i: i}
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
