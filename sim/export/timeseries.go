package export

import (
	"errors"
	"fmt"

	"github.com/parquet-go/parquet-go"

	"github.com/fleetsim/fleetsim/sim"
)

// SeriesParquetRow is the Parquet schema of timeseries.parquet: one row per
// interval and pool, then the fleet's row (pool "fleet", pool_index −1), in
// time order. Times are seconds of simulated time; a TTFT quantile of an
// interval where nothing completed is NULL. docs/report.md documents every
// column. A column added to sim.SeriesRow is added here and in
// NewSeriesParquetRow.
type SeriesParquetRow struct {
	Interval       int64    `parquet:"interval"`
	IntervalStartS float64  `parquet:"interval_start_s"`
	IntervalEndS   float64  `parquet:"interval_end_s"`
	Pool           string   `parquet:"pool,dict"`
	PoolIndex      int32    `parquet:"pool_index"`
	Arrivals       int64    `parquet:"arrivals"`
	WarmupArrivals int64    `parquet:"warmup_arrivals"`
	Completions    int64    `parquet:"completions"`
	Rejections     int64    `parquet:"rejections"`
	Queue          int64    `parquet:"queue"`
	Running        int64    `parquet:"running"`
	Slots          int64    `parquet:"slots"`
	KVBlocksUsed   int64    `parquet:"kv_blocks_used"`
	KVBlocksTotal  int64    `parquet:"kv_blocks_total"`
	TTFTP50S       *float64 `parquet:"ttft_p50_s"`
	TTFTP99S       *float64 `parquet:"ttft_p99_s"`
	// The columns of a day (docs/day.md).
	RateRPS           float64  `parquet:"rate_rps"`
	TPOTP99S          *float64 `parquet:"tpot_p99_s"`
	SLOAttainment     *float64 `parquet:"slo_attainment"`
	InstancesStarting int64    `parquet:"instances_starting"`
	InstancesServing  int64    `parquet:"instances_serving"`
	InstancesDraining int64    `parquet:"instances_draining"`
	BShort            *int64   `parquet:"b_short"`
	OSDAlert          *bool    `parquet:"osd_alert"`
	GPUHours          *float64 `parquet:"gpu_hours"`
	CostUSD           *float64 `parquet:"cost_usd"`
}

// NewSeriesParquetRow converts a time-series row to its Parquet form.
func NewSeriesParquetRow(r *sim.SeriesRow) SeriesParquetRow {
	return SeriesParquetRow{
		Interval: r.Interval, IntervalStartS: r.StartS, IntervalEndS: r.EndS,
		Pool: r.Pool, PoolIndex: int32(r.PoolIndex),
		Arrivals: r.Arrivals, WarmupArrivals: r.WarmupArrivals,
		Completions: r.Completions, Rejections: r.Rejections,
		Queue: r.Queue, Running: r.Running, Slots: r.Slots,
		KVBlocksUsed: r.KVBlocksUsed, KVBlocksTotal: r.KVBlocksTotal,
		TTFTP50S: nullable(r.TTFTP50S), TTFTP99S: nullable(r.TTFTP99S),
		RateRPS: r.RateRPS, TPOTP99S: nullable(r.TPOTP99S), SLOAttainment: nullable(r.SLOAttainment),
		InstancesStarting: r.Starting, InstancesServing: r.Serving, InstancesDraining: r.Draining,
		BShort: nullableInt(r.BShort), OSDAlert: nullableAlert(r.OSDAlert),
		GPUHours: nullable(r.GPUHours), CostUSD: nullable(r.CostUSD),
	}
}

// nullableInt is NULL for −1 (none).
func nullableInt(v int64) *int64 {
	if v < 0 {
		return nil
	}
	return &v
}

// nullableAlert is NULL for −1 (detector off).
func nullableAlert(v int8) *bool {
	if v < 0 {
		return nil
	}
	b := v == 1
	return &b
}

// SeriesRow converts a Parquet row back (NULL becomes NaN).
func (r *SeriesParquetRow) SeriesRow() sim.SeriesRow {
	s := sim.SeriesRow{
		Interval: r.Interval, StartS: r.IntervalStartS, EndS: r.IntervalEndS,
		Pool: r.Pool, PoolIndex: int(r.PoolIndex),
		Arrivals: r.Arrivals, WarmupArrivals: r.WarmupArrivals,
		Completions: r.Completions, Rejections: r.Rejections,
		Queue: r.Queue, Running: r.Running, Slots: r.Slots,
		KVBlocksUsed: r.KVBlocksUsed, KVBlocksTotal: r.KVBlocksTotal,
		TTFTP50S: orNaN(r.TTFTP50S), TTFTP99S: orNaN(r.TTFTP99S),
		RateRPS: r.RateRPS, TPOTP99S: orNaN(r.TPOTP99S), SLOAttainment: orNaN(r.SLOAttainment),
		Starting: r.InstancesStarting, Serving: r.InstancesServing, Draining: r.InstancesDraining,
		BShort: -1, OSDAlert: -1, GPUHours: orNaN(r.GPUHours), CostUSD: orNaN(r.CostUSD),
	}
	if r.BShort != nil {
		s.BShort = *r.BShort
	}
	if r.OSDAlert != nil {
		s.OSDAlert = 0
		if *r.OSDAlert {
			s.OSDAlert = 1
		}
	}
	return s
}

// Row groups and page buffers of timeseries.parquet.
const (
	seriesRowGroupRows = 8192
	seriesPageBytes    = 32 << 10
)

// MaxSeriesRows bounds the rows of timeseries.parquet: beyond, WriteSeries
// fails with ErrSeriesTooLong. 2^24 rows are 2,048 row groups, whose footer
// entries the writer holds until Close (about 30 KB each: a run with an
// interval far too fine for its length once reached 1 GB and Parquet's
// 32,767-group limit after minutes).
const MaxSeriesRows = 1 << 24

// maxSeriesRows is MaxSeriesRows (a test lowers it).
var maxSeriesRows int64 = MaxSeriesRows

// ErrSeriesTooLong is the error of a time series over MaxSeriesRows rows.
var ErrSeriesTooLong = errors.New("the time series has more than 16,777,216 rows (intervals × (pools + 1)): the interval is too fine for the run's length")

// SeriesSink is a sim.SeriesSink writing timeseries.parquet (schema
// SeriesParquetRow, zstd) as the run goes: rows are buffered up to one row
// group (seriesRowGroupRows rows), so memory stays bounded however long the
// run. The file appears at its path only when Close succeeds; Abort (or a
// failed Close) leaves nothing.
type SeriesSink struct {
	f    *atomicFile
	w    *parquet.GenericWriter[SeriesParquetRow]
	buf  []SeriesParquetRow
	rows int64
	err  error
}

// NewSeriesSink starts timeseries.parquet at path with the run information
// of info (created_by and key-value metadata, as requests.parquet).
func NewSeriesSink(path string, info FileInfo) (*SeriesSink, error) {
	f, err := createAtomicIn(info.Set, path)
	if err != nil {
		return nil, err
	}
	// Small row groups and pages: a long run's series streams out instead
	// of filling a 65,536-row group in memory beside the simulation.
	opts := append(parquetOptions(info), parquet.MaxRowsPerRowGroup(seriesRowGroupRows), parquet.PageBufferSize(seriesPageBytes))
	w := parquet.NewGenericWriter[SeriesParquetRow](f, opts...)
	return &SeriesSink{f: f, w: w}, nil
}

// parquetOptions are the writer options of every Parquet file fleetsim
// writes: zstd, RowGroupRows per row group, created_by and the key-value
// metadata of info (MetaVersion, then info.Meta in key order).
func parquetOptions(info FileInfo) []parquet.WriterOption {
	return parquetOptionsCodec(info, newZstdCodec())
}

// parquetOptionsCodec is parquetOptions compressing with codec.
func parquetOptionsCodec(info FileInfo, codec *zstdCodec) []parquet.WriterOption {
	by := Application
	opts := []parquet.WriterOption{
		parquet.Compression(codec),
		parquet.MaxRowsPerRowGroup(RowGroupRows),
	}
	if info.Version != "" {
		by += " version " + info.Version
		opts = append(opts, parquet.KeyValueMetadata(MetaVersion, info.Version))
	}
	opts = append(opts, createdBy(by))
	for k, v := range info.Meta {
		opts = append(opts, parquet.KeyValueMetadata(k, v))
	}
	return opts
}

// WriteSeries implements sim.SeriesSink.
func (s *SeriesSink) WriteSeries(rows []sim.SeriesRow) error {
	if s.err != nil {
		return s.err
	}
	if s.rows+int64(len(rows)) > maxSeriesRows {
		s.err = fmt.Errorf("export: writing %s: %w", s.f.path, ErrSeriesTooLong)
		return s.err
	}
	s.buf = s.buf[:0]
	for i := range rows {
		s.buf = append(s.buf, NewSeriesParquetRow(&rows[i]))
	}
	if _, err := s.w.Write(s.buf); err != nil {
		s.err = fmt.Errorf("export: writing %s: %w", s.f.path, err)
		return s.err
	}
	s.rows += int64(len(rows))
	return nil
}

// Rows returns the number of rows written.
func (s *SeriesSink) Rows() int64 { return s.rows }

// Path returns the file's final path.
func (s *SeriesSink) Path() string { return s.f.path }

// Close writes the footer and renames the file into place.
func (s *SeriesSink) Close() error {
	s.err = s.f.close(s.err, s.w.Close)
	return s.err
}

// Abort discards the file (a no-op after a successful Close).
func (s *SeriesSink) Abort() { s.f.abortOpen() }

// ReadSeriesParquet reads a timeseries.parquet file (NULL becomes NaN).
func ReadSeriesParquet(path string) ([]sim.SeriesRow, error) {
	rows, err := parquet.ReadFile[SeriesParquetRow](path)
	if err != nil {
		return nil, err
	}
	out := make([]sim.SeriesRow, len(rows))
	for i := range rows {
		out[i] = rows[i].SeriesRow()
	}
	return out, nil
}
