package export

import (
	"slices"

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

	anyTrue, anyFalse bool // colBool: the page holds a true, a false
	// colDict: strings the page looked up last (known, lookup), the last
	// one first.
	keys [strKeys]strKey

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

// extend lengthens *s by n elements and returns them.
func extend[T any](s *[]T, n int) []T {
	l := len(*s)
	*s = slices.Grow(*s, n)[:l+n]
	return (*s)[l:]
}

// open makes room in a colOptional page for n more rows, added by
// addOptional.
func (c *pageColumn) open(n int) {
	c.f64 = slices.Grow(c.f64, n)
	c.levels = slices.Grow(c.levels, n)
}

// addOptional adds a colOptional value (after open): NULL when x is NaN or
// infinite.
func (c *pageColumn) addOptional(x float64) {
	def := byte(0)
	if x-x == 0 { // finite: x-x is NaN for NaN and ±Inf
		def = 1
	}
	c.levels = append(c.levels, def)
	c.f64[:cap(c.f64)][len(c.f64)] = x
	c.f64 = c.f64[:len(c.f64)+int(def)]
}

// bit is 1 for true, 0 for false.
func bit(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// addBools adds n colBool values (1 <= n <= chunkRows), the i-th in bit i of
// m (the bits from n up clear), after the page's last value: bit for bit
// where that ends, its first byte's low bits first.
func (c *pageColumn) addBools(m uint64, n int) {
	all := ^uint64(0) >> (64 - n)
	c.anyTrue = c.anyTrue || m != 0
	c.anyFalse = c.anyFalse || m != all
	off := c.nbits % 8
	if off == 0 {
		c.bits = append(c.bits, 0)
	}
	last := len(c.bits) - 1
	c.bits[last] |= byte(m << off)
	m >>= 8 - off
	for k := (off + n + 7) / 8; k > 1; k-- {
		c.bits = append(c.bits, byte(m))
		m >>= 8
	}
	c.nbits += n
}

// resetPage empties the current page (its values, bounds and the strings
// it remembers).
func (c *pageColumn) resetPage() {
	c.n, c.nbits = 0, 0
	c.i32, c.i64, c.f64, c.bits, c.levels = c.i32[:0], c.i64[:0], c.f64[:0], c.bits[:0], c.levels[:0]
	clear(c.used)
	c.anyTrue, c.anyFalse = false, false
	c.keys = noKeys // known again as the page uses them (lookup)
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
		if len(c.f64) == 0 {
			return parquet.Value{}, parquet.Value{}, false
		}
		lo, hi := doubleBounds(c.f64)
		// Level(0, 0, 0): the column index a page of column 0 gives its
		// values (the page writer's pages are made as column 0's).
		return parquet.DoubleValue(lo).Level(0, 0, 0), parquet.DoubleValue(hi).Level(0, 0, 0), true
	case colBool:
		return parquet.BooleanValue(!c.anyFalse), parquet.BooleanValue(c.anyTrue), c.n > 0
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

// pageBuf holds a column chunk's encoded pages, each in storage of its
// own kept from row group to row group: a page is compressed straight into
// it (body), where copying it into a buffer of the chunk would move every
// compressed byte once more.
type pageBuf struct {
	pages []encodedPage
	n     int // pages in use
}

// encodedPage is a data page as written: its header and definition levels
// (head), then its compressed values (body).
type encodedPage struct {
	head, body []byte
}

// next returns the storage of the chunk's next page (holding an earlier
// row group's page, if any).
func (b *pageBuf) next() *encodedPage {
	if b.n == len(b.pages) {
		b.pages = append(b.pages, encodedPage{})
	}
	b.n++
	return &b.pages[b.n-1]
}

// reset empties b, keeping its pages' storage.
func (b *pageBuf) reset() { b.n = 0 }
