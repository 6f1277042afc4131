package export

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/fleetsim/fleetsim/sim"
)

// TestSeriesSinkRowCap: a series over maxSeriesRows rows fails with
// ErrSeriesTooLong when it passes the bound (not after minutes, on
// Parquet's 32,767-row-group limit, as an interval far too fine did), and
// leaves no file.
func TestSeriesSinkRowCap(t *testing.T) {
	defer func(m int64) { maxSeriesRows = m }(maxSeriesRows)
	maxSeriesRows = 6 // two intervals of a two-pool fleet (3 rows each)
	path := filepath.Join(t.TempDir(), "timeseries.parquet")
	s, err := NewSeriesSink(path, FileInfo{Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	rows := make([]sim.SeriesRow, 3)
	for k := range 2 {
		if err := s.WriteSeries(rows); err != nil {
			t.Fatalf("interval %d: %v", k, err)
		}
	}
	if err := s.WriteSeries(rows); !errors.Is(err, ErrSeriesTooLong) {
		t.Fatalf("third interval (9 rows > 6): %v, want ErrSeriesTooLong", err)
	}
	if err := s.Close(); !errors.Is(err, ErrSeriesTooLong) {
		t.Errorf("Close: %v, want ErrSeriesTooLong", err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("%s exists after the failure", path)
	}
}
