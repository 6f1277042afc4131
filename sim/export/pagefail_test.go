package export

import (
	"bufio"
	"errors"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/fleetsim/fleetsim/sim"
)

// fullWriter takes the first room bytes written to it, then fails as a
// full disk does (a short write and an error).
type fullWriter struct{ room int }

var errDiskFull = errors.New("no space left on device")

func (w *fullWriter) Write(p []byte) (int, error) {
	if len(p) <= w.room {
		w.room -= len(p)
		return len(p), nil
	}
	n := w.room
	w.room = 0
	return n, errDiskFull
}

// TestPageWriterWriteErrors: when the file stops taking bytes (a full
// disk) anywhere in it (the header, a dictionary page, a column's pages,
// the page index, the footer), the page writer returns the error parquet-go's
// GenericWriter returned for the same rows, with the same wording (which
// the CLI prints).
func TestPageWriterWriteErrors(t *testing.T) {
	f, err := createAtomic(filepath.Join(t.TempDir(), "r.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Abort()
	recs := fewRejected(RowGroupRows + 100)
	size := len(syncParquetOf(t, recs, false))
	rooms := []int{0, 4, 4097, 300_000, size / 2, size - 5000, size - 9, size - 1}
	checkWriteError(t, f, recs, size, rooms)
	// A small file, every 151st byte.
	small := fewRejected(700)
	size = len(syncParquetOf(t, small, false))
	rooms = rooms[:0]
	for room := 0; room < size; room += 151 {
		rooms = append(rooms, room)
	}
	checkWriteError(t, f, small, size, rooms)
}

// checkWriteError compares the page writer's error with parquet-go's writing recs
// (a file of size bytes) to a disk with room bytes, for each of rooms.
func checkWriteError(t *testing.T, f *atomicFile, recs []sim.Record, size int, rooms []int) {
	t.Helper()
	for _, room := range rooms {
		want := genericError(recs, room)
		w, err := newRowWriter(f, FileInfo{})
		if err != nil {
			t.Fatal(err)
		}
		pw := w.(*pageWriter)
		pw.out = bufio.NewWriterSize(&fullWriter{room: room}, parquet.DefaultWriteBufferSize)
		got := pw.write(recs)
		if got == nil {
			got = pw.Close()
		}
		if fmt.Sprint(got) != fmt.Sprint(want) || !errors.Is(got, errDiskFull) {
			t.Errorf("room %d of %d bytes: the page writer returned %v, parquet-go's GenericWriter %v", room, size, got, want)
		}
	}
}

// genericError is the first error parquet-go's GenericWriter of Row returns
// writing recs (1,024-row calls, then Close) to a disk with room bytes.
func genericError(recs []sim.Record, room int) error {
	w := parquet.NewGenericWriter[Row](&fullWriter{room: room}, parquetOptions(FileInfo{})...)
	bufs := make([]rowBuf, batchRows)
	rows := make([]Row, batchRows)
	for i := 0; i < len(recs); i += batchRows {
		n := min(batchRows, len(recs)-i)
		for k := range n {
			bufs[k].set(&recs[i+k])
			rows[k] = bufs[k].Row
		}
		if _, err := w.Write(rows[:n]); err != nil {
			return err
		}
	}
	return w.Close()
}
