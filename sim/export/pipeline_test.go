package export

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/zstd"
)

// TestParquetPipelineBytes: the sink, which encodes on its own goroutine,
// writes exactly the bytes of a synchronous writer with the same options
// fed the same rows in the same 1,024-row calls (the writer before the
// encoder moved off the simulation thread), over several row groups and a
// partial last batch.
func TestParquetPipelineBytes(t *testing.T) {
	recs := testRecords(3*RowGroupRows + 777)
	dir := t.TempDir()
	writeParquet(t, filepath.Join(dir, "a.parquet"), recs)
	got, err := os.ReadFile(filepath.Join(dir, "a.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	w := parquet.NewGenericWriter[Row](&want,
		parquet.Compression(&zstd.Codec{Level: zstd.SpeedFastest, Concurrency: 1}),
		parquet.MaxRowsPerRowGroup(RowGroupRows),
		createdBy(Application),
	)
	bufs := make([]rowBuf, batchRows)
	rows := make([]Row, batchRows)
	for i := 0; i < len(recs); i += batchRows {
		n := min(batchRows, len(recs)-i)
		for k := range n {
			bufs[k].set(&recs[i+k])
			rows[k] = bufs[k].Row
		}
		if _, err := w.Write(rows[:n]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Errorf("pipelined file (%d bytes) differs from the synchronous one (%d bytes)", len(got), want.Len())
	}
}

// TestParquetEncoderError: when the encoder cannot write (its file closed
// under it), the error reaches Write or Close, Close fails, and nothing is
// left in the directory; Abort afterwards is harmless.
func TestParquetEncoderError(t *testing.T) {
	dir := t.TempDir()
	s, err := NewParquetSink(filepath.Join(dir, "r.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	s.f.File.Close()
	recs := testRecords(2 * RowGroupRows)
	var werr error
	for i := range recs {
		if werr = s.Write(&recs[i]); werr != nil {
			break
		}
	}
	cerr := s.Close()
	if cerr == nil {
		t.Fatalf("Close succeeded on a closed file (Write error: %v)", werr)
	}
	s.Abort()
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("after a failed Close the directory holds %v", entries)
	}
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
