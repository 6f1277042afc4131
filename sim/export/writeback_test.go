package export

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestAtomicFileStartsWriteback checks that an atomicFile asks for the
// writeback of every writebackChunk bytes as they are written, in
// contiguous ranges from the file's start, and that the bytes committed are
// the bytes written.
func TestAtomicFileStartsWriteback(t *testing.T) {
	type rng struct{ off, n int64 }
	var got []rng
	old := startWriteback
	startWriteback = func(f *os.File, off, n int64) {
		got = append(got, rng{off, n})
		old(f, off, n) // the real call too: it must not disturb the file
	}
	defer func() { startWriteback = old }()

	path := filepath.Join(t.TempDir(), "big.bin")
	a, err := createAtomic(path)
	if err != nil {
		t.Fatal(err)
	}
	// 2.5 chunks in pieces of a prime size, so that no piece ends on a
	// chunk boundary.
	const piece = 1_000_003
	total := writebackChunk*5/2 + 17
	want := make([]byte, total)
	for i := range want {
		want[i] = byte(i * 7)
	}
	for off := 0; off < total; off += piece {
		if _, err := a.Write(want[off:min(off+piece, total)]); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.Commit(); err != nil {
		t.Fatal(err)
	}
	// Hand computation: the first range ends at the first piece boundary
	// at or past 8 MiB (9 pieces = 9,000,027 bytes >= 8,388,608), the
	// second at the first boundary 8 MiB past that (18 pieces).
	wantR := []rng{{0, 9 * piece}, {9 * piece, 9 * piece}}
	if len(got) != len(wantR) || got[0] != wantR[0] || got[1] != wantR[1] {
		t.Errorf("writeback ranges %v, want %v", got, wantR)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b, want) {
		t.Errorf("committed %d bytes differ from the %d written", len(b), len(want))
	}
}

// TestParquetSinkWritesThroughAtomicFile checks that requests.parquet's
// bytes go through atomicFile.Write (and so are written back early): a
// writer that bypassed it (a promoted *os.File method) would start none.
func TestParquetSinkWritesThroughAtomicFile(t *testing.T) {
	var written int64
	old := startWriteback
	startWriteback = func(f *os.File, off, n int64) { written += n }
	defer func() { startWriteback = old }()
	path := filepath.Join(t.TempDir(), "requests.parquet")
	s, err := NewParquetSink(path)
	if err != nil {
		t.Fatal(err)
	}
	recs := testRecords(300_000)
	for i := range recs {
		if err := s.Write(&recs[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	// Read after Close, which waits for the encoder goroutine.
	if fi.Size() <= writebackChunk {
		t.Fatalf("file of %d bytes: too small for the test", fi.Size())
	}
	if written < fi.Size()-writebackChunk || written > fi.Size() {
		t.Errorf("writeback started for %d bytes of a %d-byte file", written, fi.Size())
	}
}
