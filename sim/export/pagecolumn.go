package export

import (
	"math"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding"
	"github.com/parquet-go/parquet-go/format"
)

// colKind is how a column of requests.parquet is stored.
type colKind uint8

const (
	colInt64    colKind = iota // required INT64, PLAIN
	colInt32                   // required INT32, PLAIN
	colBool                    // required BOOLEAN, PLAIN
	colDouble                  // required DOUBLE, BYTE_STREAM_SPLIT
	colOptional                // optional DOUBLE, BYTE_STREAM_SPLIT; NaN or ±Inf is NULL
	colDict                    // required BYTE_ARRAY string, RLE_DICTIONARY
)

// pageColumn is one column: its current page's values and its current
// column chunk (row group).
type pageColumn struct {
	kind colKind
	typ  parquet.Type

	// The current page.
	n      int       // rows
	i32    []int32   // colInt32 values, colDict indexes
	i64    []int64   // colInt64
	f64    []float64 // colDouble, colOptional (non-NULL values)
	bits   []byte    // colBool, packed, first row in the lowest bit
	nbits  int       // colBool: values in bits
	levels []byte    // colOptional definition levels (0: NULL)
	used   []bool    // colDict: the entries the page refers to

	// The dictionary (colDict) of the current row group.
	dict     map[string]int32
	dictStrs []string // the entries
	dictVals []byte   // the entries' bytes, concatenated
	dictEnds []uint32 // the entries' ends in dictVals
	dictFull bool     // past maxDictBytes when a page of the row group ended

	// The current column chunk.
	pages   pageBuf // encoded pages (headers and bodies)
	indexer parquet.ColumnIndexer
	meta    format.ColumnMetaData
	locs    []format.PageLocation
	rows    int64   // rows in pages
	defHist []int64 // colOptional: definition levels, chunk
	pageDef []int64 // colOptional: definition levels, per page
}

// pageLayout is a column of requests.parquet as the page writer fills it.
type pageLayout struct {
	name string
	kind colKind
}

// rowLayout are Row's columns, in order, extLayout ExtCols'; add fills them
// in this order.
var (
	rowLayout = []pageLayout{{"id", colInt64}, {"pool", colDict}, {"instance", colInt32}, {"category", colDict},
		{"arrival_s", colDouble}, {"admit_s", colOptional}, {"first_token_s", colOptional},
		{"finish_s", colOptional}, {"queue_wait_s", colOptional}, {"ttft_s", colOptional},
		{"tpot_s", colOptional}, {"e2e_s", colOptional}, {"input_tokens", colInt32},
		{"output_tokens", colInt32}, {"original_input_tokens", colInt32}, {"estimated_tokens", colInt32},
		{"preemptions", colInt32}, {"retries", colInt32}, {"compressed", colBool}, {"warmup", colBool},
		{"rejected", colBool}, {"rejected_reason", colDict}, {"rejected_detail", colDict}}
	extLayout = []pageLayout{{"cached_tokens", colInt32}, {"prefill_instance", colInt32},
		{"decode_instance", colInt32}, {"kv_transfer_s", colOptional}}
)

// fits reports whether a schema node is stored as k: its physical type,
// whether it is optional, and its encoding.
func (k colKind) fits(n parquet.Node) bool {
	kind, enc := n.Type().Kind(), format.Plain
	if e := n.Encoding(); e != nil {
		enc = e.Encoding()
	}
	if n.Optional() != (k == colOptional) || n.Repeated() {
		return false
	}
	switch k {
	case colInt64:
		return kind == parquet.Int64 && enc == format.Plain
	case colInt32:
		return kind == parquet.Int32 && enc == format.Plain
	case colBool:
		return kind == parquet.Boolean && enc == format.Plain
	case colDouble, colOptional:
		return kind == parquet.Double && enc == format.ByteStreamSplit
	default:
		return kind == parquet.ByteArray && enc == format.RLEDictionary
	}
}

// addOptional adds a colOptional value: NULL when x is NaN or infinite.
func (c *pageColumn) addOptional(x float64) {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		c.levels = append(c.levels, 0)
		return
	}
	c.levels = append(c.levels, 1)
	c.f64 = append(c.f64, x)
}

// addBool adds a colBool value.
func (c *pageColumn) addBool(b bool) {
	if c.nbits%8 == 0 {
		c.bits = append(c.bits, 0)
	}
	if b {
		c.bits[c.nbits/8] |= 1 << (c.nbits % 8)
	}
	c.nbits++
}

// smallDict is the number of dictionary entries up to which addString
// looks a string up by comparing it with each, not through the map.
const smallDict = 8

// addString adds a colDict value: its dictionary index, the entry added
// when s is new.
func (c *pageColumn) addString(s string) {
	i := int32(-1)
	if len(c.dictStrs) <= smallDict {
		for j, e := range c.dictStrs {
			if e == s {
				i = int32(j)
				break
			}
		}
	} else if j, ok := c.dict[s]; ok {
		i = j
	}
	if i < 0 {
		i = int32(len(c.dictStrs))
		c.dict[s] = i
		c.dictStrs = append(c.dictStrs, s)
		c.dictVals = append(c.dictVals, s...)
		c.dictEnds = append(c.dictEnds, uint32(len(c.dictVals)))
		c.used = append(c.used, false)
	}
	c.used[i] = true
	c.i32 = append(c.i32, i)
}

// reserve sizes c's page buffers for the most rows a page holds, so that
// appending to them does not copy them as they grow.
func (c *pageColumn) reserve() {
	switch c.kind {
	case colInt64:
		c.i64 = make([]int64, 0, pageRows(8))
	case colInt32, colDict:
		c.i32 = make([]int32, 0, pageRows(4))
	case colBool:
		c.bits = make([]byte, 0, RowGroupRows/8)
	case colDouble:
		c.f64 = make([]float64, 0, pageRows(8))
	case colOptional:
		c.levels = make([]byte, 0, pageRows(5))
		c.f64 = make([]float64, 0, pageRows(13))
	}
}

// pageRows is the number of rows at which a page of rowBytes bytes a row
// (as size counts them) ends: the first chunk that brings it to pageBytes,
// at most a row group.
func pageRows(rowBytes int64) int {
	n := (pageBytes + rowBytes - 1) / rowBytes
	return int(min((n+chunkRows-1)/chunkRows*chunkRows, RowGroupRows))
}

// size is the page's buffered size as parquet-go's column buffer of the
// column counts it.
func (c *pageColumn) size() int64 {
	switch c.kind {
	case colInt64, colDouble:
		return 8 * int64(c.n)
	case colInt32, colDict:
		return 4 * int64(c.n)
	case colBool:
		return int64(len(c.bits))
	default: // colOptional: a row index and a level per row, the values
		return 5*int64(c.n) + 8*int64(len(c.f64))
	}
}

// encoding is the encoding of the column's data pages.
func (c *pageColumn) encoding() format.Encoding {
	switch c.kind {
	case colDouble, colOptional:
		return format.ByteStreamSplit
	case colDict:
		return format.RLEDictionary
	}
	return format.Plain
}

// entry is dictionary entry i's bytes.
func (c *pageColumn) entry(i int) []byte {
	start := uint32(0)
	if i > 0 {
		start = c.dictEnds[i-1]
	}
	return c.dictVals[start:c.dictEnds[i]:c.dictEnds[i]]
}

// bounds are the page's smallest and largest values, as parquet-go's page
// of the column gives them (ok false when the page holds only NULLs).
func (c *pageColumn) bounds() (lo, hi parquet.Value, ok bool) {
	switch c.kind {
	case colInt64:
		return c.typ.NewPage(0, len(c.i64), encoding.Int64Values(c.i64)).Bounds()
	case colInt32:
		return c.typ.NewPage(0, len(c.i32), encoding.Int32Values(c.i32)).Bounds()
	case colDouble, colOptional:
		return c.typ.NewPage(0, len(c.f64), encoding.DoubleValues(c.f64)).Bounds()
	case colBool:
		hasFalse, hasTrue := false, false
		for i := range c.n {
			if c.bits[i/8]>>(i%8)&1 != 0 {
				hasTrue = true
			} else {
				hasFalse = true
			}
		}
		return parquet.BooleanValue(!hasFalse), parquet.BooleanValue(hasTrue), c.n > 0
	default: // colDict: compared as strings, like parquet-go's dictionary
		lo, hi := -1, -1
		for i, u := range c.used {
			if !u {
				continue
			}
			if lo < 0 {
				lo, hi = i, i
				continue
			}
			e := c.dictStrs[i]
			if e < c.dictStrs[lo] {
				lo = i
			} else if e > c.dictStrs[hi] {
				hi = i
			}
		}
		if lo < 0 {
			return parquet.Value{}, parquet.Value{}, false
		}
		return parquet.ByteArrayValue(c.entry(lo)), parquet.ByteArrayValue(c.entry(hi)), true
	}
}

// addSizes counts a page of the chunk: its sizes with the header and its
// type and encoding.
func (c *pageColumn) addSizes(uncompressed, compressed int32, typ format.PageType, enc format.Encoding) {
	c.meta.TotalUncompressedSize += int64(uncompressed)
	c.meta.TotalCompressedSize += int64(compressed)
	for i, st := range c.meta.EncodingStats {
		if st.PageType == typ && st.Encoding == enc {
			c.meta.EncodingStats[i].Count++
			return
		}
	}
	c.meta.EncodingStats = append(c.meta.EncodingStats, format.PageEncodingStats{PageType: typ, Encoding: enc, Count: 1})
}

// pageBuf holds a column chunk's encoded pages in blocks of pageBlock
// bytes, so that it grows without copying what it holds.
type pageBuf struct {
	blocks [][]byte
	n      int // blocks in use
}

const pageBlock = 64 << 10

// write appends p.
func (b *pageBuf) write(p []byte) {
	for len(p) > 0 {
		if b.n == 0 || len(b.blocks[b.n-1]) == pageBlock {
			if b.n == len(b.blocks) {
				b.blocks = append(b.blocks, make([]byte, 0, pageBlock))
			}
			b.n++
		}
		blk := &b.blocks[b.n-1]
		k := min(len(p), pageBlock-len(*blk))
		*blk = append(*blk, p[:k]...)
		p = p[k:]
	}
}

// reset empties b, keeping its blocks.
func (b *pageBuf) reset() {
	for i := range b.blocks[:b.n] {
		b.blocks[i] = b.blocks[i][:0]
	}
	b.n = 0
}
