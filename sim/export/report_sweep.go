package export

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/fleetsim/fleetsim/sim"
	"github.com/fleetsim/fleetsim/sim/sweep"
)

// SweepMeta identifies the sweep a report shows.
type SweepMeta struct {
	Command string
	Dir     string
	Version string
	Base    sim.Config // the base scenario
}

// maxSweepTableRows bounds the rows of a sweep report's table (the file
// stays small; sweep.md and sweep.parquet hold them all).
const maxSweepTableRows = 400

// sloMetric is SLO attainment, plotted beside sweep.PlotMetrics.
var sloMetric = sweep.Metric{Name: "slo_attainment", Label: "SLO attainment (fraction)", Value: func(r *sweep.Row) float64 { return r.Metrics.SLOAttainment }}

// shortLabels are y labels that fit the report's figures.
var shortLabels = map[string]string{"ttft_p99": "P99 TTFT, s (log scale)", "cost": "USD per 1M requests (log scale)"}

// SweepReport builds the report of a sweep: its grid, the metrics against
// the swept axis, the cost–SLO Pareto front over the simulated points and a
// table of the rows.
func SweepReport(rows []sweep.Row, axes []sweep.Axis, m SweepMeta) *Report {
	points := 0
	seen := map[int]bool{}
	for i := range rows {
		if !seen[rows[i].Point] {
			seen[rows[i].Point] = true
			points++
		}
	}
	var ax []string
	for _, a := range axes {
		ax = append(ax, a.Key+" ∈ {"+strings.Join(a.Values, ", ")+"}")
	}
	var pools []string
	for _, p := range m.Base.Pools {
		pools = append(pools, fmt.Sprintf("%s: %d × %s, max context %d", p.Name, p.Count, p.GPU, p.MaxContext))
	}
	wl := m.Base.Workload.CDF
	if m.Base.Workload.Trace != "" {
		wl = "trace " + m.Base.Workload.Trace
	}
	r := &Report{
		Title:    "fleetsim sweep report",
		Subtitle: fmt.Sprintf("%d points, %d axes", points, len(axes)),
		Meta: [][2]string{
			{"written by", m.Command},
			{"fleetsim version", m.Version},
			{"output directory", m.Dir},
			{"axes", orDash(strings.Join(ax, "; "))},
			{"base scenario", fmt.Sprintf("%s workload, %d requests per point, seed %d, %s timing, %s router", orDash(wl), m.Base.Workload.Requests, m.Base.Seed, orDash(m.Base.Timing), orDash(m.Base.Router.Kind))},
			{"base pools", orDash(strings.Join(pools, "; "))},
			{"SLO", fmt.Sprintf("TTFT %s ms, TPOT %s ms", ms(m.Base.SLO.TTFTS), ms(m.Base.SLO.TPOTS))},
		},
	}
	if x := sweep.XAxis(axes); x >= 0 {
		s := ReportSection{ID: "curves", Title: "Metrics by " + axes[x].Key}
		s.Notes = append(s.Notes, "One line per pool (and the fleet) and combination of the other swept keys; the mean over seeds when several were run.")
		for _, mt := range append(slices.Clone(sweep.PlotMetrics), sloMetric) {
			f := SweepFigure(rows, axes, x, mt)
			if f == nil {
				continue
			}
			f.YUnit = mt.Name == sloMetric.Name || mt.Name == "utilization"
			if l, ok := shortLabels[mt.Name]; ok {
				f.YLabel = l // a label longer than the axis breaks the layout
			}
			s.Figures = append(s.Figures, ReportFigure{Figure: *f, Caption: mt.Label + " of every simulated point against " + sweep.AxisLabel(axes[x].Key) + "."})
		}
		r.Sections = append(r.Sections, s)
	}
	r.Sections = append(r.Sections, paretoSection(rows))
	r.Sections = append(r.Sections, sweepTableSection(rows))
	return r
}

// costSLO is a fleet row on the cost–SLO plane.
type costSLO struct {
	label      string
	cost, slo  float64 // USD per million requests; SLO attainment
	ttftP99    float64
	costPerH   float64
	throughput float64
}

// ParetoFront returns the indices of the points no other point dominates
// (as cheap or cheaper and as good or better, one strictly), by cost
// ascending. cost is minimized, good maximized; NaN points are left out.
func ParetoFront(cost, good []float64) []int {
	idx := make([]int, 0, len(cost))
	for i := range cost {
		if !math.IsNaN(cost[i]) && !math.IsNaN(good[i]) {
			idx = append(idx, i)
		}
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		if c := cmp.Compare(cost[a], cost[b]); c != 0 {
			return c
		}
		return cmp.Compare(good[b], good[a]) // better first among equal costs
	})
	var front []int
	best := math.Inf(-1)
	for _, i := range idx {
		if good[i] > best {
			front = append(front, i)
			best = good[i]
		}
	}
	return front
}

// paretoSection draws the fleet rows on the cost–SLO plane and their
// Pareto front, and lists the front.
func paretoSection(rows []sweep.Row) ReportSection {
	s := ReportSection{ID: "pareto", Title: "Cost and SLO: the Pareto front"}
	var pts []costSLO
	for i := range rows {
		r := &rows[i]
		if !r.Fleet {
			continue
		}
		pts = append(pts, costSLO{label: orDash(r.Label), cost: r.USDPerMillion(), slo: r.Metrics.SLOAttainment,
			ttftP99: r.Metrics.TTFT.P99, costPerH: r.CostUSDPerHour, throughput: r.Metrics.ThroughputRPS})
	}
	cost, good := make([]float64, len(pts)), make([]float64, len(pts))
	for i, p := range pts {
		cost[i], good[i] = p.cost, p.slo
	}
	front := ParetoFront(cost, good)
	if len(front) == 0 {
		s.Notes = append(s.Notes, "No point has both a cost per request and an SLO attainment (no measured request completed): there is no front to draw.")
		return s
	}
	all := FigureSeries{Name: "simulated points", Scatter: true}
	fr := FigureSeries{Name: "Pareto front"}
	for _, p := range pts {
		if !math.IsNaN(p.cost) && !math.IsNaN(p.slo) {
			all.X, all.Y = append(all.X, p.cost), append(all.Y, p.slo)
		}
	}
	t := ReportTable{Caption: "Points on the front, cheapest first", Head: []string{"point keys", "USD per 1M requests", "SLO attainment", "P99 TTFT ms", "fleet USD/h", "throughput req/s"},
		Numeric: []bool{false, true, true, true, true, true}}
	for _, i := range front {
		p := pts[i]
		fr.X, fr.Y = append(fr.X, p.cost), append(fr.Y, p.slo)
		t.Rows = append(t.Rows, []string{p.label, num(p.cost, 2), num(p.slo, 4), ms(p.ttftP99), num(p.costPerH, 2), num(p.throughput, 1)})
	}
	f := Figure{Name: "pareto", Title: "SLO attainment against cost", XLabel: "cost, USD per million requests served", YLabel: "SLO attainment (fraction)", Series: []FigureSeries{all, fr}, YUnit: true}
	s.Notes = append(s.Notes, "Each simulated point's whole fleet: cost per million served requests (instances × GPU price over the measured throughput) against the fraction of requests meeting both SLO targets. A point is on the front when no other point is as cheap or cheaper and meets the SLO as often or more, one of them strictly.")
	s.Figures = append(s.Figures, ReportFigure{Figure: f, Caption: fmt.Sprintf("%d points, %d on the front.", len(all.X), len(front))})
	s.Tables = append(s.Tables, t)
	return s
}

// sweepTableSection lists the rows (up to maxSweepTableRows).
func sweepTableSection(rows []sweep.Row) ReportSection {
	s := ReportSection{ID: "rows", Title: "Every point"}
	t := ReportTable{Head: []string{"point", "keys", "pool", "gpu", "gpus", "thru_rps", "util", "ttft_p99_ms", "tpot_p99_ms", "slo", "usd_per_h", "usd_per_1M", "osd"},
		Numeric: []bool{true, false, false, false, true, true, true, true, true, true, true, true, false}}
	for i := range rows {
		if i == maxSweepTableRows {
			s.Notes = append(s.Notes, fmt.Sprintf("The first %d of %d rows; sweep.md and sweep.parquet hold them all.", maxSweepTableRows, len(rows)))
			break
		}
		r := &rows[i]
		m := &r.Metrics
		osd := "no"
		if r.OSD.Fired {
			osd = "fired"
			if !math.IsNaN(r.OSD.AtS) {
				osd = "fired at " + num(r.OSD.AtS, 1) + " s"
			}
		}
		t.Rows = append(t.Rows, []string{strconv.Itoa(r.Point), orDash(r.Label), r.Pool, orDash(r.GPU), strconv.Itoa(m.GPUs),
			num(m.ThroughputRPS, 1), num(m.SlotUtilization, 3), ms(m.TTFT.P99), ms(m.TPOT.P99),
			num(m.SLOAttainment, 3), num(r.CostUSDPerHour, 2), num(r.USDPerMillion(), 2), osd})
	}
	s.Tables = append(s.Tables, t)
	return s
}
