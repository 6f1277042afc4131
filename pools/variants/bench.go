package variants

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// BenchRow is one benchmark measurement (the seed's columns).
type BenchRow struct {
	Model     string  // mm
	HW        string  // hw
	Precision string  // prec
	Batch     float64 // bb, requests in the batch
	ITL       float64 // itl, ms
	THP       float64 // thp, tokens/s (informational)
	DP, TP    int     // dp, tp
	In        float64 // in: prompt tokens per request (optional column)
	Prefill   float64 // prefill (or ttft) time of the batch, ms (optional column)
	HasPre    bool    // the row has in and prefill values
	Line      int     // line in the file
}

// BenchGroup is the rows of one (model, hardware, precision, tp) group.
type BenchGroup struct {
	Model, HW, Precision string
	TP                   int
	Rows                 []BenchRow
}

// Name returns the group's label "model/hw/prec/tpN".
func (g BenchGroup) Name() string {
	return fmt.Sprintf("%s/%s/%s/tp%d", g.Model, g.HW, g.Precision, g.TP)
}

// benchLimits bounds the benchmark's numeric columns beyond ">= 0", so that
// a fit stays finite and its profile valid: batch sizes and prompt lengths
// are whole numbers within a profile's limits, times at most MaxProfileMs.
var benchLimits = map[string]struct {
	max     float64
	whole   bool
	allowed string
}{
	"bb":      {MaxBatchLimit, true, fmt.Sprintf("a batch size is a whole number 1 to %d", MaxBatchLimit)},
	"in":      {1 << 24, true, fmt.Sprintf("prompt tokens: a whole number 0 to %d", 1<<24)},
	"itl":     {MaxProfileMs, false, fmt.Sprintf("must be a number of ms in [0, %g]", MaxProfileMs)},
	"prefill": {MaxProfileMs, false, fmt.Sprintf("must be a number of ms in [0, %g]", MaxProfileMs)},
	"ttft":    {MaxProfileMs, false, fmt.Sprintf("must be a number of ms in [0, %g]", MaxProfileMs)},
}

// MaxBenchRows bounds a benchmark file.
const MaxBenchRows = 1_000_000

// ReadBench reads a benchmark CSV with a header naming the columns mm, hw,
// prec, bb, itl (required), thp, dp, tp (optional; tp defaults to 1) and,
// for the prefill fit, in and prefill (or ttft, not both), both optional. It
// returns the groups in order of first appearance. A column named twice, a
// row that does not parse, or a row with only one of in and prefill, or
// with prefill for in = 0, is an error naming its line and column.
func ReadBench(r io.Reader) ([]BenchGroup, error) {
	cr := csv.NewReader(r)
	cr.TrimLeadingSpace = true
	head, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, bad("benchmark", "empty", "the file has no header (want columns mm, hw, prec, bb, itl)")
	}
	if err != nil {
		return nil, fmt.Errorf("benchmark: %s", oneLine(err.Error()))
	}
	col := map[string]int{}
	for i, h := range head {
		name := strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))
		if j, dup := col[name]; dup && name != "" {
			return nil, bad("benchmark header", strings.Join(head, ","), "column %q is given twice (columns %d and %d); name each column once", name, j+1, i+1)
		}
		col[name] = i
	}
	for _, c := range []string{"mm", "hw", "prec", "bb", "itl"} {
		if _, ok := col[c]; !ok {
			return nil, bad("benchmark header", strings.Join(head, ","), "missing column %q (need mm, hw, prec, bb, itl)", c)
		}
	}
	preName := "prefill"
	if _, ok := col[preName]; !ok {
		preName = "ttft"
	} else if _, ok := col["ttft"]; ok {
		return nil, bad("benchmark header", strings.Join(head, ","), "has both prefill and ttft; give one of them (the prefill time of the batch, ms)")
	}
	if hasCol(col, "in") != hasCol(col, preName) {
		return nil, bad("benchmark header", strings.Join(head, ","), "the prefill fit needs both an in column and a prefill (or ttft) column; give both or neither")
	}
	var groups []BenchGroup
	index := map[string]int{}
	line := 1
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		line++
		if err != nil {
			return nil, fmt.Errorf("benchmark: %s", oneLine(err.Error()))
		}
		if line > MaxBenchRows {
			return nil, bad("benchmark", line, "more than %d rows", MaxBenchRows)
		}
		row := BenchRow{Line: line, TP: 1, DP: 1}
		get := func(c string) string {
			if i, ok := col[c]; ok && i < len(rec) {
				return strings.TrimSpace(rec[i])
			}
			return ""
		}
		num := func(c string, dst *float64, need bool) error {
			s := get(c)
			if s == "" && !need {
				return nil
			}
			v, err := strconv.ParseFloat(s, 64)
			if err != nil || !finite(v) || v < 0 {
				return bad(fmt.Sprintf("line %d: %s", line, c), s, "must be a finite number >= 0")
			}
			if lim, ok := benchLimits[c]; ok && (v > lim.max || (lim.whole && v != math.Trunc(v))) {
				return bad(fmt.Sprintf("line %d: %s", line, c), s, "%s", lim.allowed)
			}
			*dst = v
			return nil
		}
		integer := func(c string, dst *int) error {
			s := get(c)
			if s == "" {
				return nil
			}
			v, err := strconv.Atoi(s)
			if err != nil || v < 1 {
				return bad(fmt.Sprintf("line %d: %s", line, c), s, "must be an integer >= 1")
			}
			*dst = v
			return nil
		}
		row.Model, row.HW, row.Precision = get("mm"), get("hw"), get("prec")
		if row.Model == "" || row.HW == "" {
			return nil, bad(fmt.Sprintf("line %d: mm/hw", line), row.Model+"/"+row.HW, "model and hardware must be named")
		}
		for _, e := range []error{num("bb", &row.Batch, true), num("itl", &row.ITL, true), num("thp", &row.THP, false),
			integer("dp", &row.DP), integer("tp", &row.TP)} {
			if e != nil {
				return nil, e
			}
		}
		if row.Batch < 1 {
			return nil, bad(fmt.Sprintf("line %d: bb", line), row.Batch, "the batch size must be >= 1")
		}
		switch hasIn, hasPre := get("in") != "", get(preName) != ""; {
		case hasIn && hasPre:
			if err := num("in", &row.In, true); err != nil {
				return nil, err
			}
			if err := num(preName, &row.Prefill, true); err != nil {
				return nil, err
			}
			if row.In < 1 {
				return nil, bad(fmt.Sprintf("line %d: in", line), get("in"), "a row with a %s time needs a prompt of 1 to %d tokens (prefill is fitted against in·bb)", preName, 1<<24)
			}
			row.HasPre = true
		case hasIn != hasPre:
			return nil, bad(fmt.Sprintf("line %d: in/%s", line, preName), get("in")+"/"+get(preName), "give both (prompt tokens and the prefill time, ms) or neither")
		}
		key := fmt.Sprintf("%s\x00%s\x00%s\x00%d", row.Model, row.HW, row.Precision, row.TP)
		i, ok := index[key]
		if !ok {
			i = len(groups)
			index[key] = i
			groups = append(groups, BenchGroup{Model: row.Model, HW: row.HW, Precision: row.Precision, TP: row.TP})
		}
		groups[i].Rows = append(groups[i].Rows, row)
	}
	if len(groups) == 0 {
		return nil, bad("benchmark", "no rows", "the file has a header but no measurements")
	}
	return groups, nil
}

func hasCol(col map[string]int, name string) bool {
	_, ok := col[name]
	return ok
}

// FitGroup fits a group's decode line (itl against bb) and, when its rows
// have prefill values, its prefill line (prefill against in·bb). A negative
// decode slope or base is an error (the queue model needs ITL to grow with
// the batch), and so are prefill values that give no line (fewer than two
// distinct in·bb) or a negative γ or δ: they are never dropped silently.
func FitGroup(g BenchGroup, source string) (Profile, error) {
	var x, y, xp, yp []float64
	for _, r := range g.Rows {
		x = append(x, r.Batch)
		y = append(y, r.ITL)
		if r.HasPre {
			xp = append(xp, r.In*r.Batch)
			yp = append(yp, r.Prefill)
		}
	}
	p := Profile{Name: g.Name(), Model: g.Model, Accelerator: g.HW, Precision: g.Precision, TP: g.TP}
	d, err := FitLine(x, y, g.Name()+": bb")
	if err != nil {
		return p, err
	}
	if d.Slope < 0 {
		return p, bad(g.Name()+": beta_ms", d.Slope, "the fitted ITL falls with the batch size (β < 0); the model needs β >= 0")
	}
	if d.Intercept <= 0 {
		return p, bad(g.Name()+": alpha_ms", d.Intercept, "the fitted ITL at batch 0 is not positive (α <= 0); the model needs α > 0")
	}
	p.Alpha, p.Beta = d.Intercept, d.Slope
	p.Fit = &FitReport{Source: source, Decode: d}
	if len(xp) > 0 {
		// Prefill data that cannot be fitted is an error, not a profile
		// with γ = δ = 0 (no prefill cost) beside a note "no columns".
		pf, err := FitLine(xp, yp, g.Name()+": prefill against in*bb")
		switch {
		case err != nil:
			return p, err
		case pf.Slope < 0:
			return p, bad(g.Name()+": delta_ms", pf.Slope, "the fitted prefill time falls with in·bb (δ < 0); the model needs δ >= 0 (or drop the in/prefill values to fit decode only)")
		case pf.Intercept < 0:
			return p, bad(g.Name()+": gamma_ms", pf.Intercept, "the fitted prefill time at in·bb = 0 is negative (γ < 0); the model needs γ >= 0 (or drop the in/prefill values to fit decode only)")
		}
		p.Gamma, p.Delta = pf.Intercept, pf.Slope
		p.Fit.Prefill = &pf
	}
	return p, nil
}
