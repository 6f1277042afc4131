package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fleetsim/fleetsim/sim/export"
	"github.com/fleetsim/fleetsim/sim/sweep"
)

// TestReportCommand: 'fleetsim report DIR' of a simulate directory draws
// the same figures as simulate --report; of a sweep directory the same as
// sweep --report; a directory of neither kind is bad input.
func TestReportCommand(t *testing.T) {
	dir := t.TempDir()
	run, sw := filepath.Join(dir, "run"), filepath.Join(dir, "sw")
	if code, _, stderr := runCLI(t, append(append([]string{}, smallRun...), "--out", run, "--report", filepath.Join(dir, "sim.html"))...); code != 0 {
		t.Fatalf("simulate: exit %d: %s", code, stderr)
	}
	if code, _, stderr := runCLI(t, sweepArgs(sw, "--rates", "20,40", "--report", filepath.Join(dir, "sweep.html"))...); code != 0 {
		t.Fatalf("sweep: exit %d: %s", code, stderr)
	}
	for _, c := range []struct{ dir, want string }{{run, "sim.html"}, {sw, "sweep.html"}} {
		code, stdout, stderr := runCLI(t, "report", c.dir)
		if code != 0 {
			t.Fatalf("report %s: exit %d: %s", c.dir, code, stderr)
		}
		got := readBytes(t, filepath.Join(c.dir, reportHTMLFile))
		want := readBytes(t, filepath.Join(dir, c.want))
		if !strings.Contains(stdout, reportHTMLFile) || figures(got) != figures(want) || figures(got) == "" {
			t.Errorf("report %s: its figures differ from %s's", c.dir, c.want)
		}
	}
	code, _, stderr := runCLI(t, "report", dir)
	if code != 2 || !strings.Contains(stderr, "not a fleetsim simulate or sweep output directory") {
		t.Errorf("report of an unrelated directory: exit %d, %q", code, stderr)
	}
}

// figures is the report's figures (from the first <figure>, captions and
// legends included).
func figures(b []byte) string {
	i := bytes.Index(b, []byte("<figure"))
	if i < 0 {
		return ""
	}
	return string(b[i:])
}

// TestSweepParquetMetadataAndNulls: sweep.parquet carries requests.parquet's
// created_by and key-value metadata (version, seed, base scenario) plus the
// grid's axes, and NULL where a key does not apply (gpu, max_ctx, slots of
// the fleet rows; b_short and gamma left to the router's default).
func TestSweepParquetMetadataAndNulls(t *testing.T) {
	out := filepath.Join(t.TempDir(), "s")
	if code, _, stderr := runCLI(t, sweepArgs(out, "--rates", "20,40")...); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	p := filepath.Join(out, sweepFile)
	by, meta, err := export.ReadFileInfo(p)
	if err != nil {
		t.Fatal(err)
	}
	if by != "fleetsim version "+version || meta[export.MetaVersion] != version || meta[export.MetaSeed] != "1" {
		t.Errorf("created_by %q, metadata %v", by, meta)
	}
	var axes []sweep.Axis
	if err := json.Unmarshal([]byte(meta[export.MetaAxes]), &axes); err != nil || len(axes) != 1 || axes[0].Key != "rate" {
		t.Errorf("axes metadata %q: %v", meta[export.MetaAxes], err)
	}
	var scen map[string]any
	if err := json.Unmarshal([]byte(meta[export.MetaScenario]), &scen); err != nil || scen["pools"] == nil {
		t.Errorf("scenario metadata %q: %v", meta[export.MetaScenario], err)
	}
	nulls, err := export.ParquetNullCounts(p)
	if err != nil {
		t.Fatal(err)
	}
	// 2 points: 2 fleet rows and 4 pool rows.
	for col, want := range map[string]int64{"gpu": 2, "max_ctx": 2, "slots": 2, "b_short": 6, "gamma": 6, "pool": 0, "ttft_p99_s": 0} {
		if nulls[col] != want {
			t.Errorf("column %s: %d NULLs, want %d", col, nulls[col], want)
		}
	}
}

// TestTextCommandReport: plan --report FILE writes stdout's tables as a
// well-formed HTML report, leaves stdout as without it, and a bad FILE is
// bad input.
func TestTextCommandReport(t *testing.T) {
	dir := t.TempDir()
	_, want, _ := runCLI(t, "plan")
	rep := filepath.Join(dir, "sub", "plan.html")
	code, stdout, stderr := runCLI(t, "plan", "--report", rep)
	if code != 0 || stdout != want || !strings.Contains(stderr, "wrote "+rep) {
		t.Fatalf("exit %d, stderr %q; stdout same as without --report: %v", code, stderr, stdout == want)
	}
	b := readBytes(t, rep)
	d := xml.NewDecoder(bytes.NewReader(b))
	d.Strict, d.Entity = true, xml.HTMLEntity
	for {
		if _, err := d.Token(); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("report not well-formed: %v", err)
		}
	}
	if !bytes.Contains(b, []byte("<table")) && !bytes.Contains(b, []byte("<pre")) {
		t.Error("report holds neither a table nor preformatted text")
	}
	if code, _, stderr := runCLI(t, "plan", "--report", filepath.Join(dir, "plan.txt")); code != 2 || !strings.Contains(stderr, "--report") {
		t.Errorf("--report plan.txt: exit %d, %q", code, stderr)
	}
}

// TestReportFlagInHelp: --report FILE worked on plan, size, validate,
// capacity, optimize and experiment but none of their --help listed it.
func TestReportFlagInHelp(t *testing.T) {
	for _, name := range textReportCommands {
		code, stdout, stderr := runCLI(t, name, "--help")
		if code != 0 || !strings.Contains(stdout, "--report FILE") {
			t.Errorf("fleetsim %s --help: exit %d, no --report FILE in its flags (stderr %q)", name, code, stderr)
		}
	}
}

// TestTextReportOfEmptyStdout: plan -o FILE --report r.html printed nothing
// on stdout, and the report was its metadata alone, without a word; it now
// says where the output went.
func TestTextReportOfEmptyStdout(t *testing.T) {
	dir := t.TempDir()
	rep := filepath.Join(dir, "plan.html")
	code, _, stderr := runCLI(t, "plan", "-o", filepath.Join(dir, "plan.md"), "--report", rep)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if b := readBytes(t, rep); !bytes.Contains(b, []byte("printed nothing on stdout")) {
		t.Errorf("report of an empty stdout does not say so:\n%s", b[bytes.LastIndex(b, []byte("</style>")):])
	}
}
