package workload

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// TraceRow is one request of a trace: its timestamp and true token counts,
// plus what a generic trace may also give.
type TraceRow struct {
	Line   int     // 1-based line of the row in its file
	Time   float64 // timestamp as read, seconds (absolute for Azure, relative for Mooncake)
	Input  int     // prompt tokens L_in (>= 1)
	Output int     // generated tokens L_out (>= 1)
	// Generic traces only; zero when absent.
	MaxOutput   int      // declared output cap, tokens (>= Output)
	Category    Category // content category, valid when HasCategory
	HasCategory bool
	Bytes       int // prompt length, bytes
	// Generic traces only, read by `fleetsim capacity` (see
	// capacityColumns); zero/false when absent.
	Cached     int     // cached input tokens, part of Input
	Thinking   int     // thinking tokens
	LatencyS   float64 // observed end-to-end latency, s, valid when HasLatency
	HasLatency bool
	// Mooncake traces only: the prompt's prefix-block hashes (hash_ids),
	// one per MooncakeHashTokens tokens; nil when absent.
	HashIDs []uint64
}

// MooncakeHashTokens is the number of prompt tokens each of a Mooncake
// trace's hash_ids covers (the Mooncake paper's 512-token blocks).
const MooncakeHashTokens = 512

// TraceReader reads the rows of a trace one by one. Next returns io.EOF after
// the last row; any other error names the file, the line, the field and the
// value.
type TraceReader interface {
	Next() (TraceRow, error)
}

// TraceError is a trace row that does not parse or breaks a rule.
type TraceError struct {
	File  string // file name as given
	Line  int    // 1-based line number (0: the file as a whole)
	Field string // column or key ("" when the whole row is bad)
	Value string // offending text, clipped to 60 bytes
	Msg   string // what is wrong or allowed
}

func (e *TraceError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "workload: trace %q", e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ": line %d", e.Line)
	}
	if e.Field != "" {
		fmt.Fprintf(&b, ": %s = %q", e.Field, e.Value)
	} else if e.Value != "" {
		fmt.Fprintf(&b, ": %q", e.Value)
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	return b.String()
}

func traceErr(file string, line int, field, value, msg string, args ...any) *TraceError {
	value = strings.ToValidUTF8(value, "\uFFFD")
	if len(value) > 60 {
		value = value[:60] + "..."
	}
	return &TraceError{File: file, Line: line, Field: field, Value: value, Msg: fmt.Sprintf(msg, args...)}
}

// Azure LLM trace columns.
const (
	azureTimestamp = "TIMESTAMP"
	azureContext   = "ContextTokens"
	azureGenerated = "GeneratedTokens"
)

// azureTimeLayout parses the Azure trace's timestamps, such as
// "2023-11-16 18:17:03.9799600" (any number of fractional digits).
const azureTimeLayout = "2006-01-02 15:04:05.999999999"

// azureReader reads the Azure LLM Inference Trace CSV.
type azureReader struct {
	file              string
	r                 *csv.Reader
	iTime, iCtx, iGen int
	ncol              int
	started           bool
}

// NewAzureReader returns a reader of an Azure LLM inference trace CSV whose
// header names the columns TIMESTAMP, ContextTokens and GeneratedTokens (in
// any order; other columns are ignored). TIMESTAMP is either a date-time
// "2006-01-02 15:04:05.9999999" (UTC) or a number of seconds. name is the
// file name used in errors.
func NewAzureReader(name string, r io.Reader) TraceReader {
	cr := csv.NewReader(r)
	cr.ReuseRecord = true
	cr.FieldsPerRecord = -1 // checked here, with a clearer message
	return &azureReader{file: name, r: cr}
}

func (a *azureReader) header() error {
	rec, err := a.r.Read()
	if err == io.EOF {
		return traceErr(a.file, 0, "", "", "empty file (want a header TIMESTAMP,ContextTokens,GeneratedTokens)")
	}
	if err != nil {
		return a.csvErr(err)
	}
	a.iTime, a.iCtx, a.iGen = -1, -1, -1
	for i, h := range rec {
		switch strings.TrimSpace(strings.TrimPrefix(h, "\uFEFF")) {
		case azureTimestamp:
			a.iTime = i
		case azureContext:
			a.iCtx = i
		case azureGenerated:
			a.iGen = i
		}
	}
	a.ncol = len(rec)
	for _, c := range []struct {
		i    int
		name string
	}{{a.iTime, azureTimestamp}, {a.iCtx, azureContext}, {a.iGen, azureGenerated}} {
		if c.i < 0 {
			return traceErr(a.file, 1, "", strings.Join(rec, ","), "header has no %s column (want TIMESTAMP,ContextTokens,GeneratedTokens)", c.name)
		}
	}
	return nil
}

func (a *azureReader) csvErr(err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return traceErr(a.file, pe.Line, "", "", "malformed CSV: %v", pe.Err)
	}
	return traceErr(a.file, 0, "", "", "read error: %v", err)
}

func (a *azureReader) Next() (TraceRow, error) {
	if !a.started {
		a.started = true
		if err := a.header(); err != nil {
			return TraceRow{}, err
		}
	}
	rec, err := a.r.Read()
	if err == io.EOF {
		return TraceRow{}, io.EOF
	}
	if err != nil {
		return TraceRow{}, a.csvErr(err)
	}
	line, _ := a.r.FieldPos(0)
	if len(rec) != a.ncol {
		return TraceRow{}, traceErr(a.file, line, "", strings.Join(rec, ","), "has %d fields, the header has %d", len(rec), a.ncol)
	}
	row := TraceRow{Line: line}
	ts := strings.TrimSpace(rec[a.iTime])
	if row.Time, err = parseAzureTime(ts); err != nil {
		return TraceRow{}, traceErr(a.file, line, azureTimestamp, ts, "want a date-time like 2023-11-16 18:17:03.9799600 or a number of seconds")
	}
	if row.Input, err = parseTokens(rec[a.iCtx]); err != nil {
		return TraceRow{}, traceErr(a.file, line, azureContext, rec[a.iCtx], "%v", err)
	}
	if row.Output, err = parseTokens(rec[a.iGen]); err != nil {
		return TraceRow{}, traceErr(a.file, line, azureGenerated, rec[a.iGen], "%v", err)
	}
	return row, nil
}

// parseAzureTime returns a date-time as Unix seconds, or a plain number of
// seconds.
func parseAzureTime(s string) (float64, error) {
	if v, err := strconv.ParseFloat(s, 64); err == nil {
		if !isFinite(v) {
			return 0, errors.New("not finite")
		}
		return v, nil
	}
	t, err := time.Parse(azureTimeLayout, s)
	if err != nil {
		return 0, err
	}
	return float64(t.Unix()) + float64(t.Nanosecond())*1e-9, nil
}

// maxTraceTokens bounds a trace's token counts.
const maxTraceTokens = MaxCDFTokens

func parseTokens(s string) (int, error) {
	v, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return 0, fmt.Errorf("not an integer number of tokens")
	}
	if v < 1 || v > maxTraceTokens {
		return 0, fmt.Errorf("must be an integer in [1, %d] tokens", maxTraceTokens)
	}
	return v, nil
}

// mooncakeReader reads Mooncake JSONL traces.
type mooncakeReader struct {
	file string
	s    *bufio.Scanner
	line int
}

// maxJSONLLine bounds one JSONL line (Mooncake lines hold hash_ids lists).
const maxJSONLLine = 16 << 20

// NewMooncakeReader returns a reader of a Mooncake JSONL trace: one JSON
// object per line with "timestamp" (milliseconds), "input_length" and
// "output_length" (tokens), and optionally "hash_ids", an array of
// non-negative integers (TraceRow.HashIDs; anything else is an error);
// other keys are ignored, blank lines are skipped. Time is returned in
// seconds. name is the file name used in errors.
func NewMooncakeReader(name string, r io.Reader) TraceReader {
	s := bufio.NewScanner(r)
	s.Buffer(make([]byte, 0, 64<<10), maxJSONLLine)
	return &mooncakeReader{file: name, s: s}
}

type mooncakeRow struct {
	Timestamp    *json.Number    `json:"timestamp"`
	InputLength  *json.Number    `json:"input_length"`
	OutputLength *json.Number    `json:"output_length"`
	HashIDs      json.RawMessage `json:"hash_ids"`
}

// parseHashIDs reads a hash_ids value: a JSON array of integers in
// [0, 2^64); null or absent gives nil.
func parseHashIDs(raw json.RawMessage) ([]uint64, bool) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, true
	}
	var nums []json.Number
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if err := d.Decode(&nums); err != nil || nums == nil {
		return nil, false
	}
	ids := make([]uint64, len(nums))
	for i, n := range nums {
		v, err := strconv.ParseUint(n.String(), 10, 64)
		if err != nil {
			return nil, false
		}
		ids[i] = v
	}
	return ids, true
}

func (m *mooncakeReader) Next() (TraceRow, error) {
	for m.s.Scan() {
		m.line++
		b := bytes.TrimSpace(m.s.Bytes())
		if len(b) == 0 {
			continue
		}
		var v mooncakeRow
		if err := json.Unmarshal(b, &v); err != nil {
			return TraceRow{}, traceErr(m.file, m.line, "", string(b), "not a JSON object with timestamp, input_length, output_length: %v", err)
		}
		row := TraceRow{Line: m.line}
		if v.Timestamp == nil {
			return TraceRow{}, traceErr(m.file, m.line, "timestamp", "", "missing (want milliseconds)")
		}
		ms, err := v.Timestamp.Float64()
		if err != nil || !isFinite(ms) {
			return TraceRow{}, traceErr(m.file, m.line, "timestamp", v.Timestamp.String(), "want a finite number of milliseconds")
		}
		row.Time = ms / 1000
		for _, f := range []struct {
			name string
			v    *json.Number
			dst  *int
		}{{"input_length", v.InputLength, &row.Input}, {"output_length", v.OutputLength, &row.Output}} {
			if f.v == nil {
				return TraceRow{}, traceErr(m.file, m.line, f.name, "", "missing (want tokens)")
			}
			if *f.dst, err = parseTokens(f.v.String()); err != nil {
				return TraceRow{}, traceErr(m.file, m.line, f.name, f.v.String(), "%v", err)
			}
		}
		ids, ok := parseHashIDs(v.HashIDs)
		if !ok {
			return TraceRow{}, traceErr(m.file, m.line, "hash_ids", string(v.HashIDs), "must be an array of non-negative integers (prefix-block hashes)")
		}
		row.HashIDs = ids
		return row, nil
	}
	if err := m.s.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return TraceRow{}, traceErr(m.file, m.line+1, "", "", "line longer than %d bytes", maxJSONLLine)
		}
		return TraceRow{}, traceErr(m.file, m.line+1, "", "", "read error: %v", err)
	}
	return TraceRow{}, io.EOF
}

// checkOrder returns an error when a row's time is before the previous row's
// (times in seconds; the message shows them in the file's unit).
func checkOrder(file, format string, row TraceRow, prev float64) error {
	if row.Time >= prev {
		return nil
	}
	field, scale, unit := azureTimestamp, 1.0, "s"
	switch format {
	case TraceMooncake:
		field, scale, unit = "timestamp", 1000, "ms"
	case TraceGeneric:
		field = genArrival
	}
	f := func(x float64) string { return strconv.FormatFloat(x*scale, 'f', -1, 64) }
	return traceErr(file, row.Line, field, f(row.Time),
		"earlier than the previous row's %s %s (a trace must be sorted by time)", f(prev), unit)
}
