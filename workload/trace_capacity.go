package workload

import (
	"io"
	"math"
	"strconv"
	"strings"
)

// Generic trace columns read by reserved-capacity planning (`fleetsim
// capacity`); the simulator ignores them.
const (
	genCached   = "cached_tokens"
	genThinking = "thinking_tokens"
	genLatency  = "latency_s"
)

// capacityColumns parses a generic row's optional cached_tokens,
// thinking_tokens and latency_s into row (Input already parsed).
func capacityColumns(file string, line int, row *TraceRow, get func(name string) (string, bool)) error {
	if s, ok := get(genCached); ok {
		v, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || v < 0 || v > row.Input {
			return traceErr(file, line, genCached, s, "want an integer number of tokens in [0, input_tokens = %d] (cached tokens are part of the input)", row.Input)
		}
		row.Cached = v
	}
	if s, ok := get(genThinking); ok {
		v, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || v < 0 || v > maxTraceTokens {
			return traceErr(file, line, genThinking, s, "want an integer number of tokens in [0, %d]", maxTraceTokens)
		}
		row.Thinking = v
	}
	if s, ok := get(genLatency); ok {
		v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil || !(v >= 0) || math.IsInf(v, 1) {
			return traceErr(file, line, genLatency, s, "want a finite latency in seconds >= 0")
		}
		row.LatencyS, row.HasLatency = v, true
	}
	return nil
}

// ReadTraceRows reads at most limit rows (limit >= 1) of a trace file in
// the given format ("" = by extension, as Spec.TraceFormat), checking that
// times never go backwards. It is for whole-trace analyses such as
// reserved-capacity planning; a run replays traces through NewSource.
func ReadTraceRows(path, format string, limit int) ([]TraceRow, error) {
	format, err := traceFormat(path, format)
	if err != nil {
		return nil, err
	}
	f, rd, err := openTrace(path, format)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var rows []TraceRow
	for len(rows) < limit {
		row, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if n := len(rows); n > 0 {
			if err := checkOrder(path, format, row, rows[n-1].Time); err != nil {
				return nil, err
			}
		}
		rows = append(rows, row)
	}
	if len(rows) == 0 {
		return nil, traceErr(path, 0, "", "", "has no rows")
	}
	return rows, nil
}
