package main

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/fleetsim/fleetsim/pools/catalog"
)

// maxMeasuredBytes bounds a --table file.
const maxMeasuredBytes = 16 << 20

// fitMeasured is `fleetsim fit --measured GPU/MODEL/tpN [--table FILE]`:
// the engine's, the papers' and the WVA's linear forms fitted to the
// measured-profile model on the step-times grid, with their residuals.
func fitMeasured(stdout io.Writer, spec, table string) error {
	parts := strings.Split(spec, "/")
	if len(parts) != 3 || !strings.HasPrefix(parts[2], "tp") {
		return badInput("--measured %q: want GPU/MODEL/tpN (e.g. a100/llama-2-70b-hf/tp4)", spec)
	}
	gpu, model := strings.ToLower(parts[0]), strings.ToLower(parts[1])
	tp, err := strconv.Atoi(parts[2][2:])
	if err != nil || tp < 1 || tp > catalog.MaxTP {
		return badInput("--measured %q: tp %q must be an integer in [1, %d]", spec, parts[2], catalog.MaxTP)
	}
	var t *catalog.MeasuredTable
	if table != "" {
		data, err := readInput("--table", table, maxMeasuredBytes)
		if err != nil {
			return badInput("%s", oneLine(err))
		}
		if t, err = catalog.ParseMeasuredTable(filepath.Base(table), gpu, bytes.NewReader(data)); err != nil {
			return badInput("--table %q: %s", table, oneLine(err))
		}
		// The file's name is free; the spec names the model.
		t.Model.Name = model
	} else if t, err = catalog.LookupMeasured(gpu, model); err != nil {
		return badInput("--measured %q: %s", spec, oneLine(err))
	}
	m, err := catalog.NewMeasuredModel(t, tp)
	if err != nil {
		return badInput("--measured %q: %s", spec, oneLine(err))
	}
	if err := m.Instance().Validate(); err != nil {
		return badInput("--measured %q: %s", spec, oneLine(err))
	}
	pts := m.GridPoints()
	f, err := catalog.FitForms(m, pts)
	if err != nil {
		return badInput("--measured %q: %s", spec, oneLine(err))
	}
	fmt.Fprintf(stdout, "measured model %s/%s/tp%d: table %s (linear operators measured; attention, all-reduce, LM head by the roofline; %.0f µs per step), %d grid points\n\n",
		gpu, t.Model.Name, tp, t.Name, catalog.MeasuredStepS*1e6, len(pts))
	fmt.Fprintln(stdout, "| form | W (α, γ) ms | H_seq (β) ms | H_kv µs/token | P (δ) ms/token | median err | P95 err | max err | points |")
	fmt.Fprintln(stdout, "|---|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, r := range []struct {
		name string
		f    catalog.LinearFit
	}{
		{"engine: W + H_seq·n + H_kv·kv + P·prefill, whole grid", f.Engine},
		{fmt.Sprintf("papers: W + H·n, decode at %d tokens", catalog.CalibCtx), f.Papers},
		{fmt.Sprintf("WVA ITL: α + β·bb, decode at %d tokens", catalog.WVACtx), f.ITL},
		{"WVA prefill: γ + δ·tokens, one prompt", f.Prefill},
	} {
		tm := r.f.Timing
		fmt.Fprintf(stdout, "| %s | %.3f | %.4f | %.4f | %.5f | %.1f%% | %.1f%% | %.1f%% | %d |\n", r.name,
			tm.W*1e3, tm.HSeq*1e3, tm.HKV*1e6, tm.P*1e3, 100*r.f.Median, 100*r.f.P95, 100*r.f.Max, r.f.Points)
	}
	return nil
}
