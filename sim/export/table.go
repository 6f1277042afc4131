package export

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/fleetsim/fleetsim/sim"
)

// tableColumn is one per-pool metric shown in tables: header and value.
type tableColumn struct {
	head string
	val  func(m *sim.PoolMetrics) string
}

// instancesColumn is shown after gpu when some pool's instances are not
// its GPUs (tensor-parallel instances): gpus counts GPUs.
var instancesColumn = tableColumn{"instances", func(m *sim.PoolMetrics) string { return strconv.Itoa(m.InstanceCount()) }}

// columns returns the table's columns for s: tableColumns, with the
// instances column when some pool has several GPUs per instance.
func columns(s *sim.Summary) []tableColumn {
	for _, m := range s.Pools {
		if m.InstanceCount() != m.GPUs {
			return slices.Insert(slices.Clone(tableColumns), 2, instancesColumn)
		}
	}
	return tableColumns
}

// tableColumns are the per-pool metrics shown in tables.
var tableColumns = []tableColumn{
	{"pool", func(m *sim.PoolMetrics) string { return m.Name }},
	{"gpu", func(m *sim.PoolMetrics) string { return m.GPU }},
	{"gpus", func(m *sim.PoolMetrics) string { return strconv.Itoa(m.GPUs) }},
	{"max_ctx", func(m *sim.PoolMetrics) string { return intOrDash(m.MaxContext) }},
	{"slots", func(m *sim.PoolMetrics) string { return intOrDash(m.Slots) }},
	{"arrived", func(m *sim.PoolMetrics) string { return strconv.FormatInt(m.Arrived, 10) }},
	{"completed", func(m *sim.PoolMetrics) string { return strconv.FormatInt(m.Completed, 10) }},
	{"rejected", func(m *sim.PoolMetrics) string { return strconv.FormatInt(m.Rejected, 10) }},
	{"preempt", func(m *sim.PoolMetrics) string { return strconv.FormatInt(m.Preemptions, 10) }},
	{"util", func(m *sim.PoolMetrics) string { return num(m.SlotUtilization, 3) }},
	{"thru_rps", func(m *sim.PoolMetrics) string { return num(m.ThroughputRPS, 1) }},
	{"ttft_p50_ms", func(m *sim.PoolMetrics) string { return ms(m.TTFT.P50) }},
	{"ttft_p99_ms", func(m *sim.PoolMetrics) string { return ms(m.TTFT.P99) }},
	{"tpot_p50_ms", func(m *sim.PoolMetrics) string { return ms(m.TPOT.P50) }},
	{"tpot_p99_ms", func(m *sim.PoolMetrics) string { return ms(m.TPOT.P99) }},
	{"e2e_p99_s", func(m *sim.PoolMetrics) string { return num(m.E2E.P99, 2) }},
	{"wait_p99_ms", func(m *sim.PoolMetrics) string { return ms(m.QueueWait.P99) }},
	{"slo", func(m *sim.PoolMetrics) string { return num(m.SLOAttainment, 3) }},
	{"overloaded", func(m *sim.PoolMetrics) string {
		if m.Overloaded && m.BacklogGrowth > 0 {
			return fmt.Sprintf("yes (+%s req/s)", num(m.BacklogGrowth, 1))
		}
		if m.Overloaded { // e.g. stopped by its detector before a trend
			return "yes"
		}
		return "no"
	}},
	{"osd", func(m *sim.PoolMetrics) string {
		switch {
		case m.OSD.Mode == "":
			return "off"
		case m.OSD.Fired:
			return fmt.Sprintf("fired at %s s", num(*m.OSD.FiredAtS, 1))
		}
		return "no"
	}},
}

// leftAligned reports whether table column i is left-aligned (names and
// verdicts) rather than right-aligned (numbers).
func leftAligned(i, n int) bool { return i <= 1 || i >= n-2 }

func intOrDash(n int) string {
	if n == 0 {
		return "-"
	}
	return strconv.Itoa(n)
}

func num(x float64, prec int) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "-"
	}
	return strconv.FormatFloat(x, 'f', prec, 64)
}

func ms(s float64) string { return num(s*1000, 1) }

// tableRows returns the pools' rows followed by the fleet's.
func tableRows(s *sim.Summary, cols []tableColumn) [][]string {
	var rows [][]string
	add := func(m *sim.PoolMetrics) {
		row := make([]string, len(cols))
		for i, c := range cols {
			row[i] = c.val(m)
		}
		rows = append(rows, row)
	}
	for i := range s.Pools {
		add(&s.Pools[i])
	}
	fleet := s.Fleet
	if fleet.Name == "" {
		fleet.Name = "fleet"
	}
	add(&fleet)
	return rows
}

// WriteTable writes the per-pool metrics and the fleet's as a Markdown
// table (readable as plain text): latencies in milliseconds except e2e_p99_s,
// util = time-averaged busy slots / slots, slo = fraction of completed
// requests meeting both SLO targets.
func WriteTable(w io.Writer, s *sim.Summary) error {
	cols := columns(s)
	rows := tableRows(s, cols)
	width := make([]int, len(cols))
	for i, c := range cols {
		width[i] = len(c.head)
	}
	for _, r := range rows {
		for i, cell := range r {
			width[i] = max(width[i], len(cell))
		}
	}
	var b strings.Builder
	line := func(cells []string) {
		b.WriteString("|")
		for i, cell := range cells {
			if leftAligned(i, len(cols)) {
				fmt.Fprintf(&b, " %-*s |", width[i], cell)
			} else {
				fmt.Fprintf(&b, " %*s |", width[i], cell)
			}
		}
		b.WriteString("\n")
	}
	head := make([]string, len(cols))
	for i, c := range cols {
		head[i] = c.head
	}
	line(head)
	b.WriteString("|")
	for i := range cols {
		if leftAligned(i, len(cols)) {
			b.WriteString(strings.Repeat("-", width[i]+2) + "|")
		} else {
			b.WriteString(strings.Repeat("-", width[i]+1) + ":|")
		}
	}
	b.WriteString("\n")
	for _, r := range rows {
		line(r)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteTableCSV writes the same table as CSV (header row, then the pools,
// then the fleet).
func WriteTableCSV(w io.Writer, s *sim.Summary) error {
	cw := csv.NewWriter(w)
	cols := columns(s)
	head := make([]string, len(cols))
	for i, c := range cols {
		head[i] = c.head
	}
	cw.Write(head)
	for _, r := range tableRows(s, cols) {
		cw.Write(r)
	}
	cw.Flush()
	return cw.Error()
}
