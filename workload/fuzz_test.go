package workload

import (
	"bytes"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// checkCDFInvariants fails t unless c satisfies the CDF contract and its
// methods stay inside the support.
func checkCDFInvariants(t *testing.T, c *CDF) {
	t.Helper()
	if err := c.Validate(); err != nil {
		t.Fatalf("accepted CDF fails Validate: %v", err)
	}
	prevT, prevF := 0, 0.0
	for i, p := range c.Points {
		if p.Tokens <= prevT || p.F < prevF || p.F > 1 || math.IsNaN(p.F) {
			t.Fatalf("point %d %+v breaks the invariants after %d, %v", i, p, prevT, prevF)
		}
		prevT, prevF = p.Tokens, p.F
	}
	if prevF != 1 {
		t.Fatalf("last F %v", prevF)
	}
	max := c.Max()
	if f := c.F(float64(max)); f != 1 {
		t.Fatalf("F(max) = %v", f)
	}
	if m := c.Mean(); !(m >= 1 && m <= float64(max)) {
		t.Fatalf("mean %v outside [1, %d]", m, max)
	}
	for _, q := range []float64{0, 1e-9, 0.3, 0.5, 0.999, 1} {
		l := c.Quantile(q)
		if l < 1 || l > max {
			t.Fatalf("Quantile(%v) = %d outside [1, %d]", q, l, max)
		}
		if c.F(float64(l)) < q-1e-9 {
			t.Fatalf("Quantile(%v) = %d but F(%d) = %v", q, l, l, c.F(float64(l)))
		}
	}
	r := NewRand(1, StreamLengths)
	for range 50 {
		l := c.Sample(r)
		if l < 1 || l > max {
			t.Fatalf("Sample = %d outside [1, %d]", l, max)
		}
		// A sampled length has positive probability.
		if c.F(float64(l))-c.F(float64(l-1)) <= 0 {
			t.Fatalf("Sample = %d, a length of zero probability", l)
		}
	}
}

func FuzzParseCDF(f *testing.F) {
	for _, name := range []string{"azure_cdf.json", "lmsys_cdf.json", "agent_heavy_cdf.json"} {
		data, err := builtinFS.ReadFile("data/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range []string{
		`[[2, 0.5], [4, 1]]`,
		`{"cdf": [[10, 0], [12, 1]]}`,
		`[[1, 1]]`,
		`[[1073741824, 1]]`,
		`[[1, 0.3], [2, 0.3], [3, 0.9999999999]]`,
		`[]`, `{}`, `[[1, 0.5, 1]]`, `[[5, 1], [4, 1]]`, `[[1e308, 1]]`, `[[1, NaN]]`, `null`, `{"cdf": null}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseCDF("fuzz.json", data)
		if err != nil {
			if c != nil {
				t.Fatal("error with a non-nil CDF")
			}
			if msg := err.Error(); strings.Contains(msg, "\n") || !strings.Contains(msg, `cdf "fuzz.json"`) {
				t.Fatalf("error %q is not one line naming the CDF", msg)
			}
			return
		}
		checkCDFInvariants(t, c)
		if lo := c.Quantile(0.25); lo < c.Max() {
			if r, err := c.Restrict(lo, c.Max()); err == nil {
				checkCDFInvariants(t, r)
			}
		}
	})
}

// fuzzTrace reads every row of a trace, checking the row invariants and the
// error contract: a *TraceError of one line naming the file.
func fuzzTrace(t *testing.T, rd TraceReader) {
	prevLine := 0
	for range 100000 {
		row, err := rd.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			var te *TraceError
			if !errors.As(err, &te) {
				t.Fatalf("error %v is not a *TraceError", err)
			}
			if msg := err.Error(); strings.Contains(msg, "\n") || !strings.Contains(msg, `trace "fuzz"`) {
				t.Fatalf("error %q is not one line naming the file", msg)
			}
			return
		}
		if row.Input < 1 || row.Output < 1 || row.Input > maxTraceTokens || row.Output > maxTraceTokens || !isFinite(row.Time) || row.Line <= prevLine {
			t.Fatalf("accepted row %+v breaks the invariants (previous line %d)", row, prevLine)
		}
		prevLine = row.Line
	}
}

func FuzzAzureTrace(f *testing.F) {
	head, err := os.ReadFile(filepath.Join("testdata", "AzureLLMInferenceTrace_code.csv"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(head[:2000])
	for _, s := range []string{
		"TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:17:03.9799600,4808,10\n",
		"GeneratedTokens,TIMESTAMP,ContextTokens,extra\r\n1,0.5,2,x\r\n",
		"TIMESTAMP,ContextTokens,GeneratedTokens\n1,2\n",
		"TIMESTAMP,ContextTokens,GeneratedTokens\n\"1,2,3\n",
		"TIMESTAMP,ContextTokens,GeneratedTokens\nNaN,2,3\n",
		"TIMESTAMP,ContextTokens,GeneratedTokens\n1,99999999999999999999,3\n",
		"",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzTrace(t, NewAzureReader("fuzz", bytes.NewReader(data)))
	})
}

func FuzzMooncakeTrace(f *testing.F) {
	head, err := os.ReadFile(filepath.Join("testdata", "mooncake_conversation_head500.jsonl"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(head[:3000])
	for _, s := range []string{
		`{"timestamp": 0, "input_length": 6758, "output_length": 500, "hash_ids": [0, 1]}` + "\n",
		`{"timestamp": 1.5e3, "input_length": 1, "output_length": 1}`,
		"\n\n" + `{"timestamp": 0}`,
		`{"timestamp": 0, "input_length": 1e3, "output_length": 1}`,
		`[1]`, `null`, `{"timestamp": null, "input_length": 1, "output_length": 1}`,
		`{"timestamp": 0, "input_length": 5, "output_length": 1, "hash_ids": [1.5]}`,
		`{"timestamp": 0, "input_length": 5, "output_length": 1, "hash_ids": "0,1"}`,
		`{"timestamp": 0, "input_length": 5, "output_length": 1, "hash_ids": [-1, 18446744073709551615]}`,
		"",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzTrace(t, NewMooncakeReader("fuzz", bytes.NewReader(data)))
	})
}

// TestAzureCDFFromTrace rebuilds the built-in azure CDF from the Azure LLM
// Inference Trace 2023 (both CSVs, 28,185 rows): F(t) = fraction of requests
// with ContextTokens + GeneratedTokens <= t at every breakpoint
// (../shared/data/traces/SOURCES.md says they agree to all printed digits).
func TestAzureCDFFromTrace(t *testing.T) {
	var totals []int
	for _, name := range []string{"AzureLLMInferenceTrace_code.csv", "AzureLLMInferenceTrace_conv.csv"} {
		fh, err := os.Open(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		rd := NewAzureReader(name, fh)
		for {
			row, err := rd.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			totals = append(totals, row.Input+row.Output)
		}
		fh.Close()
	}
	if len(totals) != 28185 {
		t.Fatalf("%d rows, want 28185", len(totals))
	}
	c := mustCDF(t, "azure")
	sum := 0
	for _, l := range totals {
		sum += l
	}
	// SOURCES.md: mean L_total 1587.95 over the combined trace.
	if mean := float64(sum) / float64(len(totals)); math.Abs(mean-1587.95) > 0.005 {
		t.Errorf("trace mean L_total %v, want 1587.95", mean)
	}
	for _, p := range c.Points {
		n := 0
		for _, l := range totals {
			if l <= p.Tokens {
				n++
			}
		}
		if got := float64(n) / float64(len(totals)); math.Abs(got-p.F) > 1e-15 {
			t.Errorf("F(%d): trace gives %v, azure_cdf.json %v", p.Tokens, got, p.F)
		}
	}
}
