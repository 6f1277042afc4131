package workload

import (
	"bytes"
	"embed"
	"fmt"
	"io"
	"sort"
)

// azure2023FS holds the Azure LLM Inference Trace 2023 (Splitwise, ISCA
// 2024; CC BY 4.0; testdata/SOURCES.md): 8,819 coding and 19,366
// conversation requests over about an hour.
//
//go:embed testdata/AzureLLMInferenceTrace_code.csv testdata/AzureLLMInferenceTrace_conv.csv
var azure2023FS embed.FS

// Azure2023Requests is the number of requests of the embedded Azure 2023
// trace (both files).
const Azure2023Requests = 28185

// NewAzure2023Source replays the embedded Azure LLM Inference Trace 2023,
// its coding and conversation files merged by timestamp (ties: coding
// first), rescaled so that the mean arrival rate is rate requests/s (rate
// > 0), for at most requests rows (≤ 0: all). Coding rows are category
// code, conversation rows prose; byte lengths are drawn as in any trace
// (stream StreamCategories of seed). L_in and L_out are the trace's own.
func NewAzure2023Source(rate float64, requests int, seed uint64) (Source, error) {
	if !(rate > 0) {
		return nil, fieldErr("rate", rate, "must be > 0 to rescale the Azure 2023 trace")
	}
	type row struct {
		TraceRow
		cat Category
	}
	var rows []row
	for _, f := range []struct {
		file string
		cat  Category
	}{{"testdata/AzureLLMInferenceTrace_code.csv", Code}, {"testdata/AzureLLMInferenceTrace_conv.csv", Prose}} {
		b, err := azure2023FS.ReadFile(f.file)
		if err != nil {
			return nil, err
		}
		rd := NewAzureReader(f.file, bytes.NewReader(b))
		for {
			r, err := rd.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				return nil, err
			}
			rows = append(rows, row{r, f.cat})
		}
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].Time < rows[j].Time })
	if requests > 0 && requests < len(rows) {
		rows = rows[:requests]
	}
	if len(rows) < 2 || !(rows[len(rows)-1].Time > rows[0].Time) {
		return nil, fmt.Errorf("workload: azure 2023 trace: %d rows cannot be rescaled", len(rows))
	}
	mix, err := newCategoryMix(nil, NewRand(seed, StreamCategories))
	if err != nil {
		return nil, err
	}
	t0 := rows[0].Time
	scale := float64(len(rows)) / (rows[len(rows)-1].Time - t0) / rate
	reqs := make([]Request, len(rows))
	for i, r := range rows {
		reqs[i] = Request{ID: int64(i), Arrival: (r.Time - t0) * scale, InputTokens: r.Input, OutputTokens: r.Output,
			MaxOutputTokens: r.Output, Bytes: mix.bytes(r.cat, r.Input), Category: r.cat}
	}
	return &sliceSource{reqs: reqs}, nil
}

// sliceSource yields prepared requests in order.
type sliceSource struct {
	reqs []Request
	i    int
}

func (s *sliceSource) Next(r *Request) bool {
	if s.i >= len(s.reqs) {
		return false
	}
	*r = s.reqs[s.i]
	s.i++
	return true
}

func (s *sliceSource) Err() error { return nil }

// SelfContained implements SelfContained.
func (s *sliceSource) SelfContained() {}
