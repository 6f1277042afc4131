package experiments

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/fleetsim/fleetsim/pools/catalog"
	"github.com/fleetsim/fleetsim/pools/fleetopt"
	"github.com/fleetsim/fleetsim/sim"
	"github.com/fleetsim/fleetsim/sim/export"
	"github.com/fleetsim/fleetsim/workload"
)

// paperW and paperH are the papers' A100 constants, s (FleetOpt §7.1,
// token-budget paper App. A; catalog profile "a100").
const paperW, paperH = 0.008, 0.00065

// stepPredictor is one iteration-time model compared with the measured
// one on a grid point.
type stepPredictor struct {
	name string
	pred func(p catalog.StepPoint, cal catalog.Calibration) (float64, bool)
}

// stepPredictors are the models the error tables compare: the calibrated
// roofline (with the calibration given), the catalog's printed additive
// roofline and the kv and paper presets of the same computed instance.
var stepPredictors = []stepPredictor{
	{"calibrated roofline", func(p catalog.StepPoint, cal catalog.Calibration) (float64, bool) {
		r, err := catalog.NewCalibratedRoofline(p.Model.Instance(), cal)
		if err != nil {
			return 0, false
		}
		return r.IterTime(p.B), true
	}},
	{"uncalibrated roofline (printed constants: FLOP time added to the weight read)", func(p catalog.StepPoint, _ catalog.Calibration) (float64, bool) {
		r, err := p.Model.Instance().Roofline()
		return catalog.RooflineAdd{R: r}.IterTime(p.B), err == nil
	}},
	{"kv preset (W + H/8192·kv_tokens, prompt tokens free)", func(p catalog.StepPoint, _ catalog.Calibration) (float64, bool) {
		g, err := p.Model.Instance().Profile()
		return catalog.PresetModel{W: g.W, HKV: g.H / float64(g.CalibCtx)}.IterTime(p.B), err == nil
	}},
	{"paper preset (W + H·n_active, prompt tokens free)", func(p catalog.StepPoint, _ catalog.Calibration) (float64, bool) {
		g, err := p.Model.Instance().Profile()
		return catalog.PresetModel{W: g.W, HSeq: g.H}.IterTime(p.B), err == nil
	}},
}

// StepTimes checks fleetsim's iteration-time models against measured GPU
// data (issue #21): the measured-profile model built from Vidur's A100 and
// H100 operator tables is the reference; the calibrated roofline (held-out
// models), the uncalibrated roofline and the kv/paper presets are compared
// with it per GPU, phase and model; the papers' W + H·n is fitted to the
// measured Llama-2-70B; and the FleetOpt PR fleets are re-planned with the
// paper constants, the roofline and the measured model.
func StepTimes(o Options) ([]Table, error) {
	errs, byModel, figs := stepErrorTables()
	cal := stepCalibrationTable()
	w70, err := stepPapersFit()
	if err != nil {
		return nil, err
	}
	fleet, err := stepFleetTable(o)
	if err != nil {
		return nil, err
	}
	errs.Figures = figs
	wva, err := stepWVATable()
	if err != nil {
		return nil, err
	}
	return []Table{errs, cal, byModel, w70, wva, fleet}, nil
}

// heldOutCal returns the calibration of gpu fitted without model.
func heldOutCal(gpu, model string) (catalog.Calibration, error) {
	return catalog.FitCalibration(catalog.GPUStepPoints(gpu, model), "held out: "+model)
}

// stepErrorTables builds the error table (per GPU × phase × predictor), the
// per-model table and the figures.
func stepErrorTables() (Table, Table, []export.Figure) {
	t := Table{
		Name:  "step-times",
		Title: "Step times — calibrated and uncalibrated roofline and the kv/paper presets against the measured-profile model (|relative error| of the iteration time)",
		Source: "issue #21; measured: Vidur's profiled operator tables (microsoft/vidur 7d47513, MIT) for A100 and H100, " +
			"attention, all-reduce and LM head by the roofline (pools/catalog/testdata/measured/SOURCES.md)",
		Columns: []string{"gpu", "phase", "predictor", "points", "median abs err %", "P95 abs err %", "mean err %"},
	}
	m := Table{
		Name:    "step-times-models",
		Title:   "Step times per GPU × model × TP — median |relative error| against the measured model (calibrated: the model held out of the fit)",
		Source:  t.Source,
		Columns: []string{"gpu", "model", "tp", "points", "calibrated, held-out %", "uncalibrated roofline %", "kv preset %", "paper preset %"},
	}
	var figs []export.Figure
	var closing []string
	for _, gpu := range []string{"a100", "h100"} {
		all := map[string]map[string][]float64{} // predictor → phase → errors
		inSample, linear := map[string][]float64{}, map[string][]float64{}
		stored, _ := catalog.CalibrationFor(gpu)
		for _, tb := range catalog.MeasuredTables() {
			if tb.GPU != gpu {
				continue
			}
			hc, err := heldOutCal(gpu, tb.Model.Name)
			if err != nil {
				continue
			}
			byTP := map[int]map[string][]float64{}
			for _, p := range catalog.StepPoints(tb) {
				tp := p.Model.TP
				if byTP[tp] == nil {
					byTP[tp] = map[string][]float64{}
				}
				for _, sp := range stepPredictors {
					v, ok := sp.pred(p, hc)
					if !ok {
						continue
					}
					e := catalog.RelErr(v, p.Measured)
					if all[sp.name] == nil {
						all[sp.name] = map[string][]float64{}
					}
					all[sp.name][p.Phase] = append(all[sp.name][p.Phase], e)
					byTP[tp][sp.name] = append(byTP[tp][sp.name], e)
				}
				if v, ok := stepPredictors[0].pred(p, stored); ok {
					inSample[p.Phase] = append(inSample[p.Phase], catalog.RelErr(v, p.Measured))
				}
				if r, err := catalog.NewCalibratedRoofline(p.Model.Instance(), hc); err == nil {
					linear[p.Phase] = append(linear[p.Phase], catalog.RelErr(r.LinearTime(p.B), p.Model.LinearTime(p.B)))
				}
			}
			tps := make([]int, 0, len(byTP))
			for tp := range byTP {
				tps = append(tps, tp)
			}
			sort.Ints(tps)
			for _, tp := range tps {
				e := byTP[tp]
				r := []any{gpu, tb.Model.Name, tp, len(e[stepPredictors[0].name])}
				for _, sp := range stepPredictors {
					r = append(r, Num{100 * catalog.AbsQuantile(e[sp.name], 0.5), 1})
				}
				m.Rows = append(m.Rows, r)
			}
		}
		for _, ph := range []string{catalog.PhaseDecode, catalog.PhasePrefill, "decode + prefill"} {
			pick := func(byPhase map[string][]float64) []float64 {
				if ph == "decode + prefill" {
					return append(append([]float64{}, byPhase[catalog.PhaseDecode]...), byPhase[catalog.PhasePrefill]...)
				}
				return byPhase[ph]
			}
			add := func(name string, e []float64) {
				mean := 0.0
				for _, x := range e {
					mean += x
				}
				t.Rows = append(t.Rows, []any{gpu, ph, name, len(e), Num{100 * catalog.AbsQuantile(e, 0.5), 1},
					Num{100 * catalog.AbsQuantile(e, 0.95), 1}, Num{100 * mean / float64(max(len(e), 1)), 1}})
			}
			add("calibrated roofline, held-out (model left out of the fit)", pick(all[stepPredictors[0].name]))
			if ph == "decode + prefill" {
				h, u := pick(all[stepPredictors[0].name]), pick(all[stepPredictors[1].name])
				k, pp := pick(all[stepPredictors[2].name]), pick(all[stepPredictors[3].name])
				verdict := "within"
				if catalog.AbsQuantile(h, 0.5) > 0.10 || catalog.AbsQuantile(h, 0.95) > 0.25 {
					verdict = "NOT within"
				}
				closing = append(closing, fmt.Sprintf("%s: held-out calibrated median %.1f%%, P95 %.1f%% (%s the bounds); uncalibrated roofline %.1f%% / %.1f%%, kv %.1f%% / %.1f%%, paper %.1f%% / %.1f%%",
					gpu, 100*catalog.AbsQuantile(h, 0.5), 100*catalog.AbsQuantile(h, 0.95), verdict,
					100*catalog.AbsQuantile(u, 0.5), 100*catalog.AbsQuantile(u, 0.95), 100*catalog.AbsQuantile(k, 0.5), 100*catalog.AbsQuantile(k, 0.95),
					100*catalog.AbsQuantile(pp, 0.5), 100*catalog.AbsQuantile(pp, 0.95)))
			}
			add("calibrated roofline, in-sample (stored constants)", pick(inSample))
			add("calibrated roofline, held-out, linear operators only (the measured part, no shared terms)", pick(linear))
			for _, sp := range stepPredictors[1:] {
				add(sp.name, pick(all[sp.name]))
			}
		}
		figs = append(figs, stepFigures(gpu)...)
	}
	t.Notes = []string{
		"The reference is the measured-profile model (catalog.MeasuredModel): per layer, Vidur's profiled medians of every operator but attention (norms, QKV/output projections, rotary, gated MLP, add), interpolated in token count, times the layers, plus the embedding; attention (KV reads at 80% of peak bandwidth, prefill FLOPs at 70% of peak), the TP all-reduces and the LM head by the roofline (Vidur's attention tables are not in the stored copy); plus 126 µs per step (BLIS trained-physics β₇). Those unmeasured terms are the same on both sides of the comparison, so the errors are those of the layers' linear operators diluted by the shared terms.",
		"Grid: decode batches 1–256 at 512–32,768 tokens of context per sequence (where the batch's KV fits the instance), single prefill chunks of 128–8,192 tokens from an empty context (within the table: 4,096 tokens for Llama-2, CodeLlama, InternLM, Qwen; 32,768 for Llama-3), every TP degree (1, 2, 4, 8) whose weights fit.",
		"Held-out: for each model, the calibration (memory and compute efficiency, per-layer and per-step constants) is fitted by least squares to the GPU's other models and tested on it (leave-one-model-out); every model is held out once. Acceptance (issue #21): held-out median ≤ 10% and P95 ≤ 25% on A100 and on H100 over decode + prefill.",
		"kv and paper presets: the computed instance's roofline W and H (W + H·8192-token context) in the engine's two paper forms; neither charges prompt tokens, so a prefill chunk costs about W (the prefill rows). The calibrated roofline takes max(weight read, GEMM FLOPs) per layer; the uncalibrated one adds them (catalog Roofline, kept for the printed profile and the reproduced numbers that use it).",
		"Result (decode + prefill, |error| median / P95) — " + strings.Join(closing, "; ") + ".",
	}
	return t, m, figs
}

// stepFigures draws, for gpu's Llama-2-70B TP4 table, decode time vs batch
// (4K context), decode time vs context (batch 32) and prefill time vs
// chunk: measured, calibrated roofline (held out), uncalibrated roofline,
// kv and paper presets.
func stepFigures(gpu string) []export.Figure {
	t, err := catalog.LookupMeasured(gpu, "llama-2-70b-hf")
	if err != nil {
		return nil
	}
	mm, err := catalog.NewMeasuredModel(t, 4)
	if err != nil {
		return nil
	}
	hc, err := heldOutCal(gpu, t.Model.Name)
	if err != nil {
		return nil
	}
	type axis struct {
		stem, title, xlabel string
		xs                  []int
		batch               func(x int) catalog.Batch
	}
	axes := []axis{
		{"decode-batch", "decode, 4,096 tokens of context", "decode batch (sequences)", catalog.GridDecodeBatches, func(x int) catalog.Batch { return catalog.DecodeBatch(x, 4096) }},
		{"decode-context", "decode, batch 32", "context per sequence (tokens)", catalog.GridContexts, func(x int) catalog.Batch { return catalog.DecodeBatch(32, x) }},
		{"prefill", "one prefill chunk from an empty context", "chunk (tokens)", catalog.GridChunks[:6], func(x int) catalog.Batch { return catalog.PrefillBatch(x, 0) }},
	}
	var out []export.Figure
	for _, a := range axes {
		f := export.Figure{Name: "step-times-" + gpu + "-" + a.stem, Title: fmt.Sprintf("%s Llama-2-70B TP4: %s", gpu, a.title),
			XLabel: a.xlabel, YLabel: "iteration time (ms)", LogX: true, LogY: true}
		meas := export.FigureSeries{Name: "measured (Vidur tables + roofline attention)"}
		preds := make([]export.FigureSeries, len(stepPredictors))
		for i, sp := range stepPredictors {
			preds[i] = export.FigureSeries{Name: sp.name, Dashed: i > 0}
		}
		preds[0].Name = "calibrated roofline (held out)"
		for _, x := range a.xs {
			b := a.batch(x)
			p := catalog.StepPoint{Model: mm, B: b, Measured: mm.IterTime(b)}
			meas.X, meas.Y = append(meas.X, float64(x)), append(meas.Y, 1e3*p.Measured)
			for i, sp := range stepPredictors {
				if v, ok := sp.pred(p, hc); ok {
					preds[i].X, preds[i].Y = append(preds[i].X, float64(x)), append(preds[i].Y, 1e3*v)
				}
			}
		}
		f.Series = append([]export.FigureSeries{meas}, preds...)
		out = append(out, f)
	}
	return out
}

// stepCalibrationTable lists the stored calibrations.
func stepCalibrationTable() Table {
	t := Table{
		Name:    "step-times-calibration",
		Title:   "Step times — the calibrated roofline's constants per GPU (fitted to every model's table of the GPU)",
		Source:  "pools/catalog calibrations (TestStoredCalibrations refits them)",
		Columns: []string{"gpu", "memory efficiency", "compute efficiency", "per layer µs", "per step µs", "source"},
	}
	for _, gpu := range []string{"a100", "h100"} {
		c, _ := catalog.CalibrationFor(gpu)
		t.Rows = append(t.Rows, []any{gpu, Num{c.Mem, 3}, Num{c.Compute, 3}, Num{c.LayerS * 1e6, 1}, Num{c.StepS * 1e6, 1}, c.Source})
	}
	t.Notes = []string{
		"Uncalibrated defaults (catalog.DefaultEfficiency): memory 0.80, compute 0.70, 10 µs per layer, nothing per step. The per-step constant fits to 0: the measured reference already carries BLIS's 126 µs per step and the per-layer constant absorbs the rest.",
	}
	return t
}

// stepPapersFit fits the papers' W + H·n to the measured Llama-2-70B A100
// data at TP 4 and 8 (decode at 8,192 tokens of context) and compares
// with the papers' 8 ms and 0.65 ms.
func stepPapersFit() (Table, error) {
	t := Table{
		Name:    "step-times-70b",
		Title:   "Step times — the papers' t_iter = W + H·n fitted to the measured Llama-2-70B on A100 (decode at 8,192 tokens of context)",
		Source:  "FleetOpt §7.1 / token-budget paper App. A (W = 8 ms, H = 0.65 ms); measured: Vidur a100 Llama-2-70B",
		Columns: append([]string{"tp", "quantity"}, CompareColumns...),
	}
	tb, err := catalog.LookupMeasured("a100", "llama-2-70b-hf")
	if err != nil {
		return Table{}, err
	}
	for _, tp := range []int{4, 8} {
		m, err := catalog.NewMeasuredModel(tb, tp)
		if err != nil {
			return Table{}, err
		}
		f, err := catalog.FitForms(m, m.GridPoints())
		if err != nil {
			return Table{}, err
		}
		k := []any{tp}
		t.Rows = append(t.Rows,
			row(append(k, "W ms"), Compare(1e3*f.Papers.Timing.W, 1e3*paperW, 2)),
			row(append(k, "H ms"), Compare(1e3*f.Papers.Timing.HSeq, 1e3*paperH, 3)),
			row(append(k, "fit median abs err %"), Compare(100*f.Papers.Median, nan, 2)),
			row(append(k, "fit max abs err %"), Compare(100*f.Papers.Max, nan, 2)),
			row(append(k, "engine form over the whole grid: median / P95 abs err %"), []any{fmt.Sprintf("%.1f / %.1f", 100*f.Engine.Median, 100*f.Engine.P95), nil, nil, nil}),
			row(append(k, "1,024-token prefill ms (WVA form γ + δ·1024)"), Compare(1e3*(f.Prefill.Timing.W+1024*f.Prefill.Timing.P), nan, 1)),
		)
	}
	t.Notes = []string{
		"The papers' W is per 'GPU' of a model that does not fit one GPU: an A100 TP4 rank reads 34.5 GB of Llama-2-70B weights per step, at least 16.9 ms at the datasheet's 2,039 GB/s; at TP8 8.4 ms. The measured W is per instance (one TP group), so it lies 2–3× above 8 ms, while H, the per-sequence cost at 8K context, is of the papers' order.",
		"Same fit from the command line: fleetsim fit --measured a100/llama-2-70b-hf/tp4 (and tp8).",
	}
	return t, nil
}

// WVA's measured H100 / Llama-3.1-8B profile, ms (llm-d-incubation/
// workload-variant-autoscaler 56a651b, charts/.../variantautoscaling.yaml,
// Apache-2.0; testdata/measured/SOURCES.md): ITL = α + β·batch, TTFT =
// γ + δ·tokens·batch.
const wvaAlpha, wvaBeta, wvaGamma, wvaDelta = 7.470, 0.044, 15.415, 0.000337

// stepWVATable compares the models with the WVA's H100 Llama-3.1-8B
// profile, which has no Vidur table: decode at batch 1 and 32 (1,024
// tokens of context) and a 1,024-token prefill.
func stepWVATable() (Table, error) {
	t := Table{
		Name:    "step-times-wva",
		Title:   "Step times — H100 / Llama-3.1-8B TP1 against the WVA's measured profile (1,024 tokens of context)",
		Source:  "llm-d-incubation/workload-variant-autoscaler 56a651b (α 7.470, β 0.044, γ 15.415, δ 0.000337 ms; Apache-2.0)",
		Columns: append([]string{"quantity", "model"}, CompareColumns...),
	}
	g, err := catalog.LookupGPU("h100/llama-3.1-8b/tp1")
	if err != nil {
		return Table{}, err
	}
	cal, _ := catalog.CalibrationFor("h100")
	cr, err := catalog.NewCalibratedRoofline(*g.Inst, cal)
	if err != nil {
		return Table{}, err
	}
	r, err := g.Inst.Roofline()
	if err != nil {
		return Table{}, err
	}
	models := []struct {
		name string
		m    catalog.StepModel
	}{
		{"calibrated roofline", cr},
		{"uncalibrated roofline", catalog.RooflineAdd{R: r}},
		{"kv preset", catalog.PresetModel{W: g.W, HKV: g.H / float64(g.CalibCtx)}},
	}
	for _, q := range []struct {
		name  string
		b     catalog.Batch
		paper float64
	}{
		{"decode, batch 1, ms", catalog.DecodeBatch(1, 1024), wvaAlpha + wvaBeta},
		{"decode, batch 32, ms", catalog.DecodeBatch(32, 1024), wvaAlpha + 32*wvaBeta},
		{"prefill 1,024 tokens, ms (WVA γ + δ·1024: implausible, see note)", catalog.PrefillBatch(1024, 0), wvaGamma + 1024*wvaDelta},
	} {
		for _, m := range models {
			t.Rows = append(t.Rows, row([]any{q.name, m.name}, Compare(1e3*m.m.IterTime(q.b), q.paper, 2)))
		}
	}
	t.Notes = []string{
		"'paper' here is the WVA's profile. Its decode α, β are plausible (batch-1 ITL 7.5 ms: 16 GB of weights at 64% of the H100's 3.35 TB/s); its prefill is not a usable measurement: γ + δ·4096 = 16.8 ms for a 4,096-token prompt is below the 66 ms an H100 needs at 100% of its dense BF16 peak, so the prefill rows show the conflict rather than an error of ours. Vidur has no H100 Llama-3.1-8B table, so the calibrated roofline here is a held-out prediction (calibrated on other models). It is 10–15% below the WVA's decode times: Vidur's tables time kernels, so the calibration has no serving-framework overhead per step (scheduler, sampling, detokenization) that an end-to-end vLLM measurement such as the WVA's includes (about 1 ms here).",
	}
	return t, nil
}

// stepFleetCases are step 4's workloads: FleetOpt's Azure and LMSYS PR
// fleets at λ = 1,000 req/s.
var stepFleetCases = fleetOptCases[:2]

// stepRhoMax is the planner's utilization cap, applied to the measured
// capacity.
const stepRhoMax = 0.85

// stepFleetTable re-plans the FleetOpt PR fleets with three iteration-time
// models for Llama-3-70B on A100 — the papers' constants (per "GPU"), the
// computed TP instance's roofline and the measured model (its decode fit in
// the planner's kv form) — and sizes each pool of the computed instances
// from its capacity under the measured timing (saturated simulation).
func stepFleetTable(o Options) (Table, error) {
	t := Table{
		Name:  "step-times-fleet",
		Title: "Step times — FleetOpt PR fleets (λ = 1,000 req/s) planned with the paper constants, the roofline and the measured model, Llama-3-70B on A100",
		Source: "issue #21 step 4; FleetOpt (arXiv 2603.16514) Table 3 PR rows (Azure 43 + 131, LMSYS 7 + 74 GPUs); " +
			"measured: Vidur a100 Meta-Llama-3-70B",
		Columns: []string{"workload", "timing model", "W ms", "H ms (8K ctx)", "short instances", "long instances", "GPUs", "planner P99 TTFT short / long ms",
			"measured capacity short / long req/s per instance", "instances at ρ 0.85 of it short / long", "GPUs then"},
	}
	paper, err := catalog.LookupGPU("a100")
	if err != nil {
		return Table{}, err
	}
	type prof struct {
		name string
		g    catalog.GPU
		inst bool
	}
	profs := []prof{{"paper constants (a100, per GPU)", paper, false}}
	for _, tp := range []int{4, 8} {
		g, err := catalog.LookupGPU(catalog.InstanceName("a100", "llama-3-70b", tp))
		if err != nil {
			return Table{}, err
		}
		profs = append(profs, prof{fmt.Sprintf("roofline, TP%d", tp), g, true})
		mg, err := measuredProfile(g)
		if err != nil {
			return Table{}, err
		}
		profs = append(profs, prof{fmt.Sprintf("measured, TP%d", tp), mg, true})
	}
	for _, c := range stepFleetCases {
		capacity := map[int][2]float64{} // TP → short, long req/s per instance
		for _, p := range profs {
			o.say("step-times: planning %s with %s", c.Workload, p.name)
			pl, _, err := newPlanner(c.Workload, fleetopt.Config{Rate: FleetOptRate, BShort: c.BShort, PC: c.PC, ShortGPU: p.g, LongGPU: p.g})
			if err != nil {
				return Table{}, err
			}
			plan, err := pl.Run([]string{fleetopt.MethodPR})
			if err != nil {
				return Table{}, err
			}
			m := plan.Methods[0]
			s, _ := poolOf(m, "short")
			l, _ := poolOf(m, "long")
			gpus := m.TotalPhysicalGPUs() // instances × tp
			r := []any{c.Label, p.name, Num{1e3 * p.g.W, 2}, Num{1e3 * p.g.H, 3}, s.GPUs, l.GPUs, gpus,
				fmt.Sprintf("%.0f / %.0f", 1e3*s.P99TTFTS, 1e3*l.P99TTFTS)}
			if !p.inst {
				t.Rows = append(t.Rows, append(r, nil, nil, nil))
				continue
			}
			tp := p.g.GPUsPerInstance()
			cp, ok := capacity[tp]
			if !ok {
				o.say("step-times: measured capacity of %s pools (%s)", p.g.Name, c.Workload)
				for i := range cp {
					if cp[i], err = satThroughput(o, c.Workload, plan.InputFraction, p.g, c.BShort, i); err != nil {
						return Table{}, err
					}
				}
				capacity[tp] = cp
			}
			ns := int(math.Ceil(s.ArrivalRate / (stepRhoMax * cp[0])))
			nl := int(math.Ceil(l.ArrivalRate / (stepRhoMax * cp[1])))
			t.Rows = append(t.Rows, append(r, fmt.Sprintf("%.2f / %.3f", cp[0], cp[1]), fmt.Sprintf("%d / %d", ns, nl), (ns+nl)*tp))
		}
	}
	t.Notes = []string{
		"Planner: FleetOpt's PR method (exact calibration, kv timing: t_iter = W + H/8192·kv_tokens, ρ_max 0.85, P99 TTFT SLO 0.5 s). 'roofline' is the computed instance a100/llama-3-70b/tpN (W, H from the catalog roofline); 'measured' is the same instance with W and H (= 8,192·H_kv) fitted to the measured model's decode grid: the planner's form has no prompt-token term, so neither plan pays for prefill. Instances are TP groups; GPUs = instances × TP. The paper-constant plan counts 'GPUs' of the papers' profile (8 ms, 0.65 ms per GPU), which no A100 holding Llama-3-70B reaches (step-times-70b).",
		fmt.Sprintf("Measured capacity: the completions per second of %d instances of the pool kept saturated (the other pool of the fleet given ample instances), simulated by sim.Run with timing measured — the measured model fitted per pool over its operating region, prompt tokens charged — %d requests, seed %d. Instances at ρ 0.85 = ⌈λ_pool / (0.85 · capacity)⌉ with the plan's λ_pool. Roofline and measured rows of one TP share the instance and so the capacity.", satInstances, satRequests, o.seed(1)),
	}
	return t, nil
}

// Saturation runs: satInstances instances of the measured pool, arrivals
// at satRate req/s, satRequests requests; the other pool gets satOther
// instances.
const (
	satInstances = 4
	satRate      = 200
	satRequests  = 60000
	satOther     = 400
)

// satThroughput is the completions per second per instance of pool which
// (0 short, 1 long) of a PR fleet of g at boundary bShort, kept saturated,
// under the measured timing.
func satThroughput(o Options, wl string, inputFraction float64, g catalog.GPU, bShort, which int) (float64, error) {
	cfg := sim.Defaults()
	cfg.Seed = o.seed(1)
	cfg.Timing = catalog.TimingMeasured
	cfg.Workload = workload.Spec{CDF: wl, Rate: satRate, Requests: satRequests, InputFraction: inputFraction}
	counts := [2]int{satOther, satOther}
	counts[which] = satInstances
	gs, gl := g, g
	cfg.Pools = []sim.PoolConfig{
		{Name: "short", GPU: g.Name, Count: counts[0], MaxContext: bShort, Instance: &gs},
		{Name: "long", GPU: g.Name, Count: counts[1], MaxContext: fleetopt.DefaultLongCtx, Instance: &gl},
	}
	if err := cfg.Validate(); err != nil {
		return 0, err
	}
	src, err := workload.NewSource(cfg.Workload, cfg.Seed)
	if err != nil {
		return 0, err
	}
	sum, err := sim.Run(cfg, src, nil, sim.Options{Stop: o.Stop})
	if err != nil {
		return 0, err
	}
	p := sum.Pools[which]
	if !p.Overloaded {
		return 0, fmt.Errorf("%s: the %s pool's saturation run is not saturated (raise satRate)", wl, p.Name)
	}
	return p.ThroughputRPS / float64(satInstances), nil
}

// measuredProfile is g (a computed instance) with W and H replaced by the
// {W, H_kv} fit of its measured model's decode grid (H = CalibCtx·H_kv),
// the planner's kv form.
func measuredProfile(g catalog.GPU) (catalog.GPU, error) {
	sm, err := g.StepModel(catalog.TimingMeasured)
	if err != nil {
		return catalog.GPU{}, err
	}
	mm := sm.(*catalog.MeasuredModel)
	var dec []catalog.Batch
	for _, p := range mm.GridPoints() {
		if p.Phase == catalog.PhaseDecode {
			dec = append(dec, p.B)
		}
	}
	f, err := catalog.FitEngineTiming(mm, dec, [4]bool{true, false, true, false})
	if err != nil {
		return catalog.GPU{}, err
	}
	g.W, g.H = f.Timing.W, f.Timing.HKV*float64(g.CalibCtx)
	g.Source = "measured: " + mm.Table.Name + " decode grid, {W, H_kv} least squares"
	return g, nil
}
