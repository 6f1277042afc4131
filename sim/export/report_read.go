package export

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/parquet-go/parquet-go"

	"github.com/fleetsim/fleetsim/sim"
	"github.com/fleetsim/fleetsim/sim/sweep"
)

// Files ReadReportDir looks for in an output directory.
const (
	SummaryFileName  = "summary.json"
	RequestsFileName = "requests.parquet"
	SeriesFileName   = "timeseries.parquet"
	SweepFileName    = "sweep.parquet"
)

// ReadReportDir builds the report of the output directory dir: a sweep's
// (dir/sweep.parquet) or a simulate run's (dir/summary.json, with
// dir/requests.parquet and dir/timeseries.parquet when present). The
// Parquet files are streamed, so memory stays bounded whatever their size.
// command names what builds the report.
func ReadReportDir(dir, command string) (*Report, error) {
	sp := filepath.Join(dir, SweepFileName)
	if _, err := os.Stat(sp); err == nil {
		return readSweepReport(dir, sp, command)
	}
	sum, outputs, err := readSummary(filepath.Join(dir, SummaryFileName))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s: no %s or %s: not a fleetsim simulate or sweep output directory", dir, SummaryFileName, SweepFileName)
		}
		return nil, err
	}
	c := NewRunCollector()
	var files []string
	rp := filepath.Join(dir, RequestsFileName)
	if ok, err := streamParquet(rp, func(r *Row) { rec := r.Record(); c.AddRecord(&rec) }); err != nil {
		return nil, err
	} else if ok {
		files = append(files, RequestsFileName)
	}
	tp := filepath.Join(dir, SeriesFileName)
	if ok, err := streamParquet(tp, func(r *SeriesParquetRow) { sr := r.SeriesRow(); c.AddSeriesRow(&sr) }); err != nil {
		return nil, err
	} else if ok {
		files = append(files, SeriesFileName)
	}
	if len(files) == 0 {
		files = outputs
	}
	return c.Report(sum, command, dir, strings.Join(files, ", ")), nil
}

// streamParquet reads path row by row (in batches) into add; it reports
// false when the file does not exist.
func streamParquet[T any](path string, add func(*T)) (bool, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer f.Close()
	r := parquet.NewGenericReader[T](f)
	defer r.Close()
	buf := make([]T, batchRows)
	for {
		n, err := r.Read(buf)
		for i := range n {
			add(&buf[i])
		}
		if err == io.EOF {
			return true, nil
		}
		if err != nil {
			return true, fmt.Errorf("reading %s: %w", path, err)
		}
	}
}

// readSummary reads summary.json. JSON has no NaN: a metric written as
// null (an empty pool's quantiles) reads back as NaN.
func readSummary(path string) (*sim.Summary, []string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	var sf struct {
		sim.Summary
		Outputs []OutputFile `json:"outputs"`
	}
	if err := json.Unmarshal(b, &sf); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	s := &sf.Summary
	for _, m := range append([]*sim.PoolMetrics{&s.Fleet}, poolPtrs(s.Pools)...) {
		if m.Completed == 0 {
			nan := math.NaN()
			m.TTFT, m.TPOT, m.E2E, m.QueueWait = sim.Quantiles{P50: nan, P90: nan, P99: nan}, sim.Quantiles{P50: nan, P90: nan, P99: nan}, sim.Quantiles{P50: nan, P90: nan, P99: nan}, sim.Quantiles{P50: nan, P90: nan, P99: nan}
			m.SLOAttainment, m.ThroughputRPS = nan, nan
		}
	}
	var outs []string
	for _, o := range sf.Outputs {
		outs = append(outs, o.Name)
	}
	return s, outs, nil
}

func poolPtrs(ps []sim.PoolMetrics) []*sim.PoolMetrics {
	out := make([]*sim.PoolMetrics, len(ps))
	for i := range ps {
		out[i] = &ps[i]
	}
	return out
}

// readSweepReport reads sweep.parquet and its footer (the grid's axes and
// base scenario; from the points' labels when the footer has none).
func readSweepReport(dir, path, command string) (*Report, error) {
	prs, err := ReadSweepParquet(path)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	by, meta, err := ReadFileInfo(path)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	var axes []sweep.Axis
	if a := meta[MetaAxes]; a != "" {
		if err := json.Unmarshal([]byte(a), &axes); err != nil {
			return nil, fmt.Errorf("%s: metadata %s: %w", path, MetaAxes, err)
		}
	} else {
		axes = axesFromLabels(prs)
	}
	var base sim.Config
	if s := meta[MetaScenario]; s != "" {
		if err := json.Unmarshal([]byte(s), &base); err != nil {
			return nil, fmt.Errorf("%s: metadata %s: %w", path, MetaScenario, err)
		}
	}
	rows := make([]sweep.Row, len(prs))
	for i := range prs {
		rows[i] = prs[i].SweepRow(axes)
	}
	v := meta[MetaVersion]
	if v == "" {
		v = strings.TrimPrefix(by, Application+" version ")
	}
	return SweepReport(rows, axes, SweepMeta{Command: command, Dir: dir, Version: v, Base: base}), nil
}

// axesFromLabels rebuilds a grid's axes from the points' labels ("key=value
// ...", the grid's axis order), values in order of appearance.
func axesFromLabels(rows []SweepRow) []sweep.Axis {
	var axes []sweep.Axis
	for _, r := range rows {
		if r.Label == "" {
			continue
		}
		for k, kv := range strings.Fields(r.Label) {
			key, val, _ := strings.Cut(kv, "=")
			if k == len(axes) {
				axes = append(axes, sweep.Axis{Key: key})
			}
			if k < len(axes) && !slices.Contains(axes[k].Values, val) {
				axes[k].Values = append(axes[k].Values, val)
			}
		}
	}
	return axes
}

// SweepRow converts a sweep.parquet row back to a sweep row, with the
// columns the file holds (a NULL metric becomes NaN); axes give Values
// from the label.
func (r *SweepRow) SweepRow(axes []sweep.Axis) sweep.Row {
	out := sweep.Row{
		Point: int(r.Point), Label: r.Label, Seed: r.Seed, RateRPS: r.RateRPS, Requests: int(r.Requests),
		Workload: r.Workload, Router: r.Router, Timing: r.Timing, BShort: int(r.BShort), Gamma: r.Gamma,
		Fleet: r.Fleet, PoolIndex: int(r.PoolIndex), Pool: r.Pool, GPU: r.GPU, MaxCtx: int(r.MaxCtx),
		CostUSDPerHour: r.CostUSDPerHour, SimTimeS: r.SimTimeS,
	}
	vals := map[string]string{}
	for _, kv := range strings.Fields(r.Label) {
		k, v, _ := strings.Cut(kv, "=")
		vals[k] = v
	}
	for _, a := range axes {
		out.Values = append(out.Values, vals[a.Key])
	}
	m := &out.Metrics
	m.Name, m.GPU, m.GPUs, m.MaxContext, m.Slots = r.Pool, r.GPU, int(r.GPUs), int(r.MaxCtx), int(r.Slots)
	m.Arrived, m.Completed, m.Rejected, m.Preemptions = r.Arrived, r.Completed, r.Rejected, r.Preemptions
	m.SlotUtilization, m.ArrivalRPS, m.ThroughputRPS = orNaN(r.SlotUtilization), orNaN(r.ArrivalRPS), orNaN(r.ThroughputRPS)
	nan := math.NaN()
	m.TTFT = sim.Quantiles{P50: orNaN(r.TTFTP50S), P90: orNaN(r.TTFTP90S), P99: orNaN(r.TTFTP99S)}
	m.TPOT = sim.Quantiles{P50: orNaN(r.TPOTP50S), P90: nan, P99: orNaN(r.TPOTP99S)}
	m.E2E = sim.Quantiles{P50: nan, P90: nan, P99: orNaN(r.E2EP99S)}
	m.QueueWait = sim.Quantiles{P50: nan, P90: nan, P99: orNaN(r.QueueWaitP99S)}
	m.SLOAttainment, m.Overloaded, m.BacklogGrowth = orNaN(r.SLOAttainment), r.BacklogOverload, orNaN(r.BacklogGrowthRPS)
	out.OSD = sweep.Verdict{Fired: r.OSDFired, AtS: orNaN(r.OSDTimeS)}
	return out
}

// ParquetNullCounts returns the number of NULLs in every top-level column of
// a flat Parquet file (for tests and checks; it reads the whole file).
func ParquetNullCounts(path string) (map[string]int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := parquet.NewReader(f)
	defer r.Close()
	cols := r.Schema().Columns()
	counts := make(map[string]int64, len(cols))
	for _, c := range cols {
		counts[strings.Join(c, ".")] = 0
	}
	buf := make([]parquet.Row, batchRows)
	for {
		n, err := r.ReadRows(buf)
		for _, row := range buf[:n] {
			for _, v := range row {
				if v.IsNull() {
					counts[strings.Join(cols[v.Column()], ".")]++
				}
			}
		}
		if err == io.EOF {
			return counts, nil
		}
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", path, err)
		}
	}
}
