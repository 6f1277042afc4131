package export

import (
	"bufio"
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/fleetsim/fleetsim/sim"
)

// shiftingRecords is a stream whose row groups change shape: calm ones
// (every request rejected, so the optional columns are all NULL and hold
// fewer pages; constant ids and ints that compress to a few bytes) and wild
// ones (no NULL, random ids that do not compress at all, so that a page of
// them compressed is larger than the page itself, many unique strings):
// calm, wild, calm, then a partial wild one with NULL runs. Each
// column's pages at the same position in the row group are then by turns
// far smaller and larger than the previous row group's, and some row
// groups have fewer pages than the one before.
func shiftingRecords() []sim.Record {
	calm := func(seed uint64) []sim.Record {
		s := &randStream{rng: rand.New(rand.NewPCG(seed, 1)), reject: 20, zero: 1, boolMode: 1, strs: []string{"a"}}
		recs := s.records(RowGroupRows)
		for i := range recs {
			recs[i].ID, recs[i].Instance = 7, 0
		}
		return recs
	}
	wild := func(seed uint64, n int) []sim.Record {
		s := &randStream{rng: rand.New(rand.NewPCG(seed, 2)), special: 0.3, unique: 0.2, intExtr: 0.2,
			strs: []string{"b"}}
		recs := s.records(n)
		for i := range recs {
			recs[i].ID = int64(s.rng.Uint64())
		}
		return recs
	}
	var recs []sim.Record
	recs = append(recs, calm(1)...)
	recs = append(recs, wild(2, RowGroupRows)...)
	recs = append(recs, calm(3)...)
	last := wild(4, RowGroupRows/2+17)
	for i := 1000; i < len(last); i += 3000 { // NULL runs
		for k := i; k < i+800; k++ {
			r := &last[k]
			r.Rejected = true
			r.AdmitS, r.FirstTokenS, r.FinishS, r.QueueWaitS = math.NaN(), math.NaN(), math.NaN(), math.NaN()
			r.TTFTS, r.TPOTS, r.E2ES = math.NaN(), math.NaN(), math.NaN()
		}
	}
	return append(recs, last...)
}

// TestPageWriterShiftingRowGroups: a file whose row groups change shape
// (shiftingRecords), so that the page writer's pages, whose storage is
// kept from row group to row group, are compressed into storage that held
// a much smaller or much larger page of the row group before (and some not
// written at all), has parquet-go's GenericWriter's bytes, through the sink
// and through the page writer in random call sizes. The file's page index
// shows the shapes are there: the id column's first page is over 64 KiB
// compressed in the wild row groups and a few hundred bytes in the calm
// ones, and admit_s has fewer pages in the calm row groups.
func TestPageWriterShiftingRowGroups(t *testing.T) {
	if testing.Short() {
		t.Skip("about 230,000 rows, written three times")
	}
	recs := shiftingRecords()
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(9, 9))
	want := syncParquetOf(t, recs, false)
	checkShifts(t, want)
	sink := filepath.Join(dir, "sink.parquet")
	writeParquetInfo(t, sink, FileInfo{}, recs)
	calls := filepath.Join(dir, "calls.parquet")
	writeInCalls(t, calls, FileInfo{}, recs, func() int { return rng.IntN(5000) })
	for _, path := range []string{sink, calls} {
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: %d bytes, parquet-go's GenericWriter %d", filepath.Base(path), len(got), len(want))
		}
	}
}

// checkShifts checks the shapes TestPageWriterShiftingRowGroups claims, in
// parquet-go's file (the same bytes).
func checkShifts(t *testing.T, file []byte) {
	t.Helper()
	f, err := parquet.OpenFile(bytes.NewReader(file), int64(len(file)))
	if err != nil {
		t.Fatal(err)
	}
	rgs := f.RowGroups()
	if len(rgs) != 4 {
		t.Fatalf("%d row groups, want 4", len(rgs))
	}
	idPage := make([]int32, len(rgs)) // compressed size of column id's first page
	admitPage := make([]int32, len(rgs))
	admitPages := make([]int, len(rgs))
	for i, rg := range rgs {
		ids, err := rg.ColumnChunks()[0].OffsetIndex()
		if err != nil {
			t.Fatal(err)
		}
		idPage[i] = int32(ids.CompressedPageSize(0))
		admit, err := rg.ColumnChunks()[5].OffsetIndex()
		if err != nil {
			t.Fatal(err)
		}
		admitPage[i] = int32(admit.CompressedPageSize(0))
		admitPages[i] = admit.NumPages()
	}
	t.Logf("first page compressed, id: %v bytes, admit_s: %v bytes; admit_s's pages: %v", idPage, admitPage, admitPages)
	for _, i := range []int{1, 3} { // wild after calm
		// pageRows(8) ids, compressed with their headers, over their bytes
		if idPage[i] <= int32(8*pageRows(8)) || idPage[i] < 100*idPage[i-1] {
			t.Errorf("row group %d (wild): id's first page is %d bytes compressed, the calm one before %d", i, idPage[i], idPage[i-1])
		}
		if admitPage[i] <= 64<<10 || admitPage[i] < 100*admitPage[i-1] {
			t.Errorf("row group %d (wild): admit_s's first page is %d bytes compressed, the calm one before %d", i, admitPage[i], admitPage[i-1])
		}
	}
	if idPage[2] > idPage[1]/100 {
		t.Errorf("row group 2 (calm): id's first page is %d bytes compressed, the wild one before %d", idPage[2], idPage[1])
	}
	if admitPages[1] <= admitPages[0] || admitPages[2] >= admitPages[1] {
		t.Errorf("admit_s's pages by row group (calm, wild, calm): %v, want more in the wild one", admitPages[:3])
	}
}

// TestPageWriterShiftingWriteErrors: a disk that fills in the middle of a
// later row group of shiftingRecords (whose pages were compressed into the
// storage of the row group before) gives parquet-go's error, and through
// the sink it fails Write or Close with it and leaves nothing behind.
func TestPageWriterShiftingWriteErrors(t *testing.T) {
	if testing.Short() {
		t.Skip("about 230,000 rows, written six times")
	}
	recs := shiftingRecords()
	want := syncParquetOf(t, recs, false)
	pf, err := parquet.OpenFile(bytes.NewReader(want), int64(len(want)))
	if err != nil {
		t.Fatal(err)
	}
	var rooms []int
	for _, rg := range pf.Metadata().RowGroups[2:] { // a calm row group after a wild one, and the reverse
		rooms = append(rooms, int(rg.FileOffset+rg.TotalCompressedSize/2))
	}
	dir := t.TempDir()
	f, err := createAtomic(filepath.Join(dir, "w.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	checkWriteError(t, f, recs, len(want), rooms)
	f.Abort()

	s, err := NewParquetSink(filepath.Join(dir, "r.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	pw := s.w.(*pageWriter)
	pw.out = bufio.NewWriterSize(&fullWriter{room: rooms[0]}, parquet.DefaultWriteBufferSize)
	var werr error
	for i := range recs {
		if werr = s.Write(&recs[i]); werr != nil {
			break
		}
	}
	if cerr := s.Close(); !errors.Is(cerr, errDiskFull) || (werr != nil && !errors.Is(werr, errDiskFull)) {
		t.Errorf("the sink's Write returned %v, Close %v, want %v", werr, cerr, errDiskFull)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("after a full disk the directory holds %v", entries)
	}
}
