package export

import (
	"bytes"
	"fmt"
	"html/template"
	"regexp"
	"strings"
)

// Report is a self-contained HTML report: metadata, tables and figures,
// drawn as inline SVG with inline CSS. It references nothing outside the
// file (no script, font, style sheet or image URL), so it opens with no
// network and prints as it shows (docs/report.md).
type Report struct {
	Title    string
	Subtitle string
	// Meta is the run's metadata, shown as a two-column table.
	Meta     [][2]string
	Sections []ReportSection
}

// ReportSection is a titled part of a report.
type ReportSection struct {
	ID      string // anchor, [a-z0-9-]
	Title   string
	Notes   []string      // paragraphs of plain text
	Blocks  []ReportBlock // preformatted text and tables, in order
	Tables  []ReportTable
	Figures []ReportFigure
}

// ReportBlock is preformatted text (Pre) or a table.
type ReportBlock struct {
	Pre   string
	Table *ReportTable
}

// ReportTable is a table of text cells; Numeric marks the columns aligned
// right.
type ReportTable struct {
	Caption string
	Head    []string
	Rows    [][]string
	Numeric []bool
}

// ReportFigure is a figure of a report and its caption.
type ReportFigure struct {
	Figure  Figure
	Caption string
}

// renderedFigure is a figure ready for the template.
type renderedFigure struct {
	ID      string
	Title   string
	SVG     template.HTML
	Legend  []LegendEntry
	Caption string
}

type renderedSection struct {
	ReportSection
	Rendered []renderedFigure
}

// svgHead matches what precedes the <svg element in gonum's output (XML
// declaration, generator comment); svgNS the namespace attributes, which
// inline SVG in HTML does not need (and which would be the file's only
// URLs).
var (
	svgHead = regexp.MustCompile(`(?s)\A.*?<svg `)
	svgNS   = regexp.MustCompile(`\s+xmlns(:xlink)?="[^"]*"`)
	svgSize = regexp.MustCompile(`\A<svg width="[^"]*" height="[^"]*"`)
)

// inlineSVG renders f as SVG fit for inclusion in HTML: no XML prologue, no
// namespace URLs, sized by its container (the viewBox keeps the ratio).
func inlineSVG(f Figure) (string, error) {
	b, err := f.Render("svg")
	if err != nil {
		return "", err
	}
	s := svgHead.ReplaceAllString(string(b), "<svg ")
	s = svgNS.ReplaceAllString(s, "")
	s = svgSize.ReplaceAllString(s, `<svg role="img" aria-label="`+template.HTMLEscapeString(f.Title)+`"`)
	return strings.TrimSpace(s), nil
}

// HTML renders the report.
func (r *Report) HTML() ([]byte, error) {
	data := struct {
		*Report
		Secs []renderedSection
	}{Report: r}
	n := 0
	for _, s := range r.Sections {
		rs := renderedSection{ReportSection: s}
		for _, f := range s.Figures {
			n++
			fig := f.Figure
			fig.NoLegend = true
			svg, err := inlineSVG(fig)
			if err != nil {
				return nil, err
			}
			rs.Rendered = append(rs.Rendered, renderedFigure{
				ID: fmt.Sprintf("fig-%d", n), Title: fig.Title, SVG: template.HTML(svg),
				Legend: fig.Legend(), Caption: f.Caption,
			})
		}
		data.Secs = append(data.Secs, rs)
	}
	var b bytes.Buffer
	if err := reportTemplate.Execute(&b, data); err != nil {
		return nil, fmt.Errorf("export: report: %w", err)
	}
	return b.Bytes(), nil
}

// WriteReportFile writes r as HTML to path (atomically).
func WriteReportFile(path string, r *Report) error {
	b, err := r.HTML()
	if err != nil {
		return err
	}
	return WriteFileAtomic(path, b)
}

var reportTemplate = template.Must(template.New("report").Funcs(template.FuncMap{
	"num": func(cols []bool, i int) bool { return i < len(cols) && cols[i] },
}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8"/>
<meta name="viewport" content="width=device-width, initial-scale=1"/>
<title>{{.Title}}</title>
<style>
:root { color-scheme: light; }
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 1060px; padding: 24px 28px 48px; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Liberation Sans", sans-serif; color: #1b1b1b; background: #fff; }
h1 { font-size: 26px; margin: 0 0 4px; }
h2 { font-size: 20px; margin: 36px 0 8px; padding-bottom: 4px; border-bottom: 2px solid #d8dde3; }
.sub { color: #555; margin: 0 0 16px; }
nav ol { margin: 6px 0 0; padding-left: 22px; columns: 2; }
nav a { color: #1f5fa8; text-decoration: none; }
p.note { color: #333; margin: 6px 0; }
.tw { overflow-x: auto; margin: 10px 0 18px; }
table { border-collapse: collapse; font-size: 13.5px; font-variant-numeric: tabular-nums; }
caption { text-align: left; font-weight: 600; padding: 4px 0; white-space: nowrap; }
th, td { padding: 4px 9px; border-bottom: 1px solid #e3e6ea; vertical-align: top; }
th { background: #f3f5f7; text-align: left; white-space: nowrap; }
td.n, th.n { text-align: right; white-space: nowrap; }
table.meta th { width: 13em; background: none; font-weight: 600; }
table.meta td { word-break: break-word; }
figure { margin: 18px 0 30px; break-inside: avoid; page-break-inside: avoid; }
figure .plot svg { display: block; width: 100%; height: auto; max-width: 900px; }
figcaption { margin-top: 6px; font-size: 13.5px; color: #333; max-width: 900px; }
figcaption .t { font-weight: 600; color: #1b1b1b; }
ul.legend { list-style: none; margin: 4px 0 6px; padding: 0; display: flex; flex-wrap: wrap; gap: 4px 18px; }
ul.legend li { display: inline-flex; align-items: center; gap: 6px; }
ul.legend svg { width: 30px; height: 12px; flex: none; }
pre { font: 12.5px/1.45 ui-monospace, "DejaVu Sans Mono", "Liberation Mono", monospace; background: #f6f8fa; padding: 10px 12px; overflow-x: auto; white-space: pre; }
footer { margin-top: 40px; color: #666; font-size: 13px; }
@media print {
  @page { size: A4; margin: 14mm; }
  body { max-width: none; padding: 0; font-size: 10.5pt; }
  nav { display: none; }
  h2 { break-after: avoid; page-break-after: avoid; }
  figure .plot svg { max-width: 100%; }
  .tw { overflow: visible; }
  table { font-size: 8.5pt; }
  pre { white-space: pre-wrap; font-size: 8pt; }
  a { color: inherit; }
}
</style>
</head>
<body>
<header>
<h1>{{.Title}}</h1>
{{if .Subtitle}}<p class="sub">{{.Subtitle}}</p>{{end}}
</header>
<nav><strong>Contents</strong><ol>{{if .Meta}}<li><a href="#run">Run</a></li>{{end}}{{range .Secs}}<li><a href="#{{.ID}}">{{.Title}}</a></li>{{end}}</ol></nav>
{{if .Meta}}<section id="run"><h2>Run</h2>
<div class="tw"><table class="meta"><tbody>{{range .Meta}}<tr><th scope="row">{{index . 0}}</th><td>{{index . 1}}</td></tr>{{end}}</tbody></table></div>
</section>{{end}}
{{range .Secs}}<section id="{{.ID}}"><h2>{{.Title}}</h2>
{{range .Notes}}<p class="note">{{.}}</p>
{{end}}{{range .Blocks}}{{if .Table}}{{template "table" .Table}}{{else}}<pre>{{.Pre}}</pre>
{{end}}{{end}}{{range .Tables}}{{template "table" .}}{{end}}{{range .Rendered}}<figure id="{{.ID}}">
<div class="plot">{{.SVG}}</div>
<figcaption><ul class="legend">{{range .Legend}}<li><svg viewBox="0 0 30 12" aria-hidden="true">{{if .Scatter}}<circle cx="15" cy="6" r="3.5" fill="{{.Color}}"/>{{else}}<line x1="1" y1="6" x2="29" y2="6" stroke="{{.Color}}" stroke-width="{{if .Dashed}}2{{else}}3{{end}}"{{if .Dashed}} stroke-dasharray="6 3"{{end}}/>{{end}}</svg>{{.Name}}</li>{{end}}</ul>
<span class="t">{{.Title}}.</span> {{.Caption}}</figcaption>
</figure>
{{end}}</section>
{{end}}<footer>Written by fleetsim. Self-contained: no script, no network access; figures are inline SVG.</footer>
</body>
</html>
{{define "table"}}{{$t := .}}<div class="tw"><table>{{if .Caption}}<caption>{{.Caption}}</caption>{{end}}
<thead><tr>{{range $i, $h := .Head}}<th scope="col"{{if num $t.Numeric $i}} class="n"{{end}}>{{$h}}</th>{{end}}</tr></thead>
<tbody>{{range .Rows}}<tr>{{range $i, $c := .}}<td{{if num $t.Numeric $i}} class="n"{{end}}>{{$c}}</td>{{end}}</tr>
{{end}}</tbody></table></div>
{{end}}`))
