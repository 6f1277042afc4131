// Package experiments reproduces the papers' tables: one file per table,
// each returning Tables in which the value we compute stands beside the
// paper's number with the difference (absolute and relative). Nothing on
// "our" side is hard-coded: it comes from the planner (package pools), the
// router (package router) or the simulator (package sim). docs/experiments.md
// shows the current output and explains every difference.
//
// Output formats are Markdown, JSON and CSV; tables that are curves carry
// Figures, which sim/export draws (WriteReport).
package experiments

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/fleetsim/fleetsim/sim/export"
)

// Num is a numeric cell printed with a fixed number of decimals in Markdown
// and CSV. In JSON it is the full-precision number.
type Num struct {
	V      float64
	Digits int // decimals in Markdown/CSV
}

// MarshalJSON writes the value as a JSON number (null when not finite).
func (n Num) MarshalJSON() ([]byte, error) {
	if math.IsNaN(n.V) || math.IsInf(n.V, 0) {
		return []byte("null"), nil
	}
	return json.Marshal(n.V)
}

func (n Num) String() string {
	if math.IsNaN(n.V) || math.IsInf(n.V, 0) {
		return "—"
	}
	s := strconv.FormatFloat(n.V, 'f', n.Digits, 64)
	if strings.Trim(s, "-0.") == "" {
		s = strings.TrimPrefix(s, "-") // no "-0.000"
	}
	return s
}

// Table is one reproduced table. Rows hold cells of type string, int, Num
// or nil (missing: the paper gives no number, or a difference is undefined).
type Table struct {
	Name    string   `json:"name"`   // experiment name, e.g. "fleetopt-table3"
	Title   string   `json:"title"`  // what the table shows
	Source  string   `json:"source"` // paper and table it reproduces
	Columns []string `json:"columns"`
	Rows    [][]any  `json:"rows"`
	Notes   []string `json:"notes,omitempty"`
	// Figures are the table drawn as charts (experiment all --out writes
	// them as PNG and SVG; the text formats leave them out).
	Figures []export.Figure `json:"-"`
}

// CompareColumns are the four columns every comparison ends with: our value,
// the paper's, ours − paper, and 100·(ours − paper)/paper.
var CompareColumns = []string{"ours", "paper", "diff", "diff %"}

// Compare returns the cells ours, paper, ours − paper and the relative
// difference in percent, with the given decimals. A NaN paper value (the
// paper gives none) leaves paper and both differences empty; a zero paper
// value leaves the relative difference empty.
func Compare(ours, paper float64, digits int) []any {
	o := Num{ours, digits}
	if math.IsNaN(paper) {
		return []any{o, nil, nil, nil}
	}
	var rel any
	if paper != 0 {
		rel = Num{100 * (ours - paper) / math.Abs(paper), 1}
	}
	return []any{o, Num{paper, digits}, Num{ours - paper, digits}, rel}
}

// CompareAbs is Compare without the relative difference (for quantities
// that are themselves percentages of a difference, where a ratio of two
// errors means nothing).
func CompareAbs(ours, paper float64, digits int) []any {
	c := Compare(ours, paper, digits)
	c[3] = nil
	return c
}

// row concatenates key cells and comparison cells.
func row(keys []any, cmp []any) []any { return append(append([]any{}, keys...), cmp...) }

// cellString formats one cell for Markdown and CSV.
func cellString(c any) string {
	switch v := c.(type) {
	case nil:
		return ""
	case string:
		return v
	case int:
		return strconv.Itoa(v)
	case int64:
		return strconv.FormatInt(v, 10)
	case Num:
		return v.String()
	case float64:
		return strconv.FormatFloat(v, 'g', 6, 64)
	default:
		return fmt.Sprint(v)
	}
}

// WriteMarkdown writes the tables as Markdown: a heading, the source, a
// pipe table and the notes as a list. Empty cells print as "—".
func WriteMarkdown(w io.Writer, tables []Table) error {
	var b strings.Builder
	for i, t := range tables {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "### %s\n\n", t.Title)
		if t.Source != "" {
			fmt.Fprintf(&b, "Reproduces %s (`%s`).\n\n", t.Source, t.Name)
		}
		b.WriteString("| " + strings.Join(t.Columns, " | ") + " |\n")
		b.WriteString("|")
		for j := range t.Columns {
			if j < len(t.Columns)-len(CompareColumns) || !hasCompare(t) {
				b.WriteString("---|")
			} else {
				b.WriteString("---:|")
			}
		}
		b.WriteString("\n")
		for _, r := range t.Rows {
			cells := make([]string, len(r))
			for j, c := range r {
				s := cellString(c)
				if s == "" {
					s = "—"
				}
				cells[j] = strings.ReplaceAll(s, "|", "\\|")
			}
			b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
		}
		if len(t.Notes) > 0 {
			b.WriteString("\n")
			for _, n := range t.Notes {
				b.WriteString("- " + n + "\n")
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func hasCompare(t Table) bool {
	n := len(t.Columns)
	if n < len(CompareColumns) {
		return false
	}
	for i, c := range CompareColumns {
		if t.Columns[n-len(CompareColumns)+i] != c {
			return false
		}
	}
	return true
}

// WriteJSON writes the tables as one indented JSON array.
func WriteJSON(w io.Writer, tables []Table) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if tables == nil {
		tables = []Table{}
	}
	return enc.Encode(tables)
}

// WriteCSV writes the tables as CSV, one block per table: a first column
// "table" holding the table's name, then its columns; blocks are separated
// by their own header row. Numbers are written at full precision. Notes are
// not written.
func WriteCSV(w io.Writer, tables []Table) error {
	cw := csv.NewWriter(w)
	for _, t := range tables {
		if err := cw.Write(append([]string{"table"}, t.Columns...)); err != nil {
			return err
		}
		for _, r := range t.Rows {
			rec := make([]string, 0, len(r)+1)
			rec = append(rec, t.Name)
			for _, c := range r {
				if n, ok := c.(Num); ok && !math.IsNaN(n.V) && !math.IsInf(n.V, 0) {
					rec = append(rec, strconv.FormatFloat(n.V, 'g', -1, 64)) // full precision
					continue
				}
				rec = append(rec, cellString(c))
			}
			if err := cw.Write(rec); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}
