package catalog

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// Step-time grid (issue #21): decode batches 1–256 at 512–32K tokens of
// context per sequence (those whose KV fits the instance), and single
// prefill chunks of 128–8K tokens from an empty context (those within the
// table's token range).
var (
	GridDecodeBatches = []int{1, 2, 4, 8, 16, 32, 64, 128, 256}
	GridContexts      = []int{512, 1024, 2048, 4096, 8192, 16384, 32768}
	GridChunks        = []int{128, 256, 512, 1024, 2048, 4096, 8192}
)

// Phases of a grid point.
const (
	PhaseDecode  = "decode"
	PhasePrefill = "prefill"
)

// StepPoint is one grid point of a measured table: the batch, its phase,
// the instance and the measured model's iteration time.
type StepPoint struct {
	Model    *MeasuredModel
	B        Batch
	Phase    string
	Ctx      int     // decode: context per sequence; prefill: chunk tokens
	Measured float64 // MeasuredModel.IterTime, s
}

// StepPoints returns the grid points of every TP degree of table t whose
// instance is valid (the weights fit and leave KV room).
func StepPoints(t *MeasuredTable) []StepPoint {
	var out []StepPoint
	for _, tp := range t.TPs {
		m, err := NewMeasuredModel(t, tp)
		if err != nil || m.Instance().Validate() != nil {
			continue
		}
		out = append(out, m.GridPoints()...)
	}
	return out
}

// GridPoints returns the step-time grid of m's instance: the decode
// batches whose KV fits the instance and whose tokens are within the
// table, and the prefill chunks within the table.
func (m *MeasuredModel) GridPoints() []StepPoint {
	var out []StepPoint
	capTokens := float64(m.Instance().KVBlocks()) * float64(m.Instance().BlockTokens)
	maxTok := m.Table.MaxTokens(m.TP)
	for _, n := range GridDecodeBatches {
		for _, ctx := range GridContexts {
			if float64(n)*float64(ctx) > capTokens || float64(n) > maxTok {
				continue
			}
			b := DecodeBatch(n, ctx)
			out = append(out, StepPoint{Model: m, B: b, Phase: PhaseDecode, Ctx: ctx, Measured: m.IterTime(b)})
		}
	}
	for _, c := range GridChunks {
		if float64(c) > maxTok || float64(c) > capTokens {
			continue
		}
		b := PrefillBatch(c, 0)
		out = append(out, StepPoint{Model: m, B: b, Phase: PhasePrefill, Ctx: c, Measured: m.IterTime(b)})
	}
	return out
}

// FitCalibration fits a Calibration to points by least squares on the
// relative error of the iteration time: the unknowns 1/Mem, 1/Compute,
// LayerS and StepS enter linearly once each layer's branch of
// max(memory, compute) is fixed, so the fit alternates branch choice and a
// linear least-squares solve until the branches stop changing (at most 50
// rounds); a negative constant is pinned to 0 and the rest refitted.
func FitCalibration(points []StepPoint, source string) (Calibration, error) {
	if len(points) < 4 {
		return Calibration{}, fmt.Errorf("calibration: %d points, need at least 4", len(points))
	}
	type row struct{ mem, flop, layers, shared, y float64 }
	rows := make([]row, len(points))
	for i, p := range points {
		r, err := NewCalibratedRoofline(p.Model.Instance(), Calibration{Mem: 1, Compute: 1})
		if err != nil {
			return Calibration{}, err
		}
		mem, flop := r.layerTerms(p.B.Tokens())
		L := float64(r.In.Model.Layers)
		rows[i] = row{mem: L * mem, flop: L * flop, layers: L, shared: r.u.time(p.B), y: p.Measured}
	}
	a, b := 1/DefaultEfficiency.Mem, 1/DefaultEfficiency.Compute
	var x [4]float64
	branch := make([]bool, len(rows)) // true: compute-bound
	free := [4]bool{true, true, true, true}
	for round := 0; round < 50; round++ {
		changed := round == 0
		for i, r := range rows {
			c := r.flop*b > r.mem*a
			changed = changed || c != branch[i]
			branch[i] = c
		}
		if !changed {
			break
		}
		for {
			cols := []int{}
			for j := range free {
				if free[j] {
					cols = append(cols, j)
				}
			}
			A := mat.NewDense(len(rows), len(cols), nil)
			y := mat.NewVecDense(len(rows), nil)
			for i, r := range rows {
				feat := [4]float64{0, 0, r.layers, 1}
				if branch[i] {
					feat[1] = r.flop
				} else {
					feat[0] = r.mem
				}
				for k, j := range cols {
					A.Set(i, k, feat[j]/r.y)
				}
				y.SetVec(i, (r.y-r.shared)/r.y)
			}
			var sol mat.VecDense
			if err := sol.SolveVec(A, y); err != nil {
				return Calibration{}, fmt.Errorf("calibration: least squares: %w", err)
			}
			x = [4]float64{}
			neg := false
			for k, j := range cols {
				x[j] = sol.AtVec(k)
				if x[j] < 0 && j >= 2 {
					free[j], neg = false, true
				}
			}
			if !neg {
				break
			}
		}
		if x[0] > 0 {
			a = x[0]
		}
		if x[1] > 0 {
			b = x[1]
		}
	}
	if !(x[0] > 0 && x[1] > 0) {
		return Calibration{}, fmt.Errorf("calibration: fitted 1/mem %v, 1/compute %v: not positive (data has no point on one side of the roofline?)", x[0], x[1])
	}
	return Calibration{Mem: 1 / x[0], Compute: 1 / x[1], LayerS: x[2], StepS: x[3], Source: source}, nil
}

// GPUStepPoints returns the grid points of every embedded table measured
// on gpu, leaving out the tables of the models in skip.
func GPUStepPoints(gpu string, skip ...string) []StepPoint {
	var out []StepPoint
	for _, t := range measuredTables() {
		if t.GPU == gpu && !slices.Contains(skip, t.Model.Name) {
			out = append(out, StepPoints(t)...)
		}
	}
	return out
}

// calibrations are the calibrated roofline's constants per GPU: the fit of
// FitCalibration to every embedded table of the GPU (Vidur's A100 and H100
// profiles, testdata/measured/SOURCES.md). TestStoredCalibrations refits
// them; `fleetsim experiment step-times` prints them and their held-out
// errors.
var calibrations = map[string]Calibration{
	"a100": {Mem: 0.7596, Compute: 0.6364, LayerS: 42.37e-6, StepS: 0,
		Source: "least-squares fit to Vidur's A100 tables (7 models, TP 1–8; microsoft/vidur 7d47513, MIT)"},
	"h100": {Mem: 0.8565, Compute: 0.5951, LayerS: 34.91e-6, StepS: 0,
		Source: "least-squares fit to Vidur's H100 tables (5 models, TP 1–8; microsoft/vidur 7d47513, MIT)"},
}

// CalibrationFor returns the stored calibration of a GPU (ok false when the
// GPU has no measured data).
func CalibrationFor(gpu string) (Calibration, bool) {
	c, ok := calibrations[gpu]
	return c, ok
}

// RelErr is (pred − ref)/ref.
func RelErr(pred, ref float64) float64 { return (pred - ref) / ref }

// AbsQuantile returns the q-quantile (nearest rank) of |x|.
func AbsQuantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	a := make([]float64, len(xs))
	for i, x := range xs {
		a[i] = math.Abs(x)
	}
	slices.Sort(a)
	k := int(math.Ceil(q*float64(len(a)))) - 1
	return a[min(max(k, 0), len(a)-1)]
}

// HeldOutErrors returns, per phase, the relative errors of the calibrated
// roofline against the measured model on each model of gpu's tables when
// that model is left out of the fit (leave-one-model-out), and of the
// uncalibrated additive roofline (Instance.Roofline) on the same points.
func HeldOutErrors(gpu string) (calibrated, roofline map[string][]float64) {
	calibrated, roofline = map[string][]float64{}, map[string][]float64{}
	for _, t := range measuredTables() {
		if t.GPU != gpu {
			continue
		}
		cal, err := FitCalibration(GPUStepPoints(gpu, t.Model.Name), "held out: "+t.Model.Name)
		if err != nil {
			continue
		}
		for _, p := range StepPoints(t) {
			r, err := NewCalibratedRoofline(p.Model.Instance(), cal)
			if err != nil {
				continue
			}
			calibrated[p.Phase] = append(calibrated[p.Phase], RelErr(r.IterTime(p.B), p.Measured))
			if rr, err := p.Model.Instance().Roofline(); err == nil {
				roofline[p.Phase] = append(roofline[p.Phase], RelErr(RooflineAdd{rr}.IterTime(p.B), p.Measured))
			}
		}
	}
	return calibrated, roofline
}
