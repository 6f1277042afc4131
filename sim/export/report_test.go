package export

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/fleetsim/fleetsim/sim"
	"github.com/fleetsim/fleetsim/workload"
)

// checkReportHTML checks that b is a self-contained report: well-formed
// (the template writes XML-compatible HTML, so a strict XML parser reads it
// to the end with every element closed), nfig <figure> elements each holding
// an inline <svg> with a viewBox, no external reference (no URL scheme, no
// src/href to anything but an in-page anchor, no script, no CSS url()), and
// bounded in size.
func checkReportHTML(t *testing.T, b []byte, nfig int) {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(b))
	d.Strict = true
	d.Entity = xml.HTMLEntity
	var stack []string
	figs, svgInFig := 0, 0
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("report is not well-formed: %v", err)
		}
		switch e := tok.(type) {
		case xml.StartElement:
			name := e.Name.Local
			switch name {
			case "script", "img", "iframe", "link", "object", "embed", "image", "use":
				t.Errorf("report holds a <%s> element", name)
			case "figure":
				figs++
			case "svg":
				if len(stack) > 1 && stack[len(stack)-1] == "div" && stack[len(stack)-2] == "figure" {
					svgInFig++
					ok := false
					for _, a := range e.Attr {
						ok = ok || a.Name.Local == "viewBox"
					}
					if !ok {
						t.Errorf("figure %d: <svg> without a viewBox", figs)
					}
				}
			}
			for _, a := range e.Attr {
				if (a.Name.Local == "href" || a.Name.Local == "src") && !strings.HasPrefix(a.Value, "#") {
					t.Errorf("<%s %s=%q>: an external reference", name, a.Name.Local, a.Value)
				}
			}
			stack = append(stack, name)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		}
	}
	if len(stack) != 0 {
		t.Errorf("unclosed elements: %v", stack)
	}
	if figs != nfig || svgInFig != nfig {
		t.Errorf("%d figures, %d with an inline svg; want %d", figs, svgInFig, nfig)
	}
	for _, bad := range []string{"http://", "https://", "url(", "@import", "<script"} {
		if bytes.Contains(b, []byte(bad)) {
			t.Errorf("report contains %q", bad)
		}
	}
	if len(b) > 3<<20 {
		t.Errorf("report is %d bytes, more than 3 MiB", len(b))
	}
}

// collectRun runs a small two-pool scenario (with rejections: a request
// longer than both pools) into a collector.
func collectRun(t *testing.T) (*RunCollector, *sim.Summary) {
	t.Helper()
	cfg := sim.Defaults()
	cfg.Timing = "kv"
	cfg.Workload = workload.Spec{CDF: "azure", Rate: 400, Requests: 4000}
	cfg.Pools = []sim.PoolConfig{{Name: "short", GPU: "a100", Count: 4, MaxContext: 4096}, {Name: "long", GPU: "a100", Count: 6, MaxContext: 8192}}
	src, err := workload.NewSource(cfg.Workload, cfg.Seed)
	if err != nil {
		t.Fatal(err)
	}
	c := NewRunCollector()
	s, err := sim.Run(cfg, src, c, sim.Options{Series: sim.SeriesOptions{Sink: c, IntervalS: 0.25}})
	if err != nil {
		t.Fatal(err)
	}
	s.Version = "test"
	return c, s
}

// TestRunReportHTML: the report of a simulate run is self-contained and
// well-formed, with its 10 figures (4 distributions, 6 over time), and
// escapes text it is given.
func TestRunReportHTML(t *testing.T) {
	c, s := collectRun(t)
	r := c.Report(s, "fleetsim simulate <test> & co", "out", "requests.parquet")
	b, err := r.HTML()
	if err != nil {
		t.Fatal(err)
	}
	checkReportHTML(t, b, 10)
	if !bytes.Contains(b, []byte("fleetsim simulate &lt;test&gt; &amp; co")) {
		t.Error("the command is not escaped in the metadata table")
	}
	if !bytes.Contains(b, []byte("@media print")) {
		t.Error("no print rules")
	}
}

// TestSeriesThinning: a long time series is merged two by two past
// maxSeriesPoints, keeping the counts' sums and the queue's maximum.
func TestSeriesThinning(t *testing.T) {
	c := NewRunCollector()
	var arr int64
	qmax := int64(0)
	n := 5*maxSeriesPoints + 3
	for k := range n {
		q := int64(k % 97)
		qmax = max(qmax, q)
		rows := []sim.SeriesRow{
			{Interval: int64(k), StartS: float64(k), EndS: float64(k + 1), Pool: "a", PoolIndex: 0, Arrivals: 2, Queue: q, KVBlocksTotal: 10},
			{Interval: int64(k), StartS: float64(k), EndS: float64(k + 1), Pool: "fleet", PoolIndex: -1, Arrivals: 2, Queue: q, KVBlocksTotal: 10},
		}
		arr += 2
		c.WriteSeries(rows)
	}
	pts := c.series[0]
	// Halvings at 2,049, 4,097 and 8,193 intervals (each when the points
	// reach 2,049): 8 intervals per point, ceil(10,243/8) = 1,281 points.
	if len(pts) != 1281 || c.merged != 8 {
		t.Fatalf("%d points, %d intervals per point; want 1281 points, 8 per point", len(pts), c.merged)
	}
	var sum int64
	var mx float64
	for _, p := range pts {
		sum += p.arrivals
		mx = max(mx, p.queueMax)
	}
	if sum != arr || mx != float64(qmax) || pts[0].startS != 0 || pts[len(pts)-1].endS != float64(n) {
		t.Errorf("arrivals %d (want %d), queue max %v (want %d), span [%v, %v] (want [0, %d])", sum, arr, mx, qmax, pts[0].startS, pts[len(pts)-1].endS, n)
	}
}

// TestTextReport: a command's stdout becomes sections (at "#" headings),
// Markdown tables (numeric columns aligned right) and preformatted text, in
// order; the HTML is self-contained and well-formed.
func TestTextReport(t *testing.T) {
	text := "fleet of 3 pools\n\n| pool | gpus | note |\n|---|---:|---|\n| a | 4 | x |\n| b | 12 | y |\nafter the table\n# Second part\nmore <text> & co\n"
	r := TextReport("t", [][2]string{{"written by", "test"}}, text)
	if len(r.Sections) != 2 || r.Sections[1].Title != "Second part" {
		t.Fatalf("sections %+v", r.Sections)
	}
	b0 := r.Sections[0].Blocks
	if len(b0) != 3 || b0[0].Pre != "fleet of 3 pools" || b0[1].Table == nil || b0[2].Pre != "after the table" {
		t.Fatalf("blocks %+v", b0)
	}
	tb := b0[1].Table
	if len(tb.Rows) != 2 || tb.Rows[1][1] != "12" || tb.Numeric[0] || !tb.Numeric[1] || tb.Numeric[2] {
		t.Errorf("table %+v", tb)
	}
	b, err := r.HTML()
	if err != nil {
		t.Fatal(err)
	}
	checkReportHTML(t, b, 0)
	if !bytes.Contains(b, []byte("more &lt;text&gt; &amp; co")) {
		t.Error("text not escaped")
	}
}

// TestCollectorKeepsFirstByID: records in any order, the collector keeps
// the firstRecords smallest ids, sorted.
func TestCollectorKeepsFirstByID(t *testing.T) {
	c := NewRunCollector()
	for _, id := range []int64{50, 3, 99, 7, 1, 42, 0, 13, 8, 2, 77, 5, 4, 6, 100} {
		c.AddRecord(&sim.Record{ID: id, Pool: "a", Rejected: true})
	}
	var got []int64
	for _, r := range c.first {
		got = append(got, r.ID)
	}
	want := []int64{0, 1, 2, 3, 4, 5, 6, 7, 8, 13}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("kept ids %v, want %v", got, want)
	}
}
