package experiments

import (
	"fmt"
	"io"
	"strings"
)

// ReportFile is the name of the report WriteReport writes in an output
// directory (fleetsim experiment all --out DIR).
const ReportFile = "EXPERIMENTS.md"

// WriteReport writes the Markdown report of experiment all --out: a title,
// the intro paragraph, an index, then per experiment its tables (as
// WriteMarkdown), links to its CSV file NAME.csv and its figures embedded
// as NAME.png with a link to NAME.svg — the files the caller writes beside
// the report. Tables of one experiment must be consecutive.
func WriteReport(w io.Writer, tables []Table, intro string) error {
	var b strings.Builder
	b.WriteString("# fleetsim experiments: the papers' tables beside ours\n\n")
	if intro != "" {
		b.WriteString(intro + "\n\n")
	}
	groups := groupByName(tables)
	for _, g := range groups {
		fmt.Fprintf(&b, "- [`%s`](#%s) — %s\n", g[0].Name, g[0].Name, summaryOf(g[0].Name))
	}
	for _, g := range groups {
		name := g[0].Name
		fmt.Fprintf(&b, "\n<a id=\"%s\"></a>\n\n## `%s`\n\n", name, name)
		var md strings.Builder
		if err := WriteMarkdown(&md, g); err != nil {
			return err
		}
		b.WriteString(md.String())
		fmt.Fprintf(&b, "\nData: [%s.csv](%s.csv)\n", name, name)
		for _, t := range g {
			for _, f := range t.Figures {
				fmt.Fprintf(&b, "\n![%s](%s.png)\n\n(SVG: [%s.svg](%s.svg))\n", f.Title, f.Name, f.Name, f.Name)
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// groupByName splits tables into runs of the same experiment name.
func groupByName(tables []Table) [][]Table {
	var out [][]Table
	for _, t := range tables {
		if n := len(out); n > 0 && out[n-1][0].Name == t.Name {
			out[n-1] = append(out[n-1], t)
			continue
		}
		out = append(out, []Table{t})
	}
	return out
}

// GroupByName returns the tables split into runs of one experiment each,
// in order (what WriteReport writes one CSV file for).
func GroupByName(tables []Table) [][]Table { return groupByName(tables) }

func summaryOf(name string) string {
	for _, e := range All() {
		if e.Name == name {
			return e.Summary
		}
	}
	return ""
}
