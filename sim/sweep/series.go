package sweep

import (
	"math"
	"strings"
)

// Series is one line of a sweep plot: a pool (and, when several keys vary,
// the other keys' values) against the swept key. Y is the mean over the
// seed axis of the rows at each X, skipping NaN.
type Series struct {
	Name string
	X, Y []float64
}

// Metric is a plotted quantity of a row.
type Metric struct {
	Name  string // file stem, e.g. "ttft_p99"
	Label string // axis label with unit
	Log   bool   // plot on a logarithmic axis (values <= 0 are left out)
	Value func(r *Row) float64
}

// PlotMetrics are the quantities `fleetsim sweep` plots.
var PlotMetrics = []Metric{
	{"ttft_p99", "P99 TTFT (s)", true, func(r *Row) float64 { return r.Metrics.TTFT.P99 }},
	{"utilization", "slot utilization", false, func(r *Row) float64 { return r.Metrics.SlotUtilization }},
	{"cost", "cost (USD per million requests)", true, (*Row).USDPerMillion},
}

// AxisLabel is an axis key with its unit, for plots.
func AxisLabel(key string) string {
	b, pool := baseKey(key)
	l := map[string]string{
		KeyRate: "arrival rate (req/s)", KeyCount: "instances", KeyGPU: "GPU",
		KeyBShort: "B_short (tokens)", KeyGamma: "C&R γ", KeyRouter: "router", KeyTiming: "timing", KeySeed: "seed",
	}[b]
	if pool != "" {
		l += " of pool " + pool
	}
	return l
}

// XAxis picks the axis plotted along x: the first axis (other than seed)
// with more than one value, else the first axis; -1 without axes.
func XAxis(axes []Axis) int {
	for i, a := range axes {
		if a.Key != KeySeed && len(a.Values) > 1 {
			return i
		}
	}
	if len(axes) > 0 {
		return 0
	}
	return -1
}

// MakeSeries groups rows into lines for metric m against axis x: one line
// per pool (and the fleet, when it has several pools) and combination of the other non-seed axes' values,
// in first-appearance order. A numeric axis gives X its values; another
// gives X the value's position (0, 1, ...) — label it with the axis's Values.
func MakeSeries(rows []Row, axes []Axis, x int, m Metric) []Series {
	type acc struct {
		sum map[int]float64
		n   map[int]int
	}
	var order []string
	groups := map[string]*acc{}
	onePool := true
	for i := range rows {
		onePool = onePool && (rows[i].Fleet || rows[i].PoolIndex == 0)
	}
	for i := range rows {
		r := &rows[i]
		if r.Fleet && onePool {
			continue // the fleet is its only pool
		}
		name := []string{r.Pool}
		for k, a := range axes {
			if k != x && a.Key != KeySeed && len(a.Values) > 1 {
				name = append(name, a.Key+"="+r.Values[k])
			}
		}
		key := strings.Join(name, " ")
		g := groups[key]
		if g == nil {
			g = &acc{sum: map[int]float64{}, n: map[int]int{}}
			groups[key] = g
			order = append(order, key)
		}
		xi := 0
		for j, v := range axes[x].Values {
			if v == r.Values[x] {
				xi = j
			}
		}
		y := m.Value(r)
		if math.IsNaN(y) || math.IsInf(y, 0) || (m.Log && y <= 0) {
			continue
		}
		g.sum[xi] += y
		g.n[xi]++
	}
	out := make([]Series, 0, len(order))
	for _, key := range order {
		g := groups[key]
		s := Series{Name: key}
		for j := range axes[x].Values {
			if g.n[j] == 0 {
				continue
			}
			xv := float64(j)
			if axes[x].Numeric() {
				xv = axes[x].Float(j)
			}
			s.X = append(s.X, xv)
			s.Y = append(s.Y, g.sum[j]/float64(g.n[j]))
		}
		out = append(out, s)
	}
	return out
}
