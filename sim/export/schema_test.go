package export

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/fleetsim/fleetsim/sim"
)

// TestRowMirrorsRecord: the Parquet row has exactly the columns of
// sim.Record, in the same order, and ExtCols those of its Ext
// (sim.RecordExt), so a field added to the record cannot be silently left
// out of requests.parquet.
func TestRowMirrorsRecord(t *testing.T) {
	name := func(f reflect.StructField) string { return strings.Split(f.Tag.Get("parquet"), ",")[0] }
	for _, c := range []struct {
		rec, row reflect.Type
		skip     int // the record's trailing fields that are not columns (Ext)
	}{{reflect.TypeFor[sim.Record](), reflect.TypeFor[Row](), 1}, {reflect.TypeFor[sim.RecordExt](), reflect.TypeFor[ExtCols](), 0}} {
		rec, row := c.rec, c.row
		if rec.NumField()-c.skip != row.NumField() {
			t.Fatalf("%s has %d columns, export.%s %d", rec, rec.NumField()-c.skip, row.Name(), row.NumField())
		}
		for i := range row.NumField() {
			if a, b := name(rec.Field(i)), name(row.Field(i)); a != b {
				t.Errorf("column %d: %s %q, export.%s %q", i, rec, a, row.Name(), b)
			}
		}
	}
}

// TestRowEncodings: every double column is BYTE_STREAM_SPLIT-encoded and
// every string column dictionary-encoded, as docs/cli.md states.
func TestRowEncodings(t *testing.T) {
	row := reflect.TypeFor[Row]()
	for i := range row.NumField() {
		f := row.Field(i)
		opts := strings.Split(f.Tag.Get("parquet"), ",")[1:]
		typ := f.Type
		if typ.Kind() == reflect.Pointer {
			typ = typ.Elem()
		}
		want := map[reflect.Kind]string{reflect.Float64: "split", reflect.String: "dict"}[typ.Kind()]
		if want != "" && !slices.Contains(opts, want) {
			t.Errorf("column %s (%s): tag options %v lack %q", f.Name, typ, opts, want)
		}
	}
}
