package main

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/fleetsim/fleetsim/sim/export"
)

// smallRun are the flags of a small two-pool run with rejections (requests
// longer than every pool) and warm-up rows, kv timing explicit (the
// default preset may change; byte identity is checked under kv).
var smallRun = []string{"simulate", "--requests", "3000", "--rate", "600", "--seed", "7", "--timing", "kv",
	"--pool", "short:a100:4:4096", "--pool", "long:a100:6:6144"}

// TestTimeSeriesLeavesRequestsIdentical: requests.parquet and summary.json
// are byte-identical with the time series off, at the default 1 s and at
// 50 ms (boundary steps between most arrivals).
func TestTimeSeriesLeavesRequestsIdentical(t *testing.T) {
	dir := t.TempDir()
	var base []byte
	for i, iv := range []string{"off", "1s", "50ms"} {
		out := filepath.Join(dir, strconv.Itoa(i))
		code, _, stderr := runCLI(t, append(append([]string{}, smallRun...), "--out", out, "--timeseries-interval", iv)...)
		if code != 0 {
			t.Fatalf("--timeseries-interval %s: exit %d: %s", iv, code, stderr)
		}
		b := append(readBytes(t, filepath.Join(out, requestsFile)), readBytes(t, filepath.Join(out, summaryFile))...)
		_, serr := os.Stat(filepath.Join(out, seriesFile))
		if (iv == "off") != os.IsNotExist(serr) {
			t.Errorf("--timeseries-interval %s: %s exists: %v", iv, seriesFile, serr == nil)
		}
		if i == 0 {
			base = b
			continue
		}
		if !bytes.Equal(b, base) {
			t.Errorf("--timeseries-interval %s: requests.parquet or summary.json differs from the run without a time series", iv)
		}
	}
}

// TestRequestsTextEqualsParquet: requests.csv and requests.jsonl hold the
// Parquet file's rows, value for value (NULL as an empty field / null).
func TestRequestsTextEqualsParquet(t *testing.T) {
	out := t.TempDir()
	code, _, stderr := runCLI(t, append(append([]string{}, smallRun...), "--out", out, "--requests-format", "parquet,csv,jsonl")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	rows, err := export.ReadRequestRows(filepath.Join(out, requestsFile))
	if err != nil {
		t.Fatal(err)
	}
	cols := export.RowColumns()
	// want: each row as column -> text, NULL as nil.
	want := make([]map[string]any, len(rows))
	rejected, nulls := 0, 0
	for i := range rows {
		m := map[string]any{}
		v := reflect.ValueOf(rows[i])
		for j, c := range cols {
			f := v.Field(j)
			if f.Kind() == reflect.Pointer {
				if f.IsNil() {
					m[c] = nil
					nulls++
					continue
				}
				f = f.Elem()
			}
			m[c] = f.Interface()
		}
		if rows[i].Rejected {
			rejected++
		}
		want[i] = m
	}
	if rejected == 0 || nulls == 0 {
		t.Fatalf("the run has %d rejected rows and %d NULLs: the test needs both", rejected, nulls)
	}

	// CSV.
	f, err := os.Open(filepath.Join(out, requestsCSVFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(recs[0], cols) {
		t.Fatalf("CSV header %v, want %v", recs[0], cols)
	}
	if len(recs)-1 != len(rows) {
		t.Fatalf("CSV: %d rows, Parquet %d", len(recs)-1, len(rows))
	}
	for i, rec := range recs[1:] {
		for j, c := range cols {
			if !textEquals(rec[j], want[i][c]) {
				t.Fatalf("CSV row %d column %s: %q, Parquet %v", i, c, rec[j], want[i][c])
			}
		}
	}

	// JSON Lines.
	jf, err := os.Open(filepath.Join(out, requestsJSONFile))
	if err != nil {
		t.Fatal(err)
	}
	defer jf.Close()
	sc := bufio.NewScanner(jf)
	sc.Buffer(nil, 1<<20)
	n := 0
	for sc.Scan() {
		dec := json.NewDecoder(strings.NewReader(sc.Text()))
		dec.UseNumber()
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			t.Fatalf("JSONL line %d: %v", n+1, err)
		}
		if len(m) != len(cols) {
			t.Fatalf("JSONL line %d: %d keys, want %d", n+1, len(m), len(cols))
		}
		for _, c := range cols {
			var text string
			switch v := m[c].(type) {
			case nil:
				if want[n][c] != nil {
					t.Fatalf("JSONL line %d %s: null, Parquet %v", n+1, c, want[n][c])
				}
				continue
			case json.Number:
				text = v.String()
			case bool:
				text = strconv.FormatBool(v)
			case string:
				text = v
			}
			if !textEquals(text, want[n][c]) {
				t.Fatalf("JSONL line %d %s: %v, Parquet %v", n+1, c, m[c], want[n][c])
			}
		}
		n++
	}
	if n != len(rows) {
		t.Fatalf("JSONL: %d rows, Parquet %d", n, len(rows))
	}
}

// textEquals compares a text field with a Parquet value (nil: NULL, the
// empty field); numbers must read back to the same value exactly.
func textEquals(s string, v any) bool {
	switch v := v.(type) {
	case nil:
		return s == ""
	case float64:
		x, err := strconv.ParseFloat(s, 64)
		return err == nil && (x == v || math.IsNaN(x) && math.IsNaN(v))
	case int32:
		x, err := strconv.ParseInt(s, 10, 32)
		return err == nil && int32(x) == v
	case int64:
		x, err := strconv.ParseInt(s, 10, 64)
		return err == nil && x == v
	case bool:
		return s == strconv.FormatBool(v)
	case string:
		return s == v
	}
	return false
}

// TestSimulateReport: --report writes one HTML file that names every
// figure; bad --timeseries-interval / --requests-format values are refused
// with exit status 2 and no output.
func TestSimulateReport(t *testing.T) {
	dir := t.TempDir()
	out, rep := filepath.Join(dir, "run"), filepath.Join(dir, "sub", "r.html")
	code, stdout, stderr := runCLI(t, append(append([]string{}, smallRun...), "--out", out, "--report", rep)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(rep)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout, rep) || bytes.Count(b, []byte("<figure")) != 10 {
		t.Errorf("report %s: %d figures (want 10: 4 distributions, 6 over time); stdout %q", rep, bytes.Count(b, []byte("<figure")), stdout)
	}
	// The report's files row names every file of the run, the time series
	// among them (it named requests.parquet only: issue 19's review).
	if !bytes.Contains(b, []byte("<th scope=\"row\">files</th><td>requests.parquet, timeseries.parquet")) {
		t.Errorf("report %s: files row does not name timeseries.parquet", rep)
	}
	for _, bad := range [][]string{
		{"--timeseries-interval", "-1s"}, {"--timeseries-interval", "soon"},
		{"--requests-format", "xml"}, {"--report", filepath.Join(dir, "r.pdf")},
	} {
		o := filepath.Join(dir, "bad")
		code, _, stderr := runCLI(t, append(append([]string{}, smallRun...), append([]string{"--out", o}, bad...)...)...)
		if code != 2 || !strings.Contains(stderr, bad[0]) || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("%v: exit %d, stderr %q; want 2 and one line naming the flag", bad, code, stderr)
		}
		if _, err := os.Stat(o); !os.IsNotExist(err) {
			t.Errorf("%v: %s was created", bad, o)
		}
	}
}

// TestTimeSeriesIntervalRange: an interval under 1 ms was accepted, and
// 1ns over a 20-second run (2·10¹⁰ intervals) ran for minutes, grew to
// 1 GB and failed on Parquet's row-group limit; it is refused up front,
// exit 2, with the allowed range in the message (1e9s, over the longest
// arrival time, was refused as "want a duration > 0").
func TestTimeSeriesIntervalRange(t *testing.T) {
	dir := t.TempDir()
	for _, iv := range []string{"1ns", "0.5ms", "1e-300", "1e9s"} {
		o := filepath.Join(dir, "bad")
		code, _, stderr := runCLI(t, append(append([]string{}, smallRun...), "--out", o, "--timeseries-interval", iv)...)
		if code != 2 || !strings.Contains(stderr, "--timeseries-interval") || !strings.Contains(stderr, "from 1ms to") {
			t.Errorf("--timeseries-interval %s: exit %d, stderr %q; want 2 and the allowed range", iv, code, stderr)
		}
		if _, err := os.Stat(o); !os.IsNotExist(err) {
			t.Errorf("--timeseries-interval %s: %s created", iv, o)
		}
	}
	code, _, stderr := runCLI(t, append(append([]string{}, smallRun...), "--out", filepath.Join(dir, "ok"), "--timeseries-interval", "1ms")...)
	if code != 0 {
		t.Errorf("--timeseries-interval 1ms: exit %d: %s", code, stderr)
	}
}

// TestRequestsFormatOnce: "csv,csv" wrote requests.csv twice (two sinks on
// one path, "wrote requests.csv, requests.csv") and "" wrote no per-request
// file without a word; both are refused, exit 2.
func TestRequestsFormatOnce(t *testing.T) {
	dir := t.TempDir()
	for _, bad := range []string{"csv,csv", "parquet,jsonl,parquet", ""} {
		o := filepath.Join(dir, "bad")
		code, _, stderr := runCLI(t, append(append([]string{}, smallRun...), "--out", o, "--requests-format", bad)...)
		if code != 2 || !strings.Contains(stderr, "--requests-format") || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("--requests-format %q: exit %d, stderr %q; want 2 and one line naming the flag", bad, code, stderr)
		}
		if _, err := os.Stat(o); !os.IsNotExist(err) {
			t.Errorf("--requests-format %q: %s created", bad, o)
		}
	}
}
