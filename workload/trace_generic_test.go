package workload

import (
	"bytes"
	"strings"
	"testing"
)

func TestGenericTraceReplay(t *testing.T) {
	csvText := "arrival_s,input_tokens,output_tokens,max_output_tokens,category,bytes\n" +
		"10,100,20,64,code,350\n" +
		"10.5,200,30,,,\n" +
		"12,50,5,,cjk,\n"
	jsonlText := `{"arrival_s": 10, "input_tokens": 100, "output_tokens": 20, "max_output_tokens": 64, "category": "code", "bytes": 350}` + "\n" +
		`{"arrival_s": 10.5, "input_tokens": 200, "output_tokens": 30}` + "\n\n" +
		`{"arrival_s": 12, "input_tokens": 50, "output_tokens": 5, "category": "cjk", "bytes": null}` + "\n"
	for _, tt := range []struct{ name, content string }{{"g.csv", csvText}, {"g.jsonl", jsonlText}} {
		p := writeFile(t, tt.name, tt.content)
		reqs := drain(t, mustSource(t, Spec{Trace: p, TraceFormat: "generic", Requests: 10, Categories: map[string]float64{"mixed": 1}}, 1))
		if len(reqs) != 3 {
			t.Fatalf("%s: %d requests, want 3", tt.name, len(reqs))
		}
		// Row 1 gives everything; row 2 nothing optional (category from the
		// mix: mixed, bytes ~ 200·3.81, cap = output); row 3 a category.
		if r := reqs[0]; r.Arrival != 0 || r.InputTokens != 100 || r.OutputTokens != 20 || r.MaxOutputTokens != 64 || r.Category != Code || r.Bytes != 350 {
			t.Errorf("%s: row 1 = %+v", tt.name, r)
		}
		if r := reqs[1]; r.Arrival != 0.5 || r.MaxOutputTokens != 30 || r.Category != Mixed || r.Bytes < 647 || r.Bytes > 877 { // 200·3.81·(1 ± 0.15)
			t.Errorf("%s: row 2 = %+v", tt.name, r)
		}
		if r := reqs[2]; r.Arrival != 2 || r.Category != CJK || r.Bytes < 85 || r.Bytes > 116 { // 50·2.01·(1 ± 0.15)
			t.Errorf("%s: row 3 = %+v", tt.name, r)
		}
	}
}

func TestGenericTraceErrors(t *testing.T) {
	const hdr = "arrival_s,input_tokens,output_tokens,max_output_tokens,category,bytes\n"
	tests := []struct {
		name, content string
		want          []string
	}{
		{"g.csv", "", []string{"empty file"}},
		{"g.csv", "arrival_s,input_tokens\n1,2\n", []string{"line 1", "no output_tokens column"}},
		{"g.csv", hdr + "x,1,1,,,\n", []string{"line 2", `arrival_s = "x"`, "seconds"}},
		{"g.csv", hdr + "1,,1,,,\n", []string{"line 2", "input_tokens", "missing"}},
		{"g.csv", hdr + "1,5,10,9,,\n", []string{"line 2", `max_output_tokens = "9"`, ">= output_tokens (10)"}},
		{"g.csv", hdr + "1,5,10,,poetry,\n", []string{"line 2", `category = "poetry"`, "unknown category"}},
		{"g.csv", hdr + "1,5,10,,,0\n", []string{"line 2", `bytes = "0"`}},
		{"g.csv", hdr + "2,5,10,,,\n1,5,10,,,\n", []string{"line 3", `arrival_s = "1"`, "earlier"}},
		{"g.jsonl", `{"arrival_s": 1, "input_tokens": 5}`, []string{"line 1", "output_tokens", "missing"}},
		{"g.jsonl", `[1]`, []string{"line 1", "not a JSON object"}},
		{"g.jsonl", `null`, []string{"line 1", "not a JSON object"}},
		{"g.jsonl", `{"arrival_s": "1", "input_tokens": 5, "output_tokens": 1}`, []string{"line 1", `arrival_s = "\"1\""`}},
		{"g.jsonl", `{"arrival_s": 1, "input_tokens": 5, "output_tokens": 1, "category": 3}`, []string{"line 1", `category = "3"`}},
	}
	for _, tt := range tests {
		p := writeFile(t, tt.name, tt.content)
		checkTraceError(t, Spec{Trace: p, TraceFormat: "generic", Requests: 10}, tt.content, tt.want)
	}
	if err := (Spec{Trace: "t.txt", TraceFormat: "generic", Requests: 1}).Validate(); err == nil || !strings.Contains(err.Error(), "must end in .csv, .jsonl or .json") {
		t.Errorf("generic .txt: error %v", err)
	}
}

func FuzzGenericTrace(f *testing.F) {
	for _, s := range []string{
		"arrival_s,input_tokens,output_tokens,max_output_tokens,category,bytes\n10,100,20,64,code,350\n10.5,200,30,,,\n",
		`{"arrival_s": 10, "input_tokens": 100, "output_tokens": 20, "max_output_tokens": 64, "category": "code", "bytes": 350}` + "\n",
		`{"arrival_s": 1e400, "input_tokens": 1, "output_tokens": 1, "category": null}`,
		"arrival_s,input_tokens\n1,2\n",
		"",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, rd := range []TraceReader{NewGenericCSVReader("fuzz", bytes.NewReader(data)), NewGenericJSONLReader("fuzz", bytes.NewReader(data))} {
			fuzzTrace(t, rd)
		}
	})
}
