package export

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fleetsim/fleetsim/sim"
)

// failingRows is a rowWriter whose batches fail from the left+1-th on.
type failingRows struct {
	rowWriter
	left int
}

func (w *failingRows) write(recs []sim.Record) error {
	if w.left == 0 {
		return errors.New("disk full")
	}
	w.left--
	return w.rowWriter.write(recs)
}

// TestParquetSlotLikeWrite: records built in the rows ParquetSink lends
// (Slot, WriteSlot) give the file Write gives, byte for byte; when the
// encoder fails mid-run (its first or third batch; the test waits for it
// to fail before the next batch fills), the calls return nil until that
// batch's last record, then Write's error at every call, Slot still lends
// storage (after the failure, and after Close), and Close fails alike.
func TestParquetSlotLikeWrite(t *testing.T) {
	recs := testRecords(10*batchRows + 17)
	stale := testRecords(1)[0]
	stale.Pool, stale.RejectedDetail, stale.Rejected = "stale", "stale", true
	dir := t.TempDir()
	type outcome struct {
		err   string // the calls' error once the failure shows
		close string
		file  []byte
	}
	run := func(slots bool, failAfter int) outcome {
		path := filepath.Join(dir, fmt.Sprintf("r-%v-%d.parquet", slots, failAfter))
		s, err := NewParquetSink(path)
		if err != nil {
			t.Fatal(err)
		}
		if failAfter >= 0 { // before the first batch is sent: the encoder reads w after it
			s.w = &failingRows{rowWriter: s.w, left: failAfter}
		}
		var o outcome
		for i := range recs {
			if failAfter >= 0 && i == (failAfter+1)*batchRows {
				for deadline := time.Now().Add(time.Minute); !s.failed.Load(); time.Sleep(time.Millisecond) {
					if time.Now().After(deadline) {
						t.Fatal("the encoder did not fail")
					}
				}
			}
			if slots {
				r := s.Slot()
				*r = stale // storage a caller overwrites field by field
				*r = recs[i]
				err = s.WriteSlot()
			} else {
				err = s.Write(&recs[i])
			}
			e := strings.ReplaceAll(fmt.Sprint(err), path, "PATH")
			if o.err == "" && err != nil {
				o.err = e
				if i != (failAfter+2)*batchRows-1 {
					t.Errorf("slots %v, fail after %d batches: the first error at record %d", slots, failAfter, i)
				}
			}
			if o.err != "" && e != o.err {
				t.Fatalf("slots %v, fail after %d batches: record %d: %s, after %s", slots, failAfter, i, e, o.err)
			}
		}
		o.close = strings.ReplaceAll(fmt.Sprint(s.Close()), path, "PATH")
		if r := s.Slot(); r == nil {
			t.Errorf("slots %v: Slot after Close lent no storage", slots)
		}
		if err := s.WriteSlot(); err == nil {
			t.Errorf("slots %v: WriteSlot after Close succeeded", slots)
		}
		o.file, _ = os.ReadFile(path)
		return o
	}
	for _, failAfter := range []int{-1, 0, 2} {
		want, got := run(false, failAfter), run(true, failAfter)
		if !bytes.Equal(got.file, want.file) || (failAfter < 0) != (len(want.file) > 0) {
			t.Errorf("fail after %d batches: through Slot %d bytes, through Write %d", failAfter, len(got.file), len(want.file))
		}
		if got.close != want.close || (failAfter < 0) != (want.close == "<nil>") {
			t.Errorf("fail after %d batches: Close returned %s through Slot, %s through Write", failAfter, got.close, want.close)
		}
		if got.err != want.err || (failAfter >= 0) != (want.err != "") {
			t.Errorf("fail after %d batches: the calls' error %q through Slot, %q through Write", failAfter, got.err, want.err)
		}
	}
}
