package export

import (
	"fmt"
	"math"
	"slices"

	"github.com/parquet-go/parquet-go"

	"github.com/fleetsim/fleetsim/sim"
)

// chunkRows is the number of rows parquet-go's GenericWriter.Write shreds at
// a time: after each such chunk it ends the page of every column whose
// buffer has reached the page size, counting chunks from the call's first
// row. The encoder's chunks are these rows counted from the row group's
// start (a call to Write covers whole chunks, or the row group's partial
// first one), so pages end on the same rows whichever path a chunk takes.
const chunkRows = 64

// encRow is a row of requests.parquet as the encoder hands it to
// parquet-go. Its columns are Row's; five of the nullable times are plain
// float64 marked optional, which parquet-go shreds in runs, where a
// *float64 costs a call chain per row. queue_wait_s and tpot_s stay
// pointers: they are exactly 0 in many rows (a request admitted at once;
// one output token). parquet-go writes a zero optional float64 as NULL, and
// v0.32.0 writes some NULLs of a 64-row run as 0 (a NULL run ending at row
// y followed by exactly y values, then NULLs to the run's end: the latter
// NULLs become 0; upstream issue #154 reports the same symptom). Whether a
// zero is NULL changed upstream too (PR #480, v0.29.0: not NULL; PR #523:
// NULL again). So only chunks in which all five are finite and non-zero in
// every row go through GenericWriter.Write, which relies on neither; a chunk
// with a zero, NaN or infinite one (a NULL: a rejected request) goes through
// the column writers (columnValues).
type encRow struct {
	ID                  int64    `parquet:"id"`
	Pool                string   `parquet:"pool,dict"`
	Instance            int32    `parquet:"instance"`
	Category            string   `parquet:"category,dict"`
	ArrivalS            float64  `parquet:"arrival_s,split"`
	AdmitS              float64  `parquet:"admit_s,optional,split"`
	FirstTokenS         float64  `parquet:"first_token_s,optional,split"`
	FinishS             float64  `parquet:"finish_s,optional,split"`
	QueueWaitS          *float64 `parquet:"queue_wait_s,split"`
	TTFTS               float64  `parquet:"ttft_s,optional,split"`
	TPOTS               *float64 `parquet:"tpot_s,split"`
	E2ES                float64  `parquet:"e2e_s,optional,split"`
	InputTokens         int32    `parquet:"input_tokens"`
	OutputTokens        int32    `parquet:"output_tokens"`
	OriginalInputTokens int32    `parquet:"original_input_tokens"`
	EstimatedTokens     int32    `parquet:"estimated_tokens"`
	Preemptions         int32    `parquet:"preemptions"`
	Retries             int32    `parquet:"retries"`
	Compressed          bool     `parquet:"compressed"`
	Warmup              bool     `parquet:"warmup"`
	Rejected            bool     `parquet:"rejected"`
	RejectedReason      string   `parquet:"rejected_reason,dict"`
	RejectedDetail      string   `parquet:"rejected_detail,dict"`
	vals                [2]float64
}

// encRowExt is encRow with ExtCols (schema RowExt).
type encRowExt struct {
	encRow
	ExtCols
	kv float64
}

// set fills b from r; special reports that one of the five optional
// float64 columns is zero, NaN or infinite (a zero or a NULL).
func (b *encRow) set(r *sim.Record) (special bool) {
	*b = encRow{
		ID: r.ID, Pool: r.Pool, Instance: r.Instance, Category: r.Category,
		ArrivalS:            r.ArrivalS,
		AdmitS:              r.AdmitS,
		FirstTokenS:         r.FirstTokenS,
		FinishS:             r.FinishS,
		TTFTS:               r.TTFTS,
		E2ES:                r.E2ES,
		InputTokens:         r.InputTokens,
		OutputTokens:        r.OutputTokens,
		OriginalInputTokens: r.OriginalInputTokens,
		EstimatedTokens:     r.EstimatedTokens,
		Preemptions:         r.Preemptions,
		Retries:             r.Retries,
		Compressed:          r.Compressed,
		Warmup:              r.Warmup,
		Rejected:            r.Rejected,
		RejectedReason:      r.RejectedReason,
		RejectedDetail:      r.RejectedDetail,
	}
	// After the assignment above, which clears vals.
	b.QueueWaitS = nullTime(&b.vals[0], r.QueueWaitS)
	b.TPOTS = nullTime(&b.vals[1], r.TPOTS)
	return notPlain(r.AdmitS) || notPlain(r.FirstTokenS) || notPlain(r.FinishS) || notPlain(r.TTFTS) || notPlain(r.E2ES)
}

func (b *encRowExt) set(r *sim.Record) (special bool) {
	special = b.encRow.set(r)
	e := &r.Ext
	b.ExtCols = ExtCols{CachedTokens: e.CachedTokens, PrefillInstance: e.PrefillInstance, DecodeInstance: e.DecodeInstance,
		KVTransferS: nullTime(&b.kv, e.KVTransferS)}
	return special
}

// notPlain reports whether x is 0 (either sign), NaN or infinite: a value
// the encoder does not hand to GenericWriter.Write in an optional float64.
func notPlain(x float64) bool {
	return x == 0 || math.IsNaN(x) || math.IsInf(x, 0)
}

// encoder writes batches of records to a parquet-go GenericWriter of B
// (encRow or encRowExt), each run of consecutive chunkRows-row chunks in
// one call, and the chunks that B cannot represent through the writer's
// column writers, one column at a time. Row groups are ended here, every
// RowGroupRows rows.
type encoder[B any] struct {
	w       *parquet.GenericWriter[B]
	cols    []*parquet.ColumnWriter
	bufs    []B
	set     func(*B, *sim.Record) bool
	vals    columnValues
	inGroup int
}

// newEncoder starts a writer of rows B on f with the file's schema (Row's
// or RowExt's: the columns of B, named as the file's).
func newEncoder[B any, PB interface {
	*B
	set(*sim.Record) bool
}](f *atomicFile, info FileInfo, schema *parquet.Schema) *encoder[B] {
	w := parquet.NewGenericWriter[B](f, append(parquetOptions(info), schema)...)
	// GenericWriter.Write sets up the column buffers at its first call,
	// dropping what the column writers already hold: make that call now,
	// with one row, and discard it (Reset leaves an empty file, the column
	// buffers in place).
	if _, err := w.Write(make([]B, 1)); err != nil {
		panic(err) // a zero row of the file's own schema
	}
	w.Reset(f)
	e := &encoder[B]{w: w, cols: w.ColumnWriters(), bufs: make([]B, batchRows),
		set: func(b *B, r *sim.Record) bool { return PB(b).set(r) }}
	e.vals = newColumnValues(len(e.cols), info.Extended)
	var got []string
	for _, path := range w.Schema().Columns() {
		got = append(got, path...)
	}
	if want := e.vals.columns(); !slices.Equal(got, want) {
		panic(fmt.Sprintf("export: requests.parquet columns %v, the encoder fills %v", got, want))
	}
	return e
}

// write encodes recs, in chunks of chunkRows rows counted from the start of
// each row group.
func (e *encoder[B]) write(recs []sim.Record) error {
	for len(recs) > 0 {
		n := min(len(recs), RowGroupRows-e.inGroup)
		if err := e.writeGroup(recs[:n]); err != nil {
			return err
		}
		recs = recs[n:]
		if e.inGroup += n; e.inGroup == RowGroupRows {
			if err := e.w.Flush(); err != nil {
				return err
			}
			e.inGroup = 0
		}
	}
	return nil
}

// writeGroup encodes recs, rows e.inGroup on of the current row group
// (which they do not fill beyond its end). Consecutive plain chunks go to
// GenericWriter.Write in one call, which shreds them chunkRows rows at a
// time from the call's first row: a run therefore starts on a chunk
// boundary, or is the row group's first, partial chunk alone. A chunk with
// a special value goes through the column writers.
func (e *encoder[B]) writeGroup(recs []sim.Record) error {
	if len(e.bufs) < len(recs) {
		e.bufs = make([]B, len(recs))
	}
	run := 0 // recs[run:i] are plain rows not yet written
	for i := 0; i < len(recs); {
		n := min(len(recs)-i, chunkRows-(e.inGroup+i)%chunkRows)
		special := false
		for j := i; j < i+n; j++ {
			if e.set(&e.bufs[j], &recs[j]) {
				special = true
			}
		}
		if special {
			if err := e.writeRun(run, i); err != nil {
				return err
			}
			e.vals.fill(recs[i : i+n])
			for c, cw := range e.cols {
				if _, err := cw.WriteRowValues(e.vals.v[c][:n]); err != nil {
					return err
				}
			}
			run = i + n
		}
		i += n
		if (e.inGroup+run)%chunkRows != 0 {
			// A partial first chunk: shredded on its own.
			if err := e.writeRun(run, i); err != nil {
				return err
			}
			run = i
		}
	}
	return e.writeRun(run, len(recs))
}

// writeRun hands the plain rows e.bufs[i:j] to GenericWriter.Write.
func (e *encoder[B]) writeRun(i, j int) error {
	if i == j {
		return nil
	}
	_, err := e.w.Write(e.bufs[i:j])
	return err
}

func (e *encoder[B]) Close() error { return e.w.Close() }

// columnValues holds one chunk's cells as parquet.Values, per column.
type columnValues struct {
	v   [][]parquet.Value
	ext bool
	// bytes holds the bytes of the strings met, at most maxStrings, so
	// that a repeated string (a pool, category or rejection reason) is
	// copied once, not in every row.
	bytes map[string][]byte
}

// maxStrings bounds columnValues.bytes: past it (strings unique per row),
// the map starts afresh.
const maxStrings = 1024

func newColumnValues(cols int, ext bool) columnValues {
	v := make([][]parquet.Value, cols)
	for i := range v {
		v[i] = make([]parquet.Value, chunkRows)
	}
	return columnValues{v: v, ext: ext, bytes: make(map[string][]byte)}
}

// columns are the column names fill fills, in order.
func (c columnValues) columns() []string {
	if c.ext {
		return append(RowColumns(), extColumns...)
	}
	return rowColumns
}

// fill sets the cells of recs (at most chunkRows rows). A required value
// needs no levels; a NaN or infinite time is NULL.
func (c columnValues) fill(recs []sim.Record) {
	stringValue := c.stringValue
	v := c.v
	for i := range recs {
		r := &recs[i]
		v[0][i] = parquet.Int64Value(r.ID)
		v[1][i] = stringValue(r.Pool)
		v[2][i] = parquet.Int32Value(r.Instance)
		v[3][i] = stringValue(r.Category)
		v[4][i] = parquet.DoubleValue(r.ArrivalS)
		setOptional(&v[5][i], r.AdmitS, 5)
		setOptional(&v[6][i], r.FirstTokenS, 6)
		setOptional(&v[7][i], r.FinishS, 7)
		setOptional(&v[8][i], r.QueueWaitS, 8)
		setOptional(&v[9][i], r.TTFTS, 9)
		setOptional(&v[10][i], r.TPOTS, 10)
		setOptional(&v[11][i], r.E2ES, 11)
		v[12][i] = parquet.Int32Value(r.InputTokens)
		v[13][i] = parquet.Int32Value(r.OutputTokens)
		v[14][i] = parquet.Int32Value(r.OriginalInputTokens)
		v[15][i] = parquet.Int32Value(r.EstimatedTokens)
		v[16][i] = parquet.Int32Value(r.Preemptions)
		v[17][i] = parquet.Int32Value(r.Retries)
		v[18][i] = parquet.BooleanValue(r.Compressed)
		v[19][i] = parquet.BooleanValue(r.Warmup)
		v[20][i] = parquet.BooleanValue(r.Rejected)
		v[21][i] = stringValue(r.RejectedReason)
		v[22][i] = stringValue(r.RejectedDetail)
		if c.ext {
			x := &r.Ext
			v[23][i] = parquet.Int32Value(x.CachedTokens)
			v[24][i] = parquet.Int32Value(x.PrefillInstance)
			v[25][i] = parquet.Int32Value(x.DecodeInstance)
			setOptional(&v[26][i], x.KVTransferS, 26)
		}
	}
}

// setOptional sets *dst to the value of an optional DOUBLE column: NULL for
// a NaN or infinite x.
func setOptional(dst *parquet.Value, x float64, col int) {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		*dst = parquet.Value{}
		return
	}
	*dst = parquet.DoubleValue(x).Level(0, 1, col)
}

// stringValue is the BYTE_ARRAY value of s. Its bytes are a copy (the
// project keeps unsafe out of sim and engine), made once per distinct
// string and never modified, so the value may share them with earlier
// ones; only the column-writer path, taken by chunks with a NULL, zero or
// non-finite time, calls it.
func (c columnValues) stringValue(s string) parquet.Value {
	b, ok := c.bytes[s]
	if !ok {
		if len(c.bytes) == maxStrings {
			clear(c.bytes)
		}
		b = []byte(s)
		c.bytes[s] = b
	}
	return parquet.ByteArrayValue(b)
}
