package export

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/fleetsim/fleetsim/sim"
)

// tableColumns are the per-pool metrics shown in tables: header, unit and
// value.
var tableColumns = []struct {
	head string
	val  func(m *sim.PoolMetrics) string
}{
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
func leftAligned(i int) bool { return i <= 1 || i >= len(tableColumns)-2 }

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
func tableRows(s *sim.Summary) [][]string {
	var rows [][]string
	add := func(m *sim.PoolMetrics) {
		row := make([]string, len(tableColumns))
		for i, c := range tableColumns {
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
	rows := tableRows(s)
	width := make([]int, len(tableColumns))
	for i, c := range tableColumns {
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
			if leftAligned(i) {
				fmt.Fprintf(&b, " %-*s |", width[i], cell)
			} else {
				fmt.Fprintf(&b, " %*s |", width[i], cell)
			}
		}
		b.WriteString("\n")
	}
	head := make([]string, len(tableColumns))
	for i, c := range tableColumns {
		head[i] = c.head
	}
	line(head)
	b.WriteString("|")
	for i := range tableColumns {
		if leftAligned(i) {
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
	head := make([]string, len(tableColumns))
	for i, c := range tableColumns {
		head[i] = c.head
	}
	cw.Write(head)
	for _, r := range tableRows(s) {
		cw.Write(r)
	}
	cw.Flush()
	return cw.Error()
}
