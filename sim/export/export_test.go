package export

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fleetsim/fleetsim/sim"
	"github.com/fleetsim/fleetsim/workload"
)

// testRecords returns n records with varied values: every 7th is rejected
// (NaN times), every 5th is a warm-up request, every 11th has one output
// token (NaN TPOT).
func testRecords(n int) []sim.Record {
	rng := workload.NewRand(42, workload.StreamLengths)
	pools := []string{"short", "long"}
	cats := []string{"prose", "code", "cjk"}
	recs := make([]sim.Record, n)
	for i := range recs {
		a := float64(i) * 0.001
		w := rng.Float64() * 0.01
		ttft := w + 0.02 + rng.Float64()*0.05
		out := int32(1 + rng.IntN(500))
		r := sim.Record{
			ID: int64(i), Pool: pools[i%2], Instance: int32(rng.IntN(40)), Category: cats[i%3],
			ArrivalS: a, AdmitS: a + w, FirstTokenS: a + ttft, QueueWaitS: w, TTFTS: ttft,
			TPOTS: 0.02, InputTokens: int32(1 + rng.IntN(4000)), OutputTokens: out,
			OriginalInputTokens: 7, EstimatedTokens: 9, Preemptions: int32(i % 3), Retries: int32(i % 2),
			Compressed: i%4 == 0, Warmup: i%5 == 0,
		}
		r.FinishS = r.FirstTokenS + float64(out-1)*r.TPOTS
		r.E2ES = r.FinishS - a
		if i%11 == 0 {
			r.OutputTokens, r.TPOTS = 1, math.NaN()
		}
		if i%7 == 0 {
			r.Rejected, r.RejectedReason = true, "too long"
			r.Instance = -1
			r.AdmitS, r.FirstTokenS, r.FinishS = math.NaN(), math.NaN(), math.NaN()
			r.QueueWaitS, r.TTFTS, r.TPOTS, r.E2ES = math.NaN(), math.NaN(), math.NaN(), math.NaN()
		}
		recs[i] = r
	}
	return recs
}

func writeParquet(t *testing.T, path string, recs []sim.Record) *ParquetSink {
	t.Helper()
	return writeParquetInfo(t, path, FileInfo{}, recs)
}

func writeParquetInfo(t *testing.T, path string, info FileInfo, recs []sim.Record) *ParquetSink {
	t.Helper()
	s, err := NewParquetSinkInfo(path, info)
	if err != nil {
		t.Fatal(err)
	}
	for i := range recs {
		if err := s.Write(&recs[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return s
}

// sameFloat treats two NaNs as equal.
func sameFloat(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) }

func sameRecord(a, b *sim.Record) bool {
	fa := []float64{a.ArrivalS, a.AdmitS, a.FirstTokenS, a.FinishS, a.QueueWaitS, a.TTFTS, a.TPOTS, a.E2ES}
	fb := []float64{b.ArrivalS, b.AdmitS, b.FirstTokenS, b.FinishS, b.QueueWaitS, b.TTFTS, b.TPOTS, b.E2ES}
	for i := range fa {
		if !sameFloat(fa[i], fb[i]) {
			return false
		}
	}
	ca, cb := *a, *b
	ca.ArrivalS, ca.AdmitS, ca.FirstTokenS, ca.FinishS, ca.QueueWaitS, ca.TTFTS, ca.TPOTS, ca.E2ES = 0, 0, 0, 0, 0, 0, 0, 0
	cb.ArrivalS, cb.AdmitS, cb.FirstTokenS, cb.FinishS, cb.QueueWaitS, cb.TTFTS, cb.TPOTS, cb.E2ES = 0, 0, 0, 0, 0, 0, 0, 0
	return ca == cb
}

// TestParquetRoundTrip writes more than one row group and a partial batch
// and reads every row back with parquet-go.
func TestParquetRoundTrip(t *testing.T) {
	for _, n := range []int{0, 1, batchRows + 3, RowGroupRows + 1500} {
		dir := t.TempDir()
		path := filepath.Join(dir, "requests.parquet")
		recs := testRecords(n)
		s := writeParquet(t, path, recs)
		got, err := ReadParquet(path)
		if err != nil {
			t.Fatalf("n=%d: %v", n, err)
		}
		if len(got) != n {
			t.Fatalf("n=%d: read %d rows", n, len(got))
		}
		for i := range recs {
			if !sameRecord(&recs[i], &got[i]) {
				t.Fatalf("n=%d: row %d: wrote %+v, read %+v", n, i, recs[i], got[i])
			}
		}
		st := s.Stats()
		var out int64
		for _, r := range recs {
			out += int64(r.OutputTokens)
		}
		if st.Rows != int64(n) || st.SumOutputTokens != out {
			t.Errorf("n=%d: stats %+v, want rows %d, sum_output_tokens %d", n, st, n, out)
		}
		entries, _ := os.ReadDir(dir)
		if len(entries) != 1 {
			t.Errorf("n=%d: directory holds %d entries, want only requests.parquet", n, len(entries))
		}
	}
}

// TestParquetNullTimes checks that the times a rejected request never
// reached are stored as NULL, not NaN (so DuckDB's sum/avg skip them).
func TestParquetNullTimes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.parquet")
	writeParquet(t, path, testRecords(15))
	rows, err := readRows(path)
	if err != nil {
		t.Fatal(err)
	}
	if rows[7].TTFTS != nil || rows[7].AdmitS != nil || rows[7].E2ES != nil {
		t.Errorf("rejected row 7: ttft_s/admit_s/e2e_s not NULL: %+v", rows[7])
	}
	if rows[1].TTFTS == nil || rows[1].TPOTS == nil {
		t.Errorf("row 1: ttft_s or tpot_s NULL: %+v", rows[1])
	}
	if rows[11].TPOTS != nil {
		t.Errorf("row 11 (tpot NaN in the record): tpot_s = %v, want NULL", *rows[11].TPOTS)
	}
}

// TestParquetDeterministic: the same records give byte-identical files.
func TestParquetDeterministic(t *testing.T) {
	dir := t.TempDir()
	recs := testRecords(5000)
	a, b := filepath.Join(dir, "a.parquet"), filepath.Join(dir, "b.parquet")
	writeParquet(t, a, recs)
	writeParquet(t, b, recs)
	ba, _ := os.ReadFile(a)
	bb, _ := os.ReadFile(b)
	if len(ba) == 0 || !bytes.Equal(ba, bb) {
		t.Fatalf("two writes of the same records differ (%d and %d bytes)", len(ba), len(bb))
	}
}

// TestParquetAbort: an aborted file leaves nothing in its directory, and a
// write after abort fails.
func TestParquetAbort(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "requests.parquet")
	s, err := NewParquetSink(path)
	if err != nil {
		t.Fatal(err)
	}
	recs := testRecords(3000)
	for i := range recs {
		s.Write(&recs[i])
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 || !strings.HasPrefix(entries[0].Name(), TempPrefix) {
		t.Fatalf("during the write the directory should hold one %s file, holds %v", TempPrefix, entries)
	}
	s.Abort()
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("after Abort the directory holds %v", entries)
	}
	if err := s.Write(&recs[0]); err == nil {
		t.Error("Write after Abort succeeded")
	}
	if err := s.Close(); err == nil {
		t.Error("Close after Abort succeeded")
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("%s exists after Abort", path)
	}
}

// TestNewParquetSinkMissingDir: missing directories are created (every
// output flag creates them, issue 19); a path through a file is an error.
func TestNewParquetSinkMissingDir(t *testing.T) {
	dir := t.TempDir()
	s, err := NewParquetSink(filepath.Join(dir, "no", "such", "r.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	s.Abort()
	if err := os.WriteFile(filepath.Join(dir, "f"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := NewParquetSink(filepath.Join(dir, "f", "r.parquet")); err == nil {
		t.Fatal("no error for a directory that is a file")
	}
}

func testSummary() *sim.Summary {
	cfg := sim.Defaults()
	m := sim.PoolMetrics{Name: "short", GPU: "a100", GPUs: 43, MaxContext: 4096, Slots: 256,
		Arrived: 10, Completed: 9, Rejected: 1, SlotUtilization: 0.5, ThroughputRPS: 9,
		TTFT: sim.Quantiles{P50: 0.01, P90: 0.02, P99: 0.03}, SLOAttainment: 1}
	empty := sim.PoolMetrics{Name: "long", GPU: "a100", GPUs: 131, MaxContext: 65536, Slots: 16,
		TTFT: sim.Quantiles{P50: math.NaN(), P90: math.NaN(), P99: math.Inf(1)}, SLOAttainment: math.NaN()}
	return &sim.Summary{Version: "test", Config: cfg, Requests: 10, SimTimeS: 1,
		Fleet: m, Pools: []sim.PoolMetrics{m, empty}}
}

// TestSummaryJSON: NaN and Inf become null, the summary decodes back, the
// seed is at the top level, and the input summary is not modified.
func TestSummaryJSON(t *testing.T) {
	s := testSummary()
	b, err := MarshalSummary(s, []OutputFile{{Name: "requests.parquet", Kind: "parquet", Stats: &Stats{Rows: 10}}})
	if err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatalf("summary is not JSON: %v\n%s", err, b)
	}
	if back["seed"] != 1.0 || back["version"] != "test" {
		t.Errorf("seed %v, version %v", back["seed"], back["version"])
	}
	long := back["pools"].([]any)[1].(map[string]any)
	if ttft := long["ttft_s"].(map[string]any); ttft["p50"] != nil || ttft["p99"] != nil {
		t.Errorf("NaN/Inf quantiles not null: %v", ttft)
	}
	if long["slo_attainment"] != nil {
		t.Errorf("NaN slo_attainment not null: %v", long["slo_attainment"])
	}
	if !math.IsNaN(s.Pools[1].TTFT.P50) {
		t.Error("MarshalSummary modified its input")
	}
	if !bytes.HasSuffix(b, []byte("}\n")) || !bytes.Contains(b, []byte("\n  \"version\": \"test\"")) {
		t.Errorf("not indented JSON with a final newline:\n%s", b)
	}
}

func TestWriteTable(t *testing.T) {
	var b bytes.Buffer
	if err := WriteTable(&b, testSummary()); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 5 { // header, rule, 2 pools, fleet
		t.Fatalf("table has %d lines, want 5:\n%s", len(lines), b.String())
	}
	for _, l := range lines {
		if len(l) != len(lines[0]) {
			t.Errorf("ragged table:\n%s", b.String())
			break
		}
	}
	if !strings.Contains(lines[2], "| short |") || !strings.Contains(lines[2], "30.0") {
		t.Errorf("short row %q lacks name or ttft_p99_ms 30.0", lines[2])
	}
	if !strings.Contains(lines[3], " - ") {
		t.Errorf("NaN quantile not shown as '-': %q", lines[3])
	}
	b.Reset()
	if err := WriteTableCSV(&b, testSummary()); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(b.String(), "\n"); n != 4 {
		t.Errorf("CSV has %d lines, want 4", n)
	}
}

func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "x.json")
	if err := WriteFileAtomic(p, []byte("a")); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileAtomic(p, []byte("bb")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "bb" {
		t.Errorf("content %q, want bb", b)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("directory holds %v", entries)
	}
}

// TestSummaryJSONNaNBehindPointer: a disaggregated pool stopped before any
// post-warm-up KV transfer (`fleetsim simulate --osd enforce` on 1 prefill
// + 7 decode H100s at 300 req/s) has NaN transfer quantiles in its
// *DisaggMetrics; summary.json failed with "json: unsupported value: NaN"
// (exit 1, no outputs) because NaNs behind pointers were not replaced. They
// are null now, and the input summary is still not modified.
func TestSummaryJSONNaNBehindPointer(t *testing.T) {
	s := testSummary()
	nan := sim.Quantiles{P50: math.NaN(), P90: math.NaN(), P99: math.NaN()}
	s.Pools[1].Disagg = &sim.DisaggMetrics{Prefill: 1, Decode: 7, LinkGBs: 50, Transfer: nan, DecodeWait: nan}
	b, err := MarshalSummary(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatalf("summary is not JSON: %v\n%s", err, b)
	}
	dg := back["pools"].([]any)[1].(map[string]any)["disaggregated"].(map[string]any)
	if q := dg["kv_transfer_s"].(map[string]any); q["p99"] != nil || dg["link_gb_s"] != 50.0 {
		t.Errorf("disaggregated %v: want null quantiles, link 50", dg)
	}
	if !math.IsNaN(s.Pools[1].Disagg.Transfer.P99) {
		t.Error("MarshalSummary modified its input")
	}
}
