package export

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"reflect"

	"github.com/fleetsim/fleetsim/sim"
)

// OutputFile describes one file a run wrote, as recorded in summary.json.
type OutputFile struct {
	Name  string `json:"name"`            // file name inside the output directory
	Kind  string `json:"kind"`            // "parquet", "csv"
	Stats *Stats `json:"stats,omitempty"` // totals of the rows written
}

// SummaryFile is the content of summary.json: the run's summary (config,
// version, per-pool and fleet metrics) with the seed repeated at the top
// level and the files written beside it. It holds no wall-clock time, so the
// same run gives byte-identical files.
type SummaryFile struct {
	*sim.Summary
	Seed    uint64       `json:"seed"`
	Outputs []OutputFile `json:"outputs"`
}

// nanMark stands for a NaN or infinite metric while encoding; it is written
// as null. JSON has no NaN, and an empty pool has no latency quantiles.
const nanMark = math.SmallestNonzeroFloat64

// MarshalSummary encodes a summary as indented JSON (two spaces, a final
// newline). NaN and infinite metrics are written as null.
func MarshalSummary(s *sim.Summary, outputs []OutputFile) ([]byte, error) {
	if s == nil {
		return nil, fmt.Errorf("export: nil summary")
	}
	cp := *s
	cp.Pools = append([]sim.PoolMetrics(nil), s.Pools...)
	replaceNaN(reflect.ValueOf(&cp).Elem())
	if outputs == nil {
		outputs = []OutputFile{}
	}
	f := SummaryFile{Summary: &cp, Seed: cp.Config.Seed, Outputs: outputs}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(f); err != nil {
		return nil, fmt.Errorf("export: encoding summary: %w", err)
	}
	mark, _ := json.Marshal(nanMark)
	return bytes.ReplaceAll(buf.Bytes(), append([]byte(": "), mark...), []byte(": null")), nil
}

// replaceNaN sets every NaN or infinite float64 reachable in v (structs,
// slices, arrays, pointers; not through maps) to nanMark. The slices and
// pointed-to values it enters through a settable v are copied first, so
// that the caller's summary, which v's copy shares them with, is not
// modified (a pool's *DisaggMetrics holds NaN quantiles when no transfer
// was measured).
func replaceNaN(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() || !v.CanSet() {
			return
		}
		n := reflect.New(v.Elem().Type())
		n.Elem().Set(v.Elem())
		v.Set(n)
		replaceNaN(n.Elem())
		return
	case reflect.Float64, reflect.Float32:
		if x := v.Float(); math.IsNaN(x) || math.IsInf(x, 0) {
			v.SetFloat(nanMark)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				replaceNaN(v.Field(i))
			}
		}
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.CanSet() && v.Len() > 0 {
			n := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
			reflect.Copy(n, v)
			v.Set(n)
		}
		for i := range v.Len() {
			replaceNaN(v.Index(i))
		}
	}
}

// WriteSummaryJSON writes summary.json to path (through a temporary file).
func WriteSummaryJSON(path string, s *sim.Summary, outputs []OutputFile) error {
	b, err := MarshalSummary(s, outputs)
	if err != nil {
		return err
	}
	return WriteFileAtomic(path, b)
}

// EncodeSummary writes the summary JSON to w (for --format json).
func EncodeSummary(w io.Writer, s *sim.Summary, outputs []OutputFile) error {
	b, err := MarshalSummary(s, outputs)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}
