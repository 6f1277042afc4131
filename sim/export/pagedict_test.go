package export

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/fleetsim/fleetsim/sim"
)

// TestPageWriterDictionaryLimit: parquet-go's ColumnWriter checks a string
// column's dictionary when it ends a page, and past the limit (1 GiB; here
// lowered to 1,000 bytes on both sides, parquet.DictionaryMaxBytes) writes
// the row group's LATER pages PLAIN. When the dictionary passes the limit
// only in a row group's last page, no later page exists and parquet-go's
// file is the ordinary one: the page writer writes the same bytes. When a
// page follows, the page writer refuses the file (it does not write PLAIN
// pages), and only then.
func TestPageWriterDictionaryLimit(t *testing.T) {
	defer func(m int64) { maxDictBytes = m }(maxDictBytes)
	maxDictBytes = 1000
	unique := func(n int) []sim.Record {
		recs := fewRejected(n)
		for i := range recs {
			recs[i].RejectedDetail = fmt.Sprintf("%06d%s", i, strings.Repeat("d", 30))
		}
		return recs
	}
	dir := t.TempDir()
	// One page per row group: the dictionary passes 1,000 bytes in it.
	// Then a full row group whose dictionary passes the limit by row
	// 64,256, where the string columns' first page ends: a page follows.
	for _, c := range []struct {
		name   string
		recs   []sim.Record
		refuse bool
	}{
		{"last-page", unique(3000), false},
		{"later-page", unique(RowGroupRows), true},
	} {
		// The limit matters to parquet-go only when a page follows.
		limited, plain := syncParquetLimit(t, c.recs, maxDictBytes), syncParquetOf(t, c.recs, false)
		if bytes.Equal(limited, plain) == c.refuse {
			t.Fatalf("%s: parquet-go's file with the limit equal to the one without: %v", c.name, !c.refuse)
		}
		path := filepath.Join(dir, c.name+".parquet")
		s, err := NewParquetSink(path)
		if err != nil {
			t.Fatal(err)
		}
		var werr error
		for i := range c.recs {
			if werr = s.Write(&c.recs[i]); werr != nil {
				break
			}
		}
		cerr := s.Close()
		if c.refuse {
			if cerr == nil || !strings.Contains(cerr.Error(), "distinct strings") {
				t.Errorf("%s: Close returned %v (Write: %v), want the page writer's refusal", c.name, cerr, werr)
			}
			if _, err := os.Stat(path); err == nil {
				t.Errorf("%s: a refused file was left at its path", c.name)
			}
			continue
		}
		if cerr != nil {
			t.Errorf("%s: %v (Write: %v); parquet-go writes this file", c.name, cerr, werr)
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if want := limited; !bytes.Equal(got, want) {
			t.Errorf("%s: %d bytes, parquet-go's GenericWriter (DictionaryMaxBytes %d) %d", c.name, len(got), maxDictBytes, len(want))
		}
	}
}

// syncParquetLimit is syncParquetOf (schema Row) with parquet-go's
// dictionary limit set to limit bytes.
func syncParquetLimit(t *testing.T, recs []sim.Record, limit int64) []byte {
	opts := append(parquetOptions(FileInfo{}), parquet.DictionaryMaxBytes(limit))
	return syncGeneric(t, recs, opts, func(b *extRowBuf) Row { return b.Row })
}

// TestPageWriterStringsByPointer: the page writer remembers the strings a
// page looked up last (pageColumn.known, compared by value); strings that share a
// data pointer but not a length (prefixes of one string), equal strings at
// different pointers, empty strings with and without a pointer, and more
// distinct strings in turn than it remembers (strKeys), across pages
// and row groups, give the bytes of parquet-go's writer.
func TestPageWriterStringsByPointer(t *testing.T) {
	base := strings.Repeat("pool-category-", 4)
	var prefixes []string
	for n := range 12 {
		prefixes = append(prefixes, base[:n]) // n = 0: empty, with a pointer
	}
	copies := []string{strings.Clone("short"), strings.Clone("short"), "short", string([]byte("short"))}
	recs := testRecords(RowGroupRows + 3000)
	rng := rand.New(rand.NewPCG(7, 7))
	for i := range recs {
		r := &recs[i]
		switch i / 5000 % 3 {
		case 0:
			r.Pool, r.Category = prefixes[rng.IntN(len(prefixes))], prefixes[i%len(prefixes)]
		case 1:
			r.Pool, r.Category = copies[rng.IntN(len(copies))], prefixes[rng.IntN(2)]
		}
		r.RejectedReason = prefixes[rng.IntN(3)]
		if rng.IntN(2) == 0 {
			r.RejectedDetail = ""
		} else {
			r.RejectedDetail = base[:0]
		}
	}
	for _, ext := range []bool{false, true} {
		path := filepath.Join(t.TempDir(), "r.parquet")
		writeParquetInfo(t, path, FileInfo{Extended: ext}, recs)
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if want := syncParquetOf(t, recs, ext); !bytes.Equal(got, want) {
			t.Errorf("extended %v: %d bytes, parquet-go's writer %d", ext, len(got), len(want))
		}
	}
}
