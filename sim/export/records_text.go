package export

import (
	"bufio"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/parquet-go/parquet-go"

	"github.com/fleetsim/fleetsim/sim"
)

// TextSink is a sim.Sink writing the per-request rows as CSV or JSON Lines
// (format "csv" or "jsonl"): the columns of requests.parquet (Row), in the
// same order, with the same values. A NULL is an empty CSV field or a JSON
// null; numbers are written in the shortest form that reads back to the
// same float64 (strconv 'g', -1); booleans true/false. CSV quotes a field
// only when it holds a comma, quote or line break (RFC 4180). Rows are in
// the order the run writes them (completion order), like the Parquet file.
// The file appears at its path only when Close succeeds.
type TextSink struct {
	f      *atomicFile
	w      *bufio.Writer
	format string
	ext    bool // the ExtCols columns too
	buf    extRowBuf
	line   []byte
	rows   int64
	err    error
}

// rowColumns are Row's Parquet column names, extColumns ExtCols'.
var rowColumns, extColumns = columnsOf[Row](), columnsOf[ExtCols]()

func columnsOf[T any]() []string {
	t := reflect.TypeFor[T]()
	cols := make([]string, t.NumField())
	for i := range cols {
		cols[i], _, _ = strings.Cut(t.Field(i).Tag.Get("parquet"), ",")
	}
	return cols
}

// RowColumns returns the column names of requests.parquet, in order.
func RowColumns() []string { return append([]string(nil), rowColumns...) }

// ExtColumns returns the columns an extended requests.parquet adds after
// RowColumns (FileInfo.Extended).
func ExtColumns() []string { return append([]string(nil), extColumns...) }

// NewTextSink starts a CSV or JSONL file at path (its directory must exist).
func NewTextSink(path, format string) (*TextSink, error) { return NewTextSinkExt(path, format, false) }

// NewTextSinkExt is NewTextSink with the ExtCols columns after Row's when
// extended is true (as requests.parquet with FileInfo.Extended).
func NewTextSinkExt(path, format string, extended bool) (*TextSink, error) {
	return NewTextSinkInfo(path, format, FileInfo{Extended: extended})
}

// NewTextSinkInfo is NewTextSinkExt with info.Extended, the file one of
// info.Set when that is not nil (the other fields are not used).
func NewTextSinkInfo(path, format string, info FileInfo) (*TextSink, error) {
	extended := info.Extended
	if format != "csv" && format != "jsonl" {
		return nil, fmt.Errorf("export: text format %q: allowed: csv, jsonl", format)
	}
	f, err := createAtomicIn(info.Set, path)
	if err != nil {
		return nil, err
	}
	s := &TextSink{f: f, w: bufio.NewWriterSize(f, 1<<16), format: format, ext: extended}
	if format == "csv" {
		cols := rowColumns
		if extended {
			cols = append(RowColumns(), extColumns...)
		}
		s.w.WriteString(strings.Join(cols, ",") + "\n")
	}
	return s, nil
}

// Write implements sim.Sink.
func (s *TextSink) Write(r *sim.Record) error {
	if s.err != nil {
		return s.err
	}
	s.buf.set(r)
	var ext *ExtCols
	if s.ext {
		ext = &s.buf.ExtCols
	}
	s.line = appendRow(s.line[:0], &s.buf.Row, ext, s.format == "csv")
	if _, err := s.w.Write(s.line); err != nil {
		s.err = fmt.Errorf("export: writing %s: %w", s.f.path, err)
		return s.err
	}
	s.rows++
	return nil
}

// appendRow appends one row as a CSV line or a JSON object line, with the
// extended columns ext when not nil.
func appendRow(b []byte, r *Row, ext *ExtCols, csv bool) []byte {
	if !csv {
		b = append(b, '{')
	}
	b = appendFields(b, reflect.ValueOf(r).Elem(), rowColumns, csv)
	if ext != nil {
		b = append(b, ',')
		b = appendFields(b, reflect.ValueOf(ext).Elem(), extColumns, csv)
	}
	if !csv {
		b = append(b, '}')
	}
	return append(b, '\n')
}

// appendFields appends the fields of struct v named cols, comma-separated.
func appendFields(b []byte, v reflect.Value, cols []string, csv bool) []byte {
	for i, name := range cols {
		if i > 0 {
			b = append(b, ',')
		}
		if !csv {
			b = strconv.AppendQuote(b, name)
			b = append(b, ':')
		}
		b = appendValue(b, v.Field(i), csv)
	}
	return b
}

func appendValue(b []byte, f reflect.Value, csv bool) []byte {
	switch f.Kind() {
	case reflect.Pointer:
		if f.IsNil() {
			if csv {
				return b
			}
			return append(b, "null"...)
		}
		return appendValue(b, f.Elem(), csv)
	case reflect.Float64:
		return strconv.AppendFloat(b, f.Float(), 'g', -1, 64)
	case reflect.Int32, reflect.Int64:
		return strconv.AppendInt(b, f.Int(), 10)
	case reflect.Bool:
		return strconv.AppendBool(b, f.Bool())
	case reflect.String:
		s := f.String()
		if !csv {
			q, _ := json.Marshal(s)
			return append(b, q...)
		}
		if strings.ContainsAny(s, ",\"\r\n") {
			return append(append(b, '"'), strings.ReplaceAll(s, `"`, `""`)+`"`...)
		}
		return append(b, s...)
	}
	panic("export: unexpected column kind " + f.Kind().String())
}

// Format returns "csv" or "jsonl".
func (s *TextSink) Format() string { return s.format }

// Rows returns the number of rows written.
func (s *TextSink) Rows() int64 { return s.rows }

// Path returns the file's final path.
func (s *TextSink) Path() string { return s.f.path }

// Close flushes the file and renames it into place.
func (s *TextSink) Close() error {
	s.err = s.f.close(s.err, s.w.Flush)
	return s.err
}

// Abort discards the file (a no-op after a successful Close).
func (s *TextSink) Abort() { s.f.abortOpen() }

// TeeSink writes every record to each of sinks in turn.
type TeeSink []sim.Sink

// Write implements sim.Sink; it stops at the first error.
func (t TeeSink) Write(r *sim.Record) error {
	for _, s := range t {
		if err := s.Write(r); err != nil {
			return err
		}
	}
	return nil
}

// TeeSeries hands every time-series interval to each of sinks in turn.
type TeeSeries []sim.SeriesSink

// WriteSeries implements sim.SeriesSink; it stops at the first error.
func (t TeeSeries) WriteSeries(rows []sim.SeriesRow) error {
	for _, s := range t {
		if err := s.WriteSeries(rows); err != nil {
			return err
		}
	}
	return nil
}

// ReadRequestRows reads requests.parquet as its rows (NULL stays nil). It
// loads the whole file; it is meant for tests and small files.
func ReadRequestRows(path string) ([]Row, error) { return parquet.ReadFile[Row](path) }
