package export

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/fleetsim/fleetsim/sim"
)

// TestPageWriterFileInfo: the footer's created_by and key-value metadata
// (taken from parquet-go's footer of an empty file, decoded and encoded
// again) are parquet-go's for odd FileInfos: empty, non-UTF-8 and control
// characters in version, keys and values, an empty key and value, a 1 MiB
// value (a scenario), a key equal to MetaVersion, 200 keys; for 0 and 70
// rows and both schemas.
func TestPageWriterFileInfo(t *testing.T) {
	many := map[string]string{}
	for i := range 200 {
		many[fmt.Sprintf("k%03d", i)] = strings.Repeat("v", i)
	}
	infos := []FileInfo{
		{},
		{Version: "v1.2.3"},
		{Version: "\xff\x00 version \n", Meta: map[string]string{"": "", "\xff": "\x00\xff", MetaSeed: "-1"}},
		{Version: strings.Repeat("é", 300), Meta: map[string]string{MetaVersion: "other", MetaScenario: strings.Repeat(`{"a":"\u0000"}`, 80_000)}},
		{Meta: many},
	}
	dir := t.TempDir()
	for i, info := range infos {
		for _, n := range []int{0, 70} {
			for _, ext := range []bool{false, true} {
				info.Extended = ext
				recs := fewRejected(n)
				path := filepath.Join(dir, fmt.Sprintf("i%d-%d-%v.parquet", i, n, ext))
				writeParquetInfo(t, path, info, recs)
				got, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				if want := syncParquetInfo(t, recs, info); !bytes.Equal(got, want) {
					t.Errorf("info %d, %d rows, extended %v: %d bytes, parquet-go's GenericWriter %d", i, n, ext, len(got), len(want))
				}
			}
		}
	}
}

// syncParquetInfo writes recs with parquet-go's GenericWriter of Row (RowExt)
// and the options of info, as the sink did before the page writer.
func syncParquetInfo(t *testing.T, recs []sim.Record, info FileInfo) []byte {
	if info.Extended {
		return syncGeneric(t, recs, parquetOptions(info), func(b *extRowBuf) RowExt { return RowExt{b.Row, b.ExtCols} })
	}
	return syncGeneric(t, recs, parquetOptions(info), func(b *extRowBuf) Row { return b.Row })
}

// syncGeneric writes recs with parquet-go's GenericWriter[R] and opts, in
// one call.
func syncGeneric[R any](t *testing.T, recs []sim.Record, opts []parquet.WriterOption, row func(*extRowBuf) R) []byte {
	var out bytes.Buffer
	w := parquet.NewGenericWriter[R](&out, opts...)
	bufs := make([]extRowBuf, len(recs))
	rows := make([]R, len(recs))
	for i := range recs {
		bufs[i].set(&recs[i])
		rows[i] = row(&bufs[i])
	}
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}
