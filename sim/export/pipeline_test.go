package export

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/zstd"

	"github.com/fleetsim/fleetsim/sim"
)

// TestParquetPipelineBytes: the sink, which encodes on its own goroutine
// with its own zstd codec, writes exactly the bytes of a synchronous
// parquet-go writer with parquet-go's zstd codec fed Row (RowExt) structs
// in the same 1,024-row calls (the writer before the encoder moved off the
// simulation thread), over several row groups and a partial last batch, for
// both schemas. Exact zeros (+0 and −0) in the times the encoder writes as
// optional float64 send their chunks through the column writers: in the
// first row of the file (before any row went the other way), in a run of
// chunks across page ends, at a row group's last row and in the last chunk.
func TestParquetPipelineBytes(t *testing.T) {
	recs := fewRejected(3*RowGroupRows + 777)
	for i := range recs {
		e := &recs[i].Ext
		e.CachedTokens, e.PrefillInstance, e.DecodeInstance = int32(i%97), int32(i%3), int32(i%5)
		e.KVTransferS = float64(i%13) * 0.0007
		if i%6 == 0 {
			e.KVTransferS = math.NaN()
		}
	}
	negZero := math.Copysign(0, -1)
	recs[0].AdmitS = 0
	for i := 40_000; i < 50_000; i += 7 {
		recs[i].FirstTokenS = 0
	}
	recs[RowGroupRows-1].FinishS = negZero
	recs[2*RowGroupRows+100].TTFTS = 0
	recs[len(recs)-2].E2ES = negZero
	for _, ext := range []bool{false, true} {
		path := filepath.Join(t.TempDir(), "a.parquet")
		writeParquetInfo(t, path, FileInfo{Extended: ext}, recs)
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		want := syncParquetOf(t, recs, ext)
		if !bytes.Equal(got, want) {
			t.Errorf("extended %v: pipelined file (%d bytes) differs from the synchronous one (%d bytes)", ext, len(got), len(want))
		}
	}
}

// rowBuf is extRowBuf for the schema Row.
type rowBuf struct {
	Row
	vals [7]float64
}

func (b *rowBuf) set(r *sim.Record) { setRow(&b.Row, (*[7]float64)(&b.vals), r) }

// syncParquetOf is syncParquet of the schema RowExt when ext, else Row.
func syncParquetOf(t *testing.T, recs []sim.Record, ext bool) []byte {
	if ext {
		return syncParquet(t, recs, func(b *extRowBuf) RowExt { return RowExt{b.Row, b.ExtCols} })
	}
	return syncParquet(t, recs, func(b *rowBuf) Row { return b.Row })
}

// syncParquet writes recs with parquet-go's GenericWriter[R] in 1,024-row
// calls, each row converted by a B buffer (rowBuf or extRowBuf).
func syncParquet[R any, B any, PB interface {
	*B
	set(*sim.Record)
}](t *testing.T, recs []sim.Record, row func(PB) R) []byte {
	var out bytes.Buffer
	w := parquet.NewGenericWriter[R](&out,
		parquet.Compression(&zstd.Codec{Level: zstd.SpeedFastest, Concurrency: 1}),
		parquet.MaxRowsPerRowGroup(RowGroupRows),
		createdBy(Application),
	)
	bufs := make([]B, batchRows)
	rows := make([]R, batchRows)
	for i := 0; i < len(recs); i += batchRows {
		n := min(batchRows, len(recs)-i)
		for k := range n {
			PB(&bufs[k]).set(&recs[i+k])
			rows[k] = row(&bufs[k])
		}
		if _, err := w.Write(rows[:n]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// TestParquetEncoderError: when the encoder cannot write (its file closed
// under it), the error reaches Write or Close, Close fails, and nothing is
// left in the directory; Abort afterwards is harmless.
func TestParquetEncoderError(t *testing.T) {
	dir := t.TempDir()
	s, werr, cerr := writeBroken(t, dir, func(s *ParquetSink) { s.f.File.Close() })
	if cerr == nil {
		t.Fatalf("Close succeeded on a closed file (Write error: %v)", werr)
	}
	s.Abort()
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("after a failed Close the directory holds %v", entries)
	}
}

// writeBroken opens a sink in dir, breaks it, writes two row groups of
// records until Write fails and closes it: the sink, Write's error and
// Close's.
func writeBroken(t *testing.T, dir string, breakIt func(*ParquetSink)) (s *ParquetSink, werr, cerr error) {
	t.Helper()
	s, err := NewParquetSink(filepath.Join(dir, "r.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	breakIt(s)
	recs := fewRejected(2 * RowGroupRows)
	for i := range recs {
		if werr = s.Write(&recs[i]); werr != nil {
			break
		}
	}
	return s, werr, s.Close()
}

// TestParquetAbortMidStream: Abort with batches in flight stops the encoder
// and leaves nothing behind.
func TestParquetAbortMidStream(t *testing.T) {
	dir := t.TempDir()
	s, err := NewParquetSink(filepath.Join(dir, "r.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	recs := testRecords(RowGroupRows + 5000)
	for i := range recs {
		if err := s.Write(&recs[i]); err != nil {
			t.Fatal(err)
		}
	}
	s.Abort()
	<-s.done // the encoder has ended
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("after Abort the directory holds %v", entries)
	}
}

// panicRows is a rowWriter whose write panics at its second batch.
type panicRows struct {
	rowWriter
	n int
}

func (p *panicRows) write(recs []sim.Record) error {
	if p.n++; p.n == 2 {
		panic("boom")
	}
	return p.rowWriter.write(recs)
}

// TestParquetEncoderPanic: a panic on the encoder goroutine (which converts
// the records since issue 20) becomes the sink's error: Write or Close
// returns it, naming the panic, the encoder goroutine ends, nothing is left
// in the directory, and the process is not brought down with the temporary
// file left behind.
func TestParquetEncoderPanic(t *testing.T) {
	dir := t.TempDir()
	// Before the first batch reaches the encoder.
	s, werr, cerr := writeBroken(t, dir, func(s *ParquetSink) { s.w = &panicRows{rowWriter: s.w} })
	if cerr == nil || !strings.Contains(cerr.Error(), "boom") {
		t.Fatalf("Close returned %v (Write: %v), want the encoder's panic", cerr, werr)
	}
	<-s.done
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("after the encoder's panic the directory holds %v", entries)
	}
}
