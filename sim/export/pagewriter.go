package export

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math"
	"slices"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/bytestreamsplit"
	"github.com/parquet-go/parquet-go/encoding/plain"
	"github.com/parquet-go/parquet-go/encoding/rle"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"

	"github.com/fleetsim/fleetsim/sim"
)

// pageWriter writes requests.parquet (schema Row, or RowExt) itself, with
// the bytes parquet-go v0.32.0's GenericWriter writes for the same rows and
// options (parquetOptions): the same pages, ending on the same rows (a
// column's page ends after the 64-row chunk, counted from the row group's
// start, that brings its buffered size to pageBytes, as parquet-go measures
// it), the same page headers, dictionaries, statistics, page index and
// footer. It takes parquet-go's own value encodings, column indexers, the
// integer pages' bounds and thrift encoder; what it does itself is shred
// the records into typed columns (parquet-go shreds Go structs through
// reflection-built functions, row by row within each chunk), keep the
// dictionaries and take the bounds of the other pages (doubleBounds,
// TestPageBoundsDouble). TestParquetPipelineBytes,
// TestParquetEncoderAdversarial, TestEncoderIrregularWrites and
// TestPageWriterRandomStreams compare its files with parquet-go's byte for
// byte.
type pageWriter struct {
	out     *bufio.Writer
	offset  int64
	cols    []*pageColumn
	ext     bool
	codec   *zstdCodec
	inGroup int // rows of the current row group

	rowGroups  []format.RowGroup
	colIndexes [][]format.ColumnIndex
	offIndexes [][]format.OffsetIndex
	footer     *format.FileMetaData // schema, metadata, created_by, column orders

	hdr     bytes.Buffer
	henc    *thrift.Encoder
	levels  []byte
	vals    []byte
	comp    []byte
	offsets []uint32
}

// chunkRows is the number of rows parquet-go's GenericWriter.Write shreds at
// a time, counting from the first row of each call: after each such chunk
// it ends the page of every column whose buffer has reached pageBytes. The
// sink's calls hold batchRows rows (a multiple), so chunks start every
// chunkRows rows from the row group's start, where the page writer checks.
const chunkRows = 64

// pageBytes is the buffered size at which parquet-go ends a page: 98% of its
// default page buffer size (256 KiB).
var pageBytes = func() int64 {
	size := float64(parquet.DefaultPageBufferSize) // a variable: the product is truncated
	return int64(int32(size * 0.98))
}()

// newPageWriter starts requests.parquet on f, with the schema and footer
// fields (created_by, metadata) parquet-go writes for info.
func newPageWriter(f *atomicFile, info FileInfo) (*pageWriter, error) {
	schema := parquet.SchemaOf(new(Row))
	if info.Extended {
		schema = parquet.SchemaOf(new(RowExt))
	}
	// parquet-go's own footer for no rows gives the schema elements,
	// key-value metadata, created_by and column orders, encoded alike.
	codec := newZstdCodec() // compresses nothing here
	var empty bytes.Buffer
	ew := parquet.NewWriter(&empty, append(parquetOptionsCodec(info, codec), schema)...)
	if err := ew.Close(); err != nil {
		return nil, err
	}
	ef, err := parquet.OpenFile(bytes.NewReader(empty.Bytes()), int64(empty.Len()))
	if err != nil {
		return nil, err
	}
	md := *ef.Metadata()
	w := &pageWriter{out: bufio.NewWriterSize(f, parquet.DefaultWriteBufferSize), ext: info.Extended,
		codec: codec, footer: &md}
	w.henc = thrift.NewEncoder(new(thrift.CompactProtocol).NewWriter(&w.hdr))
	layout := rowLayout
	if info.Extended {
		layout = append(slices.Clone(rowLayout), extLayout...)
	}
	leaves := schema.Columns()
	if len(leaves) != len(layout) {
		return nil, fmt.Errorf("export: requests.parquet has %d columns, the page writer %d", len(leaves), len(layout))
	}
	for i, path := range leaves {
		leaf, _ := schema.Lookup(path...)
		kind := layout[i].kind
		if len(path) != 1 || path[0] != layout[i].name || !kind.fits(leaf.Node) {
			return nil, fmt.Errorf("export: requests.parquet's column %d is %v, the page writer's %s", i, path, layout[i].name)
		}
		typ := leaf.Node.Type()
		c := &pageColumn{kind: kind, typ: typ, indexer: typ.NewColumnIndexer(parquet.DefaultColumnIndexSizeLimit)}
		var encs []format.Encoding // sorted, as ColumnMetaData lists them
		switch kind {
		case colInt64, colInt32, colBool:
			encs = []format.Encoding{format.Plain}
		case colDouble:
			encs = []format.Encoding{format.ByteStreamSplit}
		case colOptional:
			encs = []format.Encoding{format.RLE, format.ByteStreamSplit}
			c.defHist = make([]int64, 2)
		case colDict:
			encs = []format.Encoding{format.Plain, format.RLEDictionary}
			c.dict = make(map[string]int32)
			c.dictVals = make([]byte, 0, 256) // never nil: an empty entry's bytes are empty, not nil
		}
		c.meta = format.ColumnMetaData{Type: format.Type(typ.Kind()), Encoding: encs, PathInSchema: path,
			Codec: format.Zstd}
		c.reserve()
		c.resetPage()
		w.cols = append(w.cols, c)
	}
	return w, nil
}

// write encodes recs: in chunks of chunkRows rows counted from the row
// group's start, after each of which a column whose page has reached
// pageBytes ends it.
func (w *pageWriter) write(recs []sim.Record) error {
	for len(recs) > 0 {
		n := min(len(recs), chunkRows-w.inGroup%chunkRows, RowGroupRows-w.inGroup)
		w.add(recs[:n])
		recs = recs[n:]
		w.inGroup += n
		if w.inGroup == RowGroupRows {
			if err := w.endRowGroup(); err != nil {
				return err
			}
		} else if w.inGroup%chunkRows == 0 {
			for _, c := range w.cols {
				if c.size() >= pageBytes {
					if err := w.endPage(c); err != nil {
						return err
					}
				}
			}
		}
	}
	return nil
}

// add appends recs (at most chunkRows of them) to the columns' pages, row
// by row: the records are read once, in order. The boolean columns' values
// are gathered in a word each (at most 64 rows) and added at the end.
func (w *pageWriter) add(recs []sim.Record) {
	c := w.cols
	n := len(recs)
	if n > chunkRows {
		panic("export: pageWriter.add: more than chunkRows records")
	}
	id := extend(&c[0].i64, n)
	pool, cat := extend(&c[1].i32, n), extend(&c[3].i32, n)
	reason, detail := extend(&c[21].i32, n), extend(&c[22].i32, n)
	inst := extend(&c[2].i32, n)
	in, out := extend(&c[12].i32, n), extend(&c[13].i32, n)
	orig, est := extend(&c[14].i32, n), extend(&c[15].i32, n)
	pre, ret := extend(&c[16].i32, n), extend(&c[17].i32, n)
	arr := extend(&c[4].f64, n)
	opt := c[5:12]
	for _, o := range opt {
		o.open(n)
	}
	var compressed, warmup, rejected uint64 // row i in bit i (addBools)
	for i := range recs {
		r := &recs[i]
		id[i] = r.ID
		if x, ok := c[1].known(r.Pool); ok {
			pool[i] = x
		} else {
			pool[i] = c[1].lookup(r.Pool)
		}
		inst[i] = r.Instance
		if x, ok := c[3].known(r.Category); ok {
			cat[i] = x
		} else {
			cat[i] = c[3].lookup(r.Category)
		}
		arr[i] = r.ArrivalS
		opt[0].addOptional(r.AdmitS)
		opt[1].addOptional(r.FirstTokenS)
		opt[2].addOptional(r.FinishS)
		opt[3].addOptional(r.QueueWaitS)
		opt[4].addOptional(r.TTFTS)
		opt[5].addOptional(r.TPOTS)
		opt[6].addOptional(r.E2ES)
		in[i], out[i], orig[i], est[i] = r.InputTokens, r.OutputTokens, r.OriginalInputTokens, r.EstimatedTokens
		pre[i], ret[i] = r.Preemptions, r.Retries
		compressed |= bit(r.Compressed) << (i & 63)
		warmup |= bit(r.Warmup) << (i & 63)
		rejected |= bit(r.Rejected) << (i & 63)
		if x, ok := c[21].known(r.RejectedReason); ok {
			reason[i] = x
		} else {
			reason[i] = c[21].lookup(r.RejectedReason)
		}
		if x, ok := c[22].known(r.RejectedDetail); ok {
			detail[i] = x
		} else {
			detail[i] = c[22].lookup(r.RejectedDetail)
		}
	}
	c[18].addBools(compressed, n)
	c[19].addBools(warmup, n)
	c[20].addBools(rejected, n)
	if w.ext {
		w.addExt(recs)
	}
	for _, c := range c {
		c.n += n
	}
}

// addExt appends the RecordExt columns of recs.
func (w *pageWriter) addExt(recs []sim.Record) {
	c := w.cols
	n := len(recs)
	cached, pre, dec := extend(&c[23].i32, n), extend(&c[24].i32, n), extend(&c[25].i32, n)
	kv := c[26]
	kv.open(n)
	for i := range recs {
		x := &recs[i].Ext
		cached[i], pre[i], dec[i] = x.CachedTokens, x.PrefillInstance, x.DecodeInstance
		kv.addOptional(x.KVTransferS)
	}
}

// maxDictBytes is the size of a dictionary past which parquet-go's
// ColumnWriter, ending a page, switches the row group's later pages of the
// column to PLAIN, which the page writer does not do: it refuses such a
// page (pageColumn.dictFull).
var maxDictBytes int64 = 1 << 30 // a variable for the tests

var (
	plainEncoding plain.Encoding
	splitEncoding bytestreamsplit.Encoding
	dictEncoding  rle.DictionaryEncoding
	levelEncoding = rle.Encoding{BitWidth: 1}
)

// endPage encodes c's buffered rows as a DATA_PAGE_V2 (the definition
// levels as they are, the values compressed) appended to the chunk's pages,
// and indexes it, as parquet-go's ColumnWriter.writeDataPage does.
func (w *pageWriter) endPage(c *pageColumn) error {
	if c.n == 0 {
		return nil
	}
	var err error
	w.levels = w.levels[:0]
	switch c.kind {
	case colInt64:
		w.vals, err = plainEncoding.EncodeInt64(w.vals, c.i64)
	case colInt32:
		w.vals, err = plainEncoding.EncodeInt32(w.vals, c.i32)
	case colBool:
		w.vals, err = plainEncoding.EncodeBoolean(w.vals, c.bits)
	case colDouble:
		w.vals, err = splitEncoding.EncodeDouble(w.vals, c.f64)
	case colOptional:
		if w.levels, err = levelEncoding.EncodeLevels(w.levels, c.levels); err == nil {
			w.vals, err = splitEncoding.EncodeDouble(w.vals, c.f64)
		}
	case colDict:
		if c.dictFull || int64(len(c.dictVals)) > math.MaxUint32 {
			// parquet-go writes this page PLAIN (past 4 GiB, where the
			// entries' uint32 ends wrap, its dictionary panics).
			return fmt.Errorf("export: a string column holds over %d bytes of distinct strings in one row group", maxDictBytes)
		}
		// parquet-go checks the dictionary as it ends a page, and writes the
		// row group's later pages, if any, PLAIN.
		c.dictFull = int64(len(c.dictVals)) > maxDictBytes
		w.vals, err = dictEncoding.EncodeInt32(w.vals, c.i32)
	}
	if err != nil {
		return err
	}
	// Compressed straight into the storage the row group writes it from.
	pg := c.pages.next()
	if pg.body, err = w.codec.Encode(pg.body, w.vals); err != nil {
		return err
	}
	comp := pg.body
	numValues := int64(c.n)
	numNulls := int64(c.n - len(c.f64))
	if c.kind != colOptional {
		numNulls = 0
	}
	lo, hi, ok := c.bounds()
	loBytes, hiBytes := lo.Bytes(), hi.Bytes()
	crc := crc32.Update(crc32.Update(0, crc32.IEEETable, w.levels), crc32.IEEETable, comp)
	hdr := format.PageHeader{
		Type:                 format.DataPageV2,
		UncompressedPageSize: int32(len(w.levels) + len(w.vals)),
		CompressedPageSize:   int32(len(w.levels) + len(comp)),
		CRC:                  int32(crc),
		DataPageHeaderV2: thrift.New(format.DataPageHeaderV2{
			NumValues:                  int32(numValues),
			NumNulls:                   int32(numNulls),
			NumRows:                    int32(c.n),
			Encoding:                   c.encoding(),
			DefinitionLevelsByteLength: int32(len(w.levels)),
			IsCompressed:               thrift.New(true),
			Statistics: format.Statistics{Min: loBytes, Max: hiBytes, NullCount: numNulls,
				MinValue: loBytes, MaxValue: hiBytes},
		}),
	}
	headerLen, err := w.header(&hdr)
	if err != nil {
		return err
	}
	pg.head = append(append(pg.head[:0], w.hdr.Bytes()...), w.levels...)

	// ColumnWriter.recordPageStats.
	c.indexer.IndexPage(numValues, numNulls, lo, hi)
	c.meta.NumValues += numValues
	c.meta.Statistics.NullCount += numNulls
	if ok {
		st := &c.meta.Statistics
		var exHi, exLo parquet.Value
		if st.MaxValue != nil && st.MinValue != nil {
			exHi = c.typ.Kind().Value(st.MaxValue)
			exLo = c.typ.Kind().Value(st.MinValue)
		}
		if exHi.IsNull() || c.typ.Compare(hi, exHi) > 0 {
			buf := st.MaxValue[:0]
			if buf == nil && hi.Kind() == parquet.ByteArray && len(hi.ByteArray()) == 0 {
				buf = make([]byte, 0)
			}
			st.MaxValue = hi.AppendBytes(buf)
		}
		if exLo.IsNull() || c.typ.Compare(lo, exLo) < 0 {
			buf := st.MinValue[:0]
			if buf == nil && lo.Kind() == parquet.ByteArray && len(lo.ByteArray()) == 0 {
				buf = make([]byte, 0)
			}
			st.MinValue = lo.AppendBytes(buf)
		}
	}
	compressed := headerLen + int32(len(w.levels)+len(comp))
	c.locs = append(c.locs, format.PageLocation{Offset: c.meta.TotalCompressedSize,
		CompressedPageSize: compressed, FirstRowIndex: c.rows})
	c.rows += int64(c.n)
	if c.kind == colOptional {
		start := len(c.pageDef)
		c.pageDef = append(c.pageDef, 0, 0)
		nulls := int64(c.n - len(c.f64))
		c.pageDef[start] = nulls
		c.pageDef[start+1] = int64(len(c.f64))
		c.defHist[0] += nulls
		c.defHist[1] += int64(len(c.f64))
	}
	c.addSizes(headerLen+hdr.UncompressedPageSize, compressed, format.DataPageV2, c.encoding())

	c.resetPage()
	return nil
}

// header encodes h into w.hdr and returns its length.
func (w *pageWriter) header(h *format.PageHeader) (int32, error) {
	w.hdr.Reset()
	if err := w.henc.Encode(h); err != nil {
		return 0, err
	}
	return int32(w.hdr.Len()), nil
}

// writeBytes writes b to the file.
func (w *pageWriter) writeBytes(b []byte) error {
	n, err := w.out.Write(b)
	w.offset += int64(n)
	return err
}

// dictionaryPage appends c's dictionary page (PLAIN) to w.vals's storage
// and writes it, as parquet-go's ColumnWriter.writeDictionaryPage does.
func (w *pageWriter) dictionaryPage(c *pageColumn) error {
	w.offsets = append(w.offsets[:0], 0)
	w.offsets = append(w.offsets, c.dictEnds...)
	var err error
	if w.vals, err = plainEncoding.EncodeByteArray(w.vals, c.dictVals, w.offsets); err != nil {
		return err
	}
	if w.comp, err = w.codec.Encode(w.comp, w.vals); err != nil {
		return err
	}
	hdr := format.PageHeader{
		Type:                 format.DictionaryPage,
		UncompressedPageSize: int32(len(w.vals)),
		CompressedPageSize:   int32(len(w.comp)),
		CRC:                  int32(crc32.ChecksumIEEE(w.comp)),
		DictionaryPageHeader: thrift.New(format.DictionaryPageHeader{
			NumValues: int32(len(c.dictEnds)), Encoding: format.Plain}),
	}
	headerLen, err := w.header(&hdr)
	if err != nil {
		return err
	}
	if err := w.writeBytes(w.hdr.Bytes()); err != nil {
		return err
	}
	if err := w.writeBytes(w.comp); err != nil {
		return err
	}
	c.addSizes(headerLen+hdr.UncompressedPageSize, headerLen+hdr.CompressedPageSize, format.DictionaryPage, format.Plain)
	return nil
}

var magic = []byte("PAR1")

// endRowGroup ends the pages, writes the column chunks and records the row
// group, as parquet-go's writer.writeRowGroup does.
func (w *pageWriter) endRowGroup() error {
	if w.inGroup == 0 {
		return nil
	}
	for _, c := range w.cols {
		if err := w.endPage(c); err != nil {
			return err
		}
	}
	if w.offset == 0 {
		if err := w.writeBytes(magic); err != nil {
			return err
		}
	}
	fileOffset := w.offset
	chunks := make([]format.ColumnChunk, len(w.cols))
	cis := make([]format.ColumnIndex, len(w.cols))
	ois := make([]format.OffsetIndex, len(w.cols))
	var totalBytes, totalCompressed int64
	for i, c := range w.cols {
		ci := c.indexer.ColumnIndex()
		ci.RepetitionLevelHistogram = append(ci.RepetitionLevelHistogram[:0], []int64(nil)...)
		ci.DefinitionLevelHistogram = append(ci.DefinitionLevelHistogram[:0], c.pageDef...)
		cis[i] = ci
		c.meta.SizeStatistics = format.SizeStatistics{DefinitionLevelHistogram: slices.Clone(c.defHist)}
		if c.kind == colDict {
			c.meta.DictionaryPageOffset = w.offset
			if err := w.dictionaryPage(c); err != nil {
				// parquet-go's wording, "colum" included.
				return fmt.Errorf("writing dictionary page of row group colum %d: %w", i, err)
			}
		}
		c.meta.DataPageOffset = w.offset
		for j := range c.locs {
			c.locs[j].Offset += w.offset
		}
		for _, pg := range c.pages.pages[:c.pages.n] {
			if err := w.writeBytes(pg.head); err != nil {
				return fmt.Errorf("writing buffered pages of row group column %d: %w", i, err)
			}
			if err := w.writeBytes(pg.body); err != nil {
				return fmt.Errorf("writing buffered pages of row group column %d: %w", i, err)
			}
		}
		slices.SortFunc(c.meta.EncodingStats, func(a, b format.PageEncodingStats) int {
			if a.PageType != b.PageType {
				return int(a.PageType) - int(b.PageType)
			}
			return int(a.Encoding) - int(b.Encoding)
		})
		totalBytes += c.meta.TotalUncompressedSize
		totalCompressed += c.meta.TotalCompressedSize
		chunks[i] = format.ColumnChunk{MetaData: c.meta}
		chunks[i].MetaData.EncodingStats = slices.Clone(c.meta.EncodingStats)
		ois[i] = format.OffsetIndex{PageLocations: slices.Clone(c.locs)}
	}
	w.rowGroups = append(w.rowGroups, format.RowGroup{Columns: chunks, TotalByteSize: totalBytes,
		NumRows: int64(w.inGroup), SortingColumns: []format.SortingColumn{}, FileOffset: fileOffset, TotalCompressedSize: totalCompressed,
		Ordinal: int16(len(w.rowGroups))})
	w.colIndexes = append(w.colIndexes, cis)
	w.offIndexes = append(w.offIndexes, ois)
	for _, c := range w.cols {
		c.indexer.Reset()
		c.pages.reset()
		c.locs, c.rows, c.pageDef = c.locs[:0], 0, c.pageDef[:0]
		clear(c.defHist)
		c.meta = format.ColumnMetaData{Type: c.meta.Type, Encoding: c.meta.Encoding,
			PathInSchema: c.meta.PathInSchema, Codec: c.meta.Codec, EncodingStats: c.meta.EncodingStats[:0]}
		if c.kind == colDict {
			clear(c.dict)
			c.dictFull = false
			c.dictStrs, c.dictVals, c.dictEnds, c.used = c.dictStrs[:0], c.dictVals[:0], c.dictEnds[:0], c.used[:0]
		}
	}
	w.inGroup = 0
	return nil
}

// Close ends the last row group and writes the page index and the footer,
// as parquet-go's writer.close does.
func (w *pageWriter) Close() error {
	if err := w.endRowGroup(); err != nil {
		return err
	}
	if w.offset == 0 {
		if err := w.writeBytes(magic); err != nil {
			return err
		}
	}
	var buf bytes.Buffer
	enc := thrift.NewEncoder(new(thrift.CompactProtocol).NewWriter(&buf))
	put := func(v any) (int64, int32, error) {
		buf.Reset()
		if err := enc.Encode(v); err != nil {
			return 0, 0, err
		}
		at := w.offset
		return at, int32(buf.Len()), w.writeBytes(buf.Bytes())
	}
	var err error
	for i, cis := range w.colIndexes {
		for j := range cis {
			col := &w.rowGroups[i].Columns[j]
			if col.ColumnIndexOffset, col.ColumnIndexLength, err = put(&cis[j]); err != nil {
				return err
			}
		}
	}
	for i, ois := range w.offIndexes {
		for j := range ois {
			col := &w.rowGroups[i].Columns[j]
			if col.OffsetIndexOffset, col.OffsetIndexLength, err = put(&ois[j]); err != nil {
				return err
			}
		}
	}
	md := *w.footer
	md.NumRows = 0
	for i := range w.rowGroups {
		md.NumRows += w.rowGroups[i].NumRows
	}
	md.RowGroups = w.rowGroups
	_, n, err := put(&md)
	if err != nil {
		return err
	}
	if err := w.writeBytes(binary.LittleEndian.AppendUint32(nil, uint32(n))); err != nil {
		return err
	}
	if err := w.writeBytes(magic); err != nil {
		return err
	}
	if err := w.out.Flush(); err != nil {
		return err
	}
	w.codec.release()
	return nil
}
