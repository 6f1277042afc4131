package workload

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCapacityColumns(t *testing.T) {
	dir := t.TempDir()
	csv := filepath.Join(dir, "t.csv")
	os.WriteFile(csv, []byte("arrival_s,input_tokens,output_tokens,cached_tokens,thinking_tokens,latency_s\n0,100,10,40,5,0.5\n1,100,10,,,\n"), 0o644)
	rows, err := ReadTraceRows(csv, TraceGeneric, 10)
	if err != nil {
		t.Fatal(err)
	}
	if r := rows[0]; r.Cached != 40 || r.Thinking != 5 || !r.HasLatency || r.LatencyS != 0.5 {
		t.Errorf("row 0 = %+v", r)
	}
	if r := rows[1]; r.Cached != 0 || r.Thinking != 0 || r.HasLatency {
		t.Errorf("row 1 = %+v", r)
	}
	jl := filepath.Join(dir, "t.jsonl")
	os.WriteFile(jl, []byte(`{"arrival_s":0,"input_tokens":100,"output_tokens":1,"cached_tokens":7,"latency_s":null}`+"\n"), 0o644)
	rows, err = ReadTraceRows(jl, TraceGeneric, 10)
	if err != nil || rows[0].Cached != 7 || rows[0].HasLatency {
		t.Errorf("jsonl: %+v, %v", rows, err)
	}
	for _, c := range []struct{ line, field string }{
		{"0,100,10,101,0,1", "cached_tokens"}, // C > I
		{"0,100,10,-1,0,1", "cached_tokens"},
		{"0,100,10,0,-2,1", "thinking_tokens"},
		{"0,100,10,0,0,-1", "latency_s"},
	} {
		os.WriteFile(csv, []byte("arrival_s,input_tokens,output_tokens,cached_tokens,thinking_tokens,latency_s\n"+c.line+"\n"), 0o644)
		_, err := ReadTraceRows(csv, TraceGeneric, 10)
		if err == nil || !strings.Contains(err.Error(), c.field) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: err = %v, want one line naming %s", c.line, err, c.field)
		}
	}
	// The Azure conversation trace: 19,366 rows (testdata/SOURCES.md).
	rows, err = ReadTraceRows(filepath.Join("testdata", "AzureLLMInferenceTrace_conv.csv"), "", 1<<30)
	if err != nil || len(rows) != 19366 {
		t.Errorf("conv trace: %d rows, %v", len(rows), err)
	}
}
