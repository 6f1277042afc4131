package export

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/parquet-go/parquet-go"

	"github.com/fleetsim/fleetsim/sim/sweep"
)

// SweepRow is the Parquet schema of sweep.parquet: one row per point and
// pool, plus one row per point for the whole fleet (fleet = true, pool =
// "fleet", pool_index = -1). Rows are in grid order (point, then
// pool_index), so a shard's part holds a subset of the unsharded file's rows,
// identical byte for byte in value. Latencies are seconds, rates requests/s;
// a metric that has no value (no request completed) is NULL, and so is a
// key that does not apply: gpu, max_ctx and slots in fleet rows, b_short and
// gamma when the router uses its default. The footer carries the same
// created_by and key-value metadata as requests.parquet (the base scenario
// and seed) plus MetaAxes, the grid's axes. docs/sweep.md documents every
// column.
type SweepRow struct {
	Point     int32   `parquet:"point"`
	Label     string  `parquet:"label"`
	Seed      uint64  `parquet:"seed"`
	RateRPS   float64 `parquet:"rate_rps"`
	Requests  int64   `parquet:"requests"`
	Workload  string  `parquet:"workload,dict"`
	Router    string  `parquet:"router,dict"`
	Timing    string  `parquet:"timing,dict"`
	BShort    int32   `parquet:"b_short,optional"` // NULL: the router's default
	Gamma     float64 `parquet:"gamma,optional"`   // NULL: the router's default
	Fleet     bool    `parquet:"fleet"`
	PoolIndex int32   `parquet:"pool_index"`
	Pool      string  `parquet:"pool,dict"`
	GPU       string  `parquet:"gpu,dict,optional"` // NULL in fleet rows
	GPUs      int32   `parquet:"gpus"`              // physical GPUs: instances × GPUs per instance
	Instances int32   `parquet:"instances"`         // serving instances
	MaxCtx    int32   `parquet:"max_ctx,optional"`  // NULL in fleet rows
	Slots     int32   `parquet:"slots,optional"`    // NULL in fleet rows

	Arrived          int64    `parquet:"arrived"`
	Completed        int64    `parquet:"completed"`
	Rejected         int64    `parquet:"rejected"`
	Preemptions      int64    `parquet:"preemptions"`
	SlotUtilization  *float64 `parquet:"slot_utilization"`
	ArrivalRPS       *float64 `parquet:"arrival_rps"`
	ThroughputRPS    *float64 `parquet:"throughput_rps"`
	TTFTP50S         *float64 `parquet:"ttft_p50_s"`
	TTFTP90S         *float64 `parquet:"ttft_p90_s"`
	TTFTP99S         *float64 `parquet:"ttft_p99_s"`
	TPOTP50S         *float64 `parquet:"tpot_p50_s"`
	TPOTP99S         *float64 `parquet:"tpot_p99_s"`
	E2EP99S          *float64 `parquet:"e2e_p99_s"`
	QueueWaitP99S    *float64 `parquet:"queue_wait_p99_s"`
	SLOAttainment    *float64 `parquet:"slo_attainment"`
	BacklogOverload  bool     `parquet:"backlog_overloaded"`
	BacklogGrowthRPS *float64 `parquet:"backlog_growth_rps"`
	CostUSDPerHour   float64  `parquet:"cost_usd_per_hour"`
	USDPerMillion    *float64 `parquet:"usd_per_million_requests"`
	OSDFired         bool     `parquet:"osd_fired"`
	OSDTimeS         *float64 `parquet:"osd_time_s"`
	SimTimeS         float64  `parquet:"sim_time_s"`
}

func nullable(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}

// NewSweepRow converts a sweep row to its Parquet form.
func NewSweepRow(r *sweep.Row) SweepRow {
	m := &r.Metrics
	return SweepRow{
		Point: int32(r.Point), Label: r.Label, Seed: r.Seed, RateRPS: r.RateRPS,
		Requests: int64(r.Requests), Workload: r.Workload, Router: r.Router, Timing: r.Timing,
		BShort: int32(r.BShort), Gamma: r.Gamma,
		Fleet: r.Fleet, PoolIndex: int32(r.PoolIndex), Pool: r.Pool, GPU: r.GPU,
		GPUs: int32(m.GPUs), Instances: int32(m.InstanceCount()), MaxCtx: int32(r.MaxCtx), Slots: int32(m.Slots),
		Arrived: m.Arrived, Completed: m.Completed, Rejected: m.Rejected, Preemptions: m.Preemptions,
		SlotUtilization: nullable(m.SlotUtilization), ArrivalRPS: nullable(m.ArrivalRPS), ThroughputRPS: nullable(m.ThroughputRPS),
		TTFTP50S: nullable(m.TTFT.P50), TTFTP90S: nullable(m.TTFT.P90), TTFTP99S: nullable(m.TTFT.P99),
		TPOTP50S: nullable(m.TPOT.P50), TPOTP99S: nullable(m.TPOT.P99),
		E2EP99S: nullable(m.E2E.P99), QueueWaitP99S: nullable(m.QueueWait.P99),
		SLOAttainment: nullable(m.SLOAttainment), BacklogOverload: m.Overloaded, BacklogGrowthRPS: nullable(m.BacklogGrowth),
		CostUSDPerHour: r.CostUSDPerHour, USDPerMillion: nullable(r.USDPerMillion()),
		OSDFired: r.OSD.Fired, OSDTimeS: nullable(r.OSD.AtS), SimTimeS: r.SimTimeS,
	}
}

// MetaAxes is the key-value metadata key of sweep.parquet holding the
// grid's axes as JSON: [{"Key": "rate", "Values": ["20", "40"]}, ...].
const MetaAxes = "fleetsim.axes"

// WriteSweepParquet writes rows to path as zstd-compressed Parquet (schema
// SweepRow) through a temporary file and a rename, with the run information
// of info in its footer (as requests.parquet). The same rows give the same
// bytes.
func WriteSweepParquet(path string, rows []sweep.Row, info FileInfo) error {
	f, err := createAtomic(path)
	if err != nil {
		return err
	}
	w := parquet.NewGenericWriter[SweepRow](f, parquetOptions(info)...)
	out := make([]SweepRow, len(rows))
	for i := range rows {
		out[i] = NewSweepRow(&rows[i])
	}
	if _, err := w.Write(out); err == nil {
		err = w.Close()
	}
	if err != nil {
		f.Abort()
		return fmt.Errorf("export: writing %s: %w", path, err)
	}
	return f.Commit()
}

// ReadSweepParquet reads a sweep.parquet file (or a shard's part).
func ReadSweepParquet(path string) ([]SweepRow, error) {
	return parquet.ReadFile[SweepRow](path)
}

// WriteSweepTable writes rows as a Markdown table: the point's keys, then
// per pool the main metrics and the over-saturation verdict.
func WriteSweepTable(w io.Writer, rows []sweep.Row) error {
	head := []string{"point", "keys", "pool", "gpu", "gpus", "thru_rps", "util", "ttft_p99_ms", "tpot_p99_ms", "slo", "usd_per_h", "usd_per_1M", "osd"}
	// An instances column when some pool's instances are not its GPUs
	// (tensor-parallel instances), as in simulate's table.
	tp := slices.ContainsFunc(rows, func(r sweep.Row) bool { return r.Metrics.InstanceCount() != r.Metrics.GPUs })
	if tp {
		head = slices.Insert(head, 4, "instances")
	}
	var b strings.Builder
	b.WriteString("| " + strings.Join(head, " | ") + " |\n|")
	for range head {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	for i := range rows {
		r := &rows[i]
		m := &r.Metrics
		keys := r.Label
		if keys == "" {
			keys = "-"
		}
		osd := "no"
		if r.OSD.Fired {
			osd = "fired"
			if !math.IsNaN(r.OSD.AtS) {
				osd = fmt.Sprintf("fired at %s s", num(r.OSD.AtS, 1))
			}
		}
		gpu := r.GPU
		if gpu == "" {
			gpu = "-"
		}
		cells := []string{strconv.Itoa(r.Point), keys, r.Pool, gpu, strconv.Itoa(m.GPUs),
			num(m.ThroughputRPS, 1), num(m.SlotUtilization, 3), ms(m.TTFT.P99), ms(m.TPOT.P99),
			num(m.SLOAttainment, 3), num(r.CostUSDPerHour, 2), num(r.USDPerMillion(), 2), osd}
		if tp {
			cells = slices.Insert(cells, 4, strconv.Itoa(m.InstanceCount()))
		}
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}
