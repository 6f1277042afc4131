package export

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/fleetsim/fleetsim/sim/sweep"
)

// TestSweepEmptyMetricsAreNull: a point stopped before any measured request
// (--osd enforce inside the warm-up) has NaN rates, utilization and SLO
// attainment; sweep.parquet must hold NULL for them (issue 7 bug 8: empty
// metrics are null), not NaN, which poisons AVG() and comparisons in DuckDB.
func TestSweepEmptyMetricsAreNull(t *testing.T) {
	nan := math.NaN()
	r := sweep.Row{Pool: "a"}
	m := &r.Metrics
	m.SlotUtilization, m.ArrivalRPS, m.ThroughputRPS, m.SLOAttainment, m.BacklogGrowth = nan, nan, nan, nan, nan
	m.TTFT.P99 = nan
	path := filepath.Join(t.TempDir(), "sweep.parquet")
	if err := WriteSweepParquet(path, []sweep.Row{r}, FileInfo{}); err != nil {
		t.Fatal(err)
	}
	rows, err := ReadSweepParquet(path)
	if err != nil || len(rows) != 1 {
		t.Fatalf("read %d rows, %v", len(rows), err)
	}
	got := rows[0]
	for name, p := range map[string]*float64{
		"slot_utilization": got.SlotUtilization, "arrival_rps": got.ArrivalRPS, "throughput_rps": got.ThroughputRPS,
		"slo_attainment": got.SLOAttainment, "backlog_growth_rps": got.BacklogGrowthRPS, "ttft_p99_s": got.TTFTP99S,
	} {
		if p != nil {
			t.Errorf("%s = %v, want NULL", name, *p)
		}
	}
}
