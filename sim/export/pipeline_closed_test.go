package export

import (
	"path/filepath"
	"testing"
)

// TestParquetWriteAfterClose: a Write after Close (or Abort) is refused
// with an error instead of reaching the encoder's closed queue (which
// panicked with "send on closed channel" once a batch filled up), and the
// closed file is left as it was.
func TestParquetWriteAfterClose(t *testing.T) {
	for _, abort := range []bool{false, true} {
		dir := t.TempDir()
		path := filepath.Join(dir, "r.parquet")
		s, err := NewParquetSink(path)
		if err != nil {
			t.Fatal(err)
		}
		recs := testRecords(3 * batchRows)
		for i := range batchRows {
			if err := s.Write(&recs[i]); err != nil {
				t.Fatal(err)
			}
		}
		if abort {
			s.Abort()
		} else if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		var werr error
		for i := batchRows; i < len(recs) && werr == nil; i++ {
			werr = s.Write(&recs[i])
		}
		if werr == nil {
			t.Errorf("abort %v: Write after the end succeeded", abort)
		}
		if !abort {
			got, err := ReadParquet(path)
			if err != nil || len(got) != batchRows {
				t.Errorf("closed file: %d rows, %v; want %d", len(got), err, batchRows)
			}
		}
	}
}
