package export

import (
	"reflect"
	"strings"
	"testing"

	"github.com/fleetsim/fleetsim/sim"
)

// TestRowMirrorsRecord: the Parquet row has exactly the columns of
// sim.Record, in the same order, so a field added to the record cannot be
// silently left out of requests.parquet.
func TestRowMirrorsRecord(t *testing.T) {
	name := func(f reflect.StructField) string { return strings.Split(f.Tag.Get("parquet"), ",")[0] }
	rec, row := reflect.TypeFor[sim.Record](), reflect.TypeFor[Row]()
	if rec.NumField() != row.NumField() {
		t.Fatalf("sim.Record has %d fields, export.Row %d", rec.NumField(), row.NumField())
	}
	for i := range rec.NumField() {
		if a, b := name(rec.Field(i)), name(row.Field(i)); a != b {
			t.Errorf("column %d: sim.Record %q, export.Row %q", i, a, b)
		}
	}
}
