package export

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/fleetsim/fleetsim/sim"
)

// TestParquetEncoderAdversarial: on record streams built to hit the page
// writer's seams, requests.parquet is byte-identical to parquet-go's
// synchronous writer of Row (RowExt) structs through pointers (syncParquet),
// for both schemas. The special values (+0, −0, NaN, ±Inf, the smallest
// subnormal, ±MaxFloat64) go into each of the seven nullable times (NaN and
// ±Inf are NULL there) and into arrival_s (a required column, where they
// are values), at rows 0, 63, 64, 1,023, 1,024 and the last row, and at a
// row group's last and first rows; into kv_transfer_s (RowExt). Further
// streams: a zero in every row, a zero in every other chunk, runs of NULLs
// around runs of served rows, no completed request, 1 row (served, with a
// zero, rejected), 0 rows, exactly one row group and one row more, strings
// unique per row (a dictionary of 65,536 entries, min/max past the column
// index's 16-byte limit), 13 pools and categories (empty, 0xff bytes, long
// UTF-8: more entries than smallDict, truncated bounds), the int32 and int64
// extremes, and booleans all true or all false in a row group.
func TestParquetEncoderAdversarial(t *testing.T) {
	specials := []float64{0, math.Copysign(0, -1), math.NaN(), math.Inf(1), math.Inf(-1),
		math.SmallestNonzeroFloat64, math.MaxFloat64, -math.MaxFloat64}
	cols := []func(*sim.Record) *float64{
		func(r *sim.Record) *float64 { return &r.AdmitS },
		func(r *sim.Record) *float64 { return &r.FirstTokenS },
		func(r *sim.Record) *float64 { return &r.FinishS },
		func(r *sim.Record) *float64 { return &r.QueueWaitS },
		func(r *sim.Record) *float64 { return &r.TTFTS },
		func(r *sim.Record) *float64 { return &r.TPOTS },
		func(r *sim.Record) *float64 { return &r.E2ES },
		func(r *sim.Record) *float64 { return &r.ArrivalS },
	}
	type stream struct {
		name string
		recs []sim.Record
		ext  func(recs []sim.Record) // further RowExt values, after the default ones
	}
	var streams []stream
	for si, x := range specials {
		for ci, col := range cols {
			recs := fewRejected(3000)
			for _, i := range []int{0, 63, 64, 1023, 1024, len(recs) - 1} {
				*col(&recs[i]) = x
			}
			streams = append(streams, stream{name: fmt.Sprintf("special%d-col%d", si, ci), recs: recs})
		}
		// A row group's last and first rows, in all columns at once (a
		// file of 65,536 rows costs more than the columns one by one).
		recs := fewRejected(RowGroupRows + 100)
		for _, col := range cols {
			*col(&recs[RowGroupRows-1]), *col(&recs[RowGroupRows]) = x, x
		}
		streams = append(streams, stream{name: fmt.Sprintf("special%d-row-group-end", si), recs: recs,
			ext: func(recs []sim.Record) {
				for _, i := range []int{0, 63, 64, 1023, RowGroupRows - 1, RowGroupRows, len(recs) - 1} {
					recs[i].Ext.KVTransferS = x
				}
			}})
	}
	strs := []string{"", "short", "long", "\xff", "\xff\xfe\x00", strings.Repeat("\xff", 40),
		strings.Repeat("日本語", 10), "zz" + strings.Repeat("a", 30), "a", "A", "\x00", "b", "c"}
	many := fewRejected(RowGroupRows + 2000)
	for i := range many {
		r := &many[i]
		r.Pool, r.Category = strs[i%len(strs)], strs[(i/7)%len(strs)]
		if r.Rejected {
			r.RejectedReason = strs[(i/3)%len(strs)]
		}
	}
	streams = append(streams, stream{name: "strings", recs: many})
	ints := fewRejected(RowGroupRows + 500)
	for _, i := range []int{0, 64, 5000, RowGroupRows - 1, RowGroupRows + 1} {
		r := &ints[i]
		r.ID, r.Instance, r.InputTokens, r.OutputTokens = math.MinInt64, math.MinInt32, math.MaxInt32, math.MinInt32
		r.OriginalInputTokens, r.EstimatedTokens, r.Preemptions, r.Retries = -1, math.MaxInt32, math.MinInt32, -7
		ints[i+1].ID = math.MaxInt64
	}
	for i := range ints {
		ints[i].Compressed, ints[i].Warmup = true, false
	}
	streams = append(streams, stream{name: "int-extremes-bools", recs: ints, ext: func(recs []sim.Record) {
		recs[3].Ext.CachedTokens, recs[4].Ext.PrefillInstance, recs[5].Ext.DecodeInstance = math.MinInt32, math.MaxInt32, -1
	}})
	all0 := fewRejected(2*RowGroupRows + 3)
	for i := range all0 {
		all0[i].ArrivalS, all0[i].AdmitS = 0, 0 // every arrival at t=0, admitted at once
	}
	streams = append(streams, stream{name: "all-zero", recs: all0})
	alt := fewRejected(RowGroupRows + 700)
	for i := 0; i < len(alt); i += 2 * chunkRows {
		alt[i+i/(2*chunkRows)%chunkRows].E2ES = 0
	}
	streams = append(streams, stream{name: "alternating-chunks", recs: alt})
	rej := testRecords(3000)
	for i := range rej {
		r := &rej[i]
		r.Rejected, r.RejectedReason = true, "too long"
		r.AdmitS, r.FirstTokenS, r.FinishS = math.NaN(), math.NaN(), math.NaN()
		r.QueueWaitS, r.TTFTS, r.TPOTS, r.E2ES = math.NaN(), math.NaN(), math.NaN(), math.NaN()
	}
	streams = append(streams, stream{name: "none-completed", recs: rej})
	// NULL runs: in chunk k, rows [0, y) and [2y, 64) rejected (NULL
	// times), [y, 2y) served, y = 1 + k%32. parquet-go v0.32.0's optional
	// float64 shredding writes rows [2y, 64) of such a chunk as 0, not NULL
	// (found with --queue-limit 1 on an overloaded pool).
	nullRuns := testRecords(40 * chunkRows)
	for i := range nullRuns {
		r := &nullRuns[i]
		y, k := 1+i/chunkRows%32, i%chunkRows
		if k < y || k >= 2*y {
			r.Rejected, r.RejectedReason = true, "queue_full"
			r.AdmitS, r.FirstTokenS, r.FinishS = math.NaN(), math.NaN(), math.NaN()
			r.QueueWaitS, r.TTFTS, r.TPOTS, r.E2ES = math.NaN(), math.NaN(), math.NaN(), math.NaN()
		} else if r.Rejected, r.RejectedReason = false, ""; math.IsNaN(r.AdmitS) {
			r.AdmitS, r.FirstTokenS, r.FinishS, r.TTFTS, r.E2ES = 1, 2, 3, 4, 5
		}
	}
	streams = append(streams, stream{name: "null-runs", recs: nullRuns})
	one := fewRejected(1)
	one0 := fewRejected(2)[1:]
	one0[0].FinishS = 0
	streams = append(streams, stream{name: "one", recs: one}, stream{name: "one-zero", recs: one0},
		stream{name: "one-rejected", recs: testRecords(1)}, stream{name: "empty"},
		stream{name: "row-group", recs: fewRejected(RowGroupRows)}, stream{name: "row-group+1", recs: fewRejected(RowGroupRows + 1)})
	uniq := fewRejected(RowGroupRows + 300)
	for i := range uniq {
		uniq[i].RejectedDetail = fmt.Sprintf("%d %s", i, strings.Repeat("x", 40))
		if i%500 == 0 {
			uniq[i].TTFTS = 0
		}
	}
	streams = append(streams, stream{name: "unique-strings", recs: uniq})

	dir := t.TempDir()
	for _, s := range streams {
		for _, ext := range []bool{false, true} {
			for i := range s.recs {
				if e := &s.recs[i].Ext; ext {
					e.CachedTokens, e.PrefillInstance, e.DecodeInstance = int32(i%31), int32(i%3), int32(i%4)
					e.KVTransferS = float64(i%5) * 0.001
				}
			}
			if ext && s.ext != nil {
				s.ext(s.recs)
			}
			path := filepath.Join(dir, fmt.Sprintf("%s-%v.parquet", s.name, ext))
			writeParquetInfo(t, path, FileInfo{Extended: ext}, s.recs)
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			want := syncParquetOf(t, s.recs, ext)
			if !bytes.Equal(got, want) {
				t.Errorf("%s, extended %v: %d bytes, the synchronous writer %d", s.name, ext, len(got), len(want))
			}
		}
	}
}

// fewRejected returns testRecords(n) with the rejected requests (every 7th,
// NULL times) kept only in every 8th 64-row chunk and served elsewhere, as
// in a run that rejects now and then.
func fewRejected(n int) []sim.Record {
	return rejectedIn(n, func(i int) bool { return i/chunkRows%8 == 3 })
}

// rejectedIn returns testRecords(n) with the rejected requests kept only at
// the rows i where keep(i), served elsewhere.
func rejectedIn(n int, keep func(i int) bool) []sim.Record {
	recs := testRecords(n)
	for i := range recs {
		if r := &recs[i]; r.Rejected && !keep(i) {
			r.Rejected, r.RejectedReason, r.Instance = false, "", int32(i%40)
			r.AdmitS, r.QueueWaitS = r.ArrivalS+0.004, 0.004
			r.FirstTokenS, r.TTFTS = r.ArrivalS+0.03, 0.03
			r.FinishS, r.TPOTS = r.FirstTokenS+0.5, 0.02
			r.E2ES = r.FinishS - r.ArrivalS
		}
	}
	return recs
}

// TestEncoderIrregularWrites: the page writer handed slices of any length
// (1, 63, 64, 65, 100, 1,024, 7, 2,000 rows in turn, so that a call starts
// and ends anywhere within a 64-row chunk and crosses a row group's end)
// writes the same bytes as parquet-go's synchronous writer, which sees
// 1,024-row calls: pages end only after chunks counted from the row group's
// start, whatever the calls. Rejections in some chunks, for both schemas.
func TestEncoderIrregularWrites(t *testing.T) {
	recs := rejectedIn(RowGroupRows+5000, func(i int) bool { return i%chunkRows == 5 && i/chunkRows%5 == 2 })
	for i := 0; i < len(recs); i += 997 {
		recs[i].FinishS = 0
	}
	for i := range recs {
		e := &recs[i].Ext
		e.CachedTokens, e.PrefillInstance, e.DecodeInstance = int32(i%31), int32(i%3), int32(i%4)
		e.KVTransferS = float64(i%5) * 0.001
	}
	sizes := []int{1, 63, 64, 65, 100, 1024, 7, 2000}
	for _, ext := range []bool{false, true} {
		path := filepath.Join(t.TempDir(), "r.parquet")
		k := 0
		writeInCalls(t, path, FileInfo{Extended: ext}, recs, func() int { k++; return sizes[(k-1)%len(sizes)] })
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		want := syncParquetOf(t, recs, ext)
		if !bytes.Equal(got, want) {
			t.Errorf("extended %v: %d bytes, the synchronous writer %d", ext, len(got), len(want))
		}
	}
}

// TestColKindFits: the page writer refuses a schema whose column is not
// stored as it writes it (type, optional or required, encoding), so a change
// of Row that the page writer does not follow fails at its start instead of
// writing another file than parquet-go would.
func TestColKindFits(t *testing.T) {
	split := func(n parquet.Node) parquet.Node { return parquet.Encoded(n, &parquet.ByteStreamSplit) }
	dict := func(n parquet.Node) parquet.Node { return parquet.Encoded(n, &parquet.RLEDictionary) }
	for _, c := range []struct {
		kind colKind
		node parquet.Node
		want bool
	}{
		{colInt64, parquet.Leaf(parquet.Int64Type), true},
		{colInt64, parquet.Leaf(parquet.Int32Type), false},
		{colInt64, parquet.Optional(parquet.Leaf(parquet.Int64Type)), false},
		{colInt32, parquet.Leaf(parquet.Int32Type), true},
		{colInt32, split(parquet.Leaf(parquet.Int32Type)), false},
		{colBool, parquet.Leaf(parquet.BooleanType), true},
		{colDouble, split(parquet.Leaf(parquet.DoubleType)), true},
		{colDouble, parquet.Leaf(parquet.DoubleType), false},
		{colDouble, parquet.Optional(split(parquet.Leaf(parquet.DoubleType))), false},
		{colOptional, parquet.Optional(split(parquet.Leaf(parquet.DoubleType))), true},
		{colOptional, split(parquet.Leaf(parquet.DoubleType)), false},
		{colDict, dict(parquet.String()), true},
		{colDict, parquet.String(), false},
		{colDict, parquet.Optional(dict(parquet.String())), false},
		{colDict, parquet.Repeated(dict(parquet.String())), false},
	} {
		if got := c.kind.fits(c.node); got != c.want {
			t.Errorf("kind %d, node %v: fits %v, want %v", c.kind, c.node, got, c.want)
		}
	}
}
