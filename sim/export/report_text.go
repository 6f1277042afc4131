package export

import (
	"strconv"
	"strings"
)

// TextReport is the report of a command whose results are text on stdout
// (size, validate, capacity, optimize, experiment): its Markdown tables
// become HTML tables (numbers aligned right), "#" headings start sections,
// and other text is kept as preformatted blocks, in order. meta is the
// metadata table (the command line, the version).
func TextReport(title string, meta [][2]string, text string) *Report {
	r := &Report{Title: title, Meta: meta}
	cur := &ReportSection{ID: "output", Title: "Output"}
	var pre []string
	flushPre := func() {
		if t := strings.TrimRight(strings.Join(pre, "\n"), "\n "); strings.TrimSpace(t) != "" {
			cur.Blocks = append(cur.Blocks, ReportBlock{Pre: t})
		}
		pre = nil
	}
	flushSection := func() {
		flushPre()
		if len(cur.Blocks) > 0 || len(cur.Tables) > 0 {
			r.Sections = append(r.Sections, *cur)
		}
	}
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if h, ok := strings.CutPrefix(l, "#"); ok && strings.HasPrefix(strings.TrimLeft(h, "#"), " ") {
			flushSection()
			title := strings.TrimSpace(strings.TrimLeft(h, "#"))
			cur = &ReportSection{ID: sectionID(title, len(r.Sections)), Title: title}
			continue
		}
		if isTableRow(l) && i+1 < len(lines) && isTableSep(lines[i+1]) {
			flushPre()
			t := ReportTable{Head: tableCells(l)}
			for _, c := range tableCells(lines[i+1]) {
				t.Numeric = append(t.Numeric, strings.HasSuffix(c, ":") && !strings.HasPrefix(c, ":"))
			}
			i += 2
			for ; i < len(lines) && isTableRow(lines[i]); i++ {
				t.Rows = append(t.Rows, tableCells(lines[i]))
			}
			i--
			numericColumns(&t)
			cur.Blocks = append(cur.Blocks, ReportBlock{Table: &t})
			continue
		}
		pre = append(pre, l)
	}
	flushSection()
	return r
}

func isTableRow(l string) bool {
	l = strings.TrimSpace(l)
	return len(l) > 1 && l[0] == '|' && l[len(l)-1] == '|'
}

func isTableSep(l string) bool {
	if !isTableRow(l) {
		return false
	}
	return strings.Trim(strings.TrimSpace(l), "|-: ") == ""
}

func tableCells(l string) []string {
	l = strings.TrimSpace(l)
	cells := strings.Split(l[1:len(l)-1], "|")
	for i := range cells {
		cells[i] = strings.TrimSpace(cells[i])
	}
	return cells
}

// numericColumns aligns right the columns whose every non-empty cell is a
// number (or "-").
func numericColumns(t *ReportTable) {
	for j := range t.Head {
		num, any := true, false
		for _, r := range t.Rows {
			if j >= len(r) || r[j] == "" || r[j] == "-" {
				continue
			}
			any = true
			if strings.Trim(r[j], "0123456789.,+-eE%×x ") != "" {
				num = false
			}
		}
		for len(t.Numeric) <= j {
			t.Numeric = append(t.Numeric, false)
		}
		t.Numeric[j] = t.Numeric[j] || (num && any)
	}
}

// sectionID is an anchor for a heading.
func sectionID(title string, n int) string {
	var b strings.Builder
	for _, c := range strings.ToLower(title) {
		switch {
		case c >= 'a' && c <= 'z' || c >= '0' && c <= '9':
			b.WriteRune(c)
		case b.Len() > 0 && !strings.HasSuffix(b.String(), "-"):
			b.WriteByte('-')
		}
	}
	id := strings.Trim(b.String(), "-")
	if id == "" {
		id = "section"
	}
	return id + "-" + strconv.Itoa(n)
}
