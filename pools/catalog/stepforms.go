package catalog

import "fmt"

// WVACtx is the context per sequence at which FitForms fits the WVA's
// ITL(bb) = α + β·bb, tokens (the 1K comparison point).
const WVACtx = 1024

// FormFits are the linear forms fitted to one instance's step-time grid
// (GridPoints), each with its residuals.
type FormFits struct {
	Engine  LinearFit // W, H_seq, H_kv, P (docs/model.md) over every grid point
	Papers  LinearFit // the papers' W + H·n over the decode points at CalibCtx (8,192) tokens of context
	ITL     LinearFit // the WVA's decode form: α = W, β = H_seq over decode points at WVACtx
	Prefill LinearFit // the WVA's prefill form at batch 1: γ = W, δ = P over the prefill chunks
}

// FitForms fits the engine's, the papers' and the WVA's linear forms to
// model over points (its grid).
func FitForms(model StepModel, points []StepPoint) (FormFits, error) {
	pick := func(phase string, ctx int) []Batch {
		var out []Batch
		for _, p := range points {
			if p.Phase == phase && (ctx == 0 || p.Ctx == ctx) {
				out = append(out, p.B)
			}
		}
		return out
	}
	var all []Batch
	for _, p := range points {
		all = append(all, p.B)
	}
	var f FormFits
	var err error
	for _, c := range []struct {
		name    string
		dst     *LinearFit
		batches []Batch
		use     [4]bool
	}{
		{"engine form", &f.Engine, all, [4]bool{true, true, true, true}},
		{"papers' W + H·n at 8,192 tokens", &f.Papers, pick(PhaseDecode, CalibCtx), [4]bool{true, true, false, false}},
		{"ITL α + β·bb", &f.ITL, pick(PhaseDecode, WVACtx), [4]bool{true, true, false, false}},
		{"prefill γ + δ·tokens", &f.Prefill, pick(PhasePrefill, 0), [4]bool{true, false, false, true}},
	} {
		if *c.dst, err = FitEngineTiming(model, c.batches, c.use); err != nil {
			return FormFits{}, fmt.Errorf("%s: %w", c.name, err)
		}
	}
	return f, nil
}
