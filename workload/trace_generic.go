package workload

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"
)

// TraceGeneric is the generic trace format, a CSV file (header) or a JSONL
// file (one object per line) with these columns or keys:
//
//	arrival_s          arrival time, seconds (required; sorted ascending)
//	input_tokens       prompt tokens L_in (required, >= 1)
//	output_tokens      generated tokens L_out (required, >= 1)
//	max_output_tokens  declared output cap (optional, >= output_tokens;
//	                   default output_tokens)
//	category           prose, code, cjk, rag or mixed (optional; default
//	                   drawn from Spec.Categories)
//	bytes              prompt length in bytes (optional, >= 1; default from
//	                   the category's bytes-per-token ratio)
//	cached_tokens      cached input tokens, part of input_tokens (optional,
//	                   default 0; read by `fleetsim capacity` only)
//	thinking_tokens    thinking tokens (optional, default 0; capacity only)
//	latency_s          observed end-to-end latency, s (optional; capacity
//	                   only, to fit its baseline latency model)
//
// An empty CSV cell or a JSON null means the optional value is absent. The
// file extension picks CSV (.csv) or JSONL (.jsonl, .json).
const TraceGeneric = "generic"

// Generic trace column names.
const (
	genArrival   = "arrival_s"
	genInput     = "input_tokens"
	genOutput    = "output_tokens"
	genMaxOutput = "max_output_tokens"
	genCategory  = "category"
	genBytes     = "bytes"
)

// genericRow parses one generic row; get returns a field's text and whether
// it is present (an empty CSV cell or a JSON null is absent).
func genericRow(file string, line int, get func(name string) (string, bool)) (TraceRow, error) {
	row := TraceRow{Line: line}
	for _, name := range []string{genArrival, genInput, genOutput} {
		if _, ok := get(name); !ok {
			return TraceRow{}, traceErr(file, line, name, "", "missing (required: arrival_s, input_tokens, output_tokens)")
		}
	}
	s, _ := get(genArrival)
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || !isFinite(v) {
		return TraceRow{}, traceErr(file, line, genArrival, s, "want a finite number of seconds")
	}
	row.Time = v
	s, _ = get(genInput)
	if row.Input, err = parseTokens(s); err != nil {
		return TraceRow{}, traceErr(file, line, genInput, s, "%v", err)
	}
	s, _ = get(genOutput)
	if row.Output, err = parseTokens(s); err != nil {
		return TraceRow{}, traceErr(file, line, genOutput, s, "%v", err)
	}
	if s, ok := get(genMaxOutput); ok {
		if row.MaxOutput, err = parseTokens(s); err != nil {
			return TraceRow{}, traceErr(file, line, genMaxOutput, s, "%v", err)
		}
		if row.MaxOutput < row.Output {
			return TraceRow{}, traceErr(file, line, genMaxOutput, s, "must be >= output_tokens (%d)", row.Output)
		}
	}
	if s, ok := get(genCategory); ok {
		c, err := ParseCategory(strings.TrimSpace(s))
		if err != nil {
			return TraceRow{}, traceErr(file, line, genCategory, s, "unknown category (allowed: prose, code, cjk, rag, mixed)")
		}
		row.Category, row.HasCategory = c, true
	}
	if s, ok := get(genBytes); ok {
		b, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || b < 1 {
			return TraceRow{}, traceErr(file, line, genBytes, s, "want an integer number of bytes >= 1")
		}
		row.Bytes = b
	}
	if err := capacityColumns(file, line, &row, get); err != nil {
		return TraceRow{}, err
	}
	return row, nil
}

// genericCSVReader reads a generic CSV trace.
type genericCSVReader struct {
	file    string
	r       *csv.Reader
	col     map[string]int
	ncol    int
	started bool
}

// NewGenericCSVReader returns a reader of a generic CSV trace (see
// TraceGeneric); name is the file name used in errors.
func NewGenericCSVReader(name string, r io.Reader) TraceReader {
	cr := csv.NewReader(r)
	cr.ReuseRecord = true
	cr.FieldsPerRecord = -1
	return &genericCSVReader{file: name, r: cr}
}

func (g *genericCSVReader) csvErr(err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return traceErr(g.file, pe.Line, "", "", "malformed CSV: %v", pe.Err)
	}
	return traceErr(g.file, 0, "", "", "read error: %v", err)
}

func (g *genericCSVReader) Next() (TraceRow, error) {
	if !g.started {
		g.started = true
		rec, err := g.r.Read()
		if err == io.EOF {
			return TraceRow{}, traceErr(g.file, 0, "", "", "empty file (want a header arrival_s,input_tokens,output_tokens[,max_output_tokens,category,bytes])")
		}
		if err != nil {
			return TraceRow{}, g.csvErr(err)
		}
		g.col = map[string]int{}
		for i, h := range rec {
			g.col[strings.TrimSpace(strings.TrimPrefix(h, "\uFEFF"))] = i
		}
		g.ncol = len(rec)
		for _, name := range []string{genArrival, genInput, genOutput} {
			if _, ok := g.col[name]; !ok {
				return TraceRow{}, traceErr(g.file, 1, "", strings.Join(rec, ","), "header has no %s column (required: arrival_s, input_tokens, output_tokens)", name)
			}
		}
	}
	rec, err := g.r.Read()
	if err == io.EOF {
		return TraceRow{}, io.EOF
	}
	if err != nil {
		return TraceRow{}, g.csvErr(err)
	}
	line, _ := g.r.FieldPos(0)
	if len(rec) != g.ncol {
		return TraceRow{}, traceErr(g.file, line, "", strings.Join(rec, ","), "has %d fields, the header has %d", len(rec), g.ncol)
	}
	return genericRow(g.file, line, func(name string) (string, bool) {
		i, ok := g.col[name]
		if !ok || strings.TrimSpace(rec[i]) == "" {
			return "", false
		}
		return rec[i], true
	})
}

// genericJSONLReader reads a generic JSONL trace.
type genericJSONLReader struct {
	file string
	s    *bufio.Scanner
	line int
}

// NewGenericJSONLReader returns a reader of a generic JSONL trace (see
// TraceGeneric); blank lines are skipped; name is the file name used in
// errors.
func NewGenericJSONLReader(name string, r io.Reader) TraceReader {
	s := bufio.NewScanner(r)
	s.Buffer(make([]byte, 0, 64<<10), maxJSONLLine)
	return &genericJSONLReader{file: name, s: s}
}

func (g *genericJSONLReader) Next() (TraceRow, error) {
	for g.s.Scan() {
		g.line++
		b := bytes.TrimSpace(g.s.Bytes())
		if len(b) == 0 {
			continue
		}
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(b, &obj); err != nil || obj == nil {
			msg := "not a JSON object"
			if err != nil {
				msg += ": " + err.Error()
			}
			return TraceRow{}, traceErr(g.file, g.line, "", string(b), "%s", msg)
		}
		return genericRow(g.file, g.line, func(name string) (string, bool) {
			raw, ok := obj[name]
			if !ok || string(raw) == "null" {
				return "", false
			}
			if name == genCategory {
				var s string
				if err := json.Unmarshal(raw, &s); err == nil {
					return s, true
				}
			}
			return string(raw), true
		})
	}
	if err := g.s.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return TraceRow{}, traceErr(g.file, g.line+1, "", "", "line longer than %d bytes", maxJSONLLine)
		}
		return TraceRow{}, traceErr(g.file, g.line+1, "", "", "read error: %v", err)
	}
	return TraceRow{}, io.EOF
}
