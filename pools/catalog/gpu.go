// Package catalog holds the hardware and model catalog: GPU profiles (the
// iteration-time constants, KV budget and price of a serving instance),
// model KV sizes, deployments, and a pool's slots and engine configuration
// at a max context (through the KV budget).
package catalog

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/fleetsim/fleetsim/engine"
)

// GPU is one serving-instance profile: a GPU (or TP group) serving a given
// model, with the constants of the timing model and its KV budget.
type GPU struct {
	Name        string  // catalog key, lower case ("a100")
	Description string  // what the profile stands for
	W           float64 // fixed iteration cost, s
	H           float64 // per-sequence iteration cost at 8,192 tokens of context, s
	KVBlocks    int     // KV-cache capacity of one instance, 16-token blocks
	MaxSlots    int     // slots at CalibCtx context (the batch limit)
	CalibCtx    int     // context at which MaxSlots holds, tokens (8,192)
	ChunkTokens int     // prefill chunk, tokens (512)
	BlockTokens int     // tokens per KV block (16)
	CostPerHour float64 // price of one instance, USD per hour
	Source      string  // where the constants come from
	// TP is the GPUs of one instance for a computed profile (pools report
	// GPUs = instances × TP); 0 for the hand-written profiles, which are
	// priced and counted per "GPU" as the papers do (docs/catalog.md).
	TP int
	// SlotRule selects Slots' rule: "" or SlotRuleScaled (below), or
	// SlotRuleCapped, the token-budget paper's N_seq (slotrule.go). Catalog
	// profiles leave it empty; WithSlotRule sets it.
	SlotRule string
	// Inst is the instance a computed profile was built from (nil for the
	// hand-written profiles): the measured and calibrated timing presets
	// need its GPU, model and TP.
	Inst *Instance `json:"-" yaml:"-"`
	// Stands, for a hand-written profile, names the physical instance it
	// describes; TimingAuto charges its prompt tokens at that instance's
	// calibrated cost (PrefillCost). Nil for computed profiles and
	// profile files.
	Stands *StandsFor `json:"-" yaml:"-"`
}

// GPUsPerInstance returns TP, or 1 for a profile that does not state it.
func (g GPU) GPUsPerInstance() int { return max(g.TP, 1) }

// catalog is keyed by lower-case name.
var catalog = map[string]GPU{
	"a100": {
		Name: "a100", Description: "NVIDIA A100-80GB serving Llama-3-70B (fp16 KV)",
		W: 0.008, H: 0.00065, KVBlocks: 65536, MaxSlots: 128, CalibCtx: 8192,
		ChunkTokens: 512, BlockTokens: 16, CostPerHour: 2.21,
		Source: "FleetOpt paper §7.1; token-budget paper App. A",
		// 65,536 blocks and W = 8 ms describe a TP8 node (docs/catalog.md §4c)
		Stands: &StandsFor{Instance: "a100/llama-3-70b/tp8", CalibGPU: "a100"},
	},
	"h100-est": {
		Name: "h100-est", Description: "NVIDIA H100-80GB SXM serving Llama-3-70B (fp16 KV)",
		W: 0.0048, H: 0.00039, KVBlocks: 65536, MaxSlots: 128, CalibCtx: 8192,
		ChunkTokens: 512, BlockTokens: 16, CostPerHour: 3.90,
		Source: "estimate: A100 constants scaled by HBM bandwidth (3.35/2.04 TB/s); not from the papers",
		Stands: &StandsFor{Instance: "h100/llama-3-70b/tp8", CalibGPU: "h100"},
	},
	"a10g": {
		Name: "a10g", Description: "NVIDIA A10G-24GB serving Llama-3-8B (fp16 KV)",
		W: 0.006, H: 0.00050, KVBlocks: 2688, MaxSlots: 5, CalibCtx: 8192,
		ChunkTokens: 512, BlockTokens: 16, CostPerHour: 1.01,
		Source: "estimate: 24 GB*0.9 - 16 GB weights at 128 KiB/token; not from the papers",
		// Llama-3.1-8B has Llama-3-8B's layers; no A10G data: A100's (Ampere) calibration
		Stands: &StandsFor{Instance: "a10g/llama-3.1-8b/tp1", CalibGPU: "a100", Estimate: true},
	},
	"mi300x": {
		Name: "mi300x", Description: "AMD MI300X-192GB TP=8 node serving Qwen3-235B-A22B (fp8 KV)",
		W: 0.010, H: 0.00050, KVBlocks: 346112, MaxSlots: 676, CalibCtx: 8192,
		ChunkTokens: 512, BlockTokens: 16, CostPerHour: 8 * 3.67,
		Source: "token-budget paper §4.7 (676 sequences at 8K, $3.67/GPU-hr x 8); W, H estimated",
		// no MI300X data: H100's (HBM3, the same generation) calibration
		Stands: &StandsFor{Instance: "mi300x/qwen3-235b-a22b-fp8kv/tp8", CalibGPU: "h100", Estimate: true},
	},
}

// DefaultModel is the model a bare GPU specification name serves: "h200"
// is "h200/llama-3.1-70b", at the smallest TP that fits.
const DefaultModel = "llama-3.1-70b"

// LookupGPU returns the catalog profile with the given name (case-insensitive).
//
// A name GPU/MODEL/tpN (or GPU/MODEL, which picks the smallest TP that
// fits) is a computed profile: the GPU's specification and the model's
// geometry through Instance.Profile, e.g. "h100/llama-3.1-70b/tp4". A bare
// name is a hand-written profile (a100, a10g, h100-est, mi300x), else a GPU
// specification serving DefaultModel ("h100" is "h100/llama-3.1-70b").
func LookupGPU(name string) (GPU, error) {
	if strings.Contains(name, "/") {
		in, err := ParseInstanceName(name)
		if err != nil {
			return GPU{}, err
		}
		return in.Profile()
	}
	g, ok := catalog[strings.ToLower(name)]
	if !ok {
		if h, err := LookupHardware(name); err == nil {
			g, err := LookupGPU(h.Name + "/" + DefaultModel)
			if err != nil {
				return GPU{}, fmt.Errorf("%q is %s/%s (a bare GPU specification serves %s): %w; name an instance %s/MODEL/tpN",
					name, h.Name, DefaultModel, DefaultModel, err, h.Name)
			}
			return g, nil
		}
		return GPU{}, fmt.Errorf("unknown GPU %q (allowed: %s, or GPU/MODEL/tpN)", name, strings.Join(AcceptedGPUNames(), ", "))
	}
	return g, nil
}

// LookupPoolGPUs looks up a fleet's short-pool and long-pool profiles (the
// planner's --gpu and --gpu-long), keeping LookupGPU's own reason (an
// unknown name, a GPU specification without a model, a computed instance
// that does not fit) behind the field's name.
func LookupPoolGPUs(short, long string) (GPU, GPU, error) {
	s, err := LookupGPU(short)
	if err != nil {
		return GPU{}, GPU{}, fmt.Errorf("gpu %q: %w", short, err)
	}
	l, err := LookupGPU(long)
	if err != nil {
		return GPU{}, GPU{}, fmt.Errorf("gpu-long %q: %w", long, err)
	}
	return s, l, nil
}

// GPUNames lists the catalog's names in order.
func GPUNames() []string {
	names := make([]string, 0, len(catalog))
	for n := range catalog {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// AcceptedGPUNames lists, sorted, every bare name LookupGPU accepts: the
// hand-written profiles (GPUNames) and the GPU specifications
// (HardwareNames; a bare one serves DefaultModel).
func AcceptedGPUNames() []string {
	names := append(GPUNames(), HardwareNames()...)
	sort.Strings(names)
	return slices.Compact(names)
}

// Slots returns the concurrent sequences one instance holds at a max
// context of maxCtx tokens:
//
//	min(MaxSlots*CalibCtx/maxCtx, KVBlocks/ceil(maxCtx/BlockTokens))
//
// (both floored). It is 0 when one max-length sequence does not fit the KV
// budget. A100 gives 256 at 4,096, 682 at 1,536, 128 at 8,192, 16 at 65,536.
func (g GPU) Slots(maxCtx int) int {
	if maxCtx <= 0 {
		return 0
	}
	if g.SlotRule == SlotRuleCapped {
		return g.cappedSlots(maxCtx)
	}
	byBatch := g.MaxSlots * g.CalibCtx / maxCtx
	blocksPerSeq := (maxCtx + g.BlockTokens - 1) / g.BlockTokens
	byKV := g.KVBlocks / blocksPerSeq
	return min(byBatch, byKV)
}

// Timing presets.
const (
	TimingPaper = "paper" // t_iter = W + H*n_active (the papers' form)
	TimingKV    = "kv"    // t_iter = W + (H/8192)*kv_tokens (attention-proportional)
	// TimingMeasured fits the engine's W, H_seq, H_kv and P to the
	// measured-profile model (MeasuredModel) over the pool's operating
	// region (RegionBatches); a computed instance whose GPU × model has
	// measured data only.
	TimingMeasured = "measured"
	// TimingCalibrated does the same with the calibrated roofline
	// (CalibratedRoofline) of a computed instance on a GPU with a stored
	// calibration: prompt tokens are charged (P > 0).
	TimingCalibrated = "calibrated"
	// TimingAuto is the simulator's default, which charges prompt tokens
	// wherever the catalog knows their cost: TimingCalibrated for a
	// computed instance on a GPU with a stored calibration (A100, H100)
	// at the default efficiencies; TimingKVPrefill for a hand-written
	// profile (the papers' a100 among them: its W and H, plus the
	// calibrated prefill cost of the instance it stands for); TimingKV
	// for every other profile (profile files, and computed instances on
	// other GPUs or with their own efficiencies), which charges none.
	TimingAuto = "auto"
)

// TimingNames lists the presets.
var TimingNames = []string{TimingAuto, TimingPaper, TimingKV, TimingMeasured, TimingCalibrated}

// ResolveTiming returns the preset a pool of this profile runs for preset:
// TimingAuto resolves to TimingCalibrated, TimingKVPrefill or TimingKV, any
// other is itself.
func (g GPU) ResolveTiming(preset string) string {
	if preset != TimingAuto {
		return preset
	}
	if g.Stands != nil {
		return TimingKVPrefill
	}
	// An instance whose efficiencies were stated (a profile file's
	// efficiency keys) keeps them: the calibration would replace them.
	if g.Inst != nil && g.Inst.Eff == DefaultEfficiency {
		if _, ok := CalibrationFor(g.Inst.GPU.Name); ok {
			return TimingCalibrated
		}
	}
	return TimingKV
}

// DefaultTiming is the planners' preset (plan, size, validate, capacity)
// when none is named, and the one a plan checked by simulation runs
// under. The kv form is the one the FleetOpt fleet sizes were computed with
// (a request's cost grows with its context), so a simulated plan is checked
// against the same physics that sized it. The simulator's own default is
// TimingAuto (sim.Defaults).
const DefaultTiming = TimingKV

// Timing returns the engine timing coefficients for a preset name.
func (g GPU) Timing(preset string) (engine.Timing, error) {
	switch preset {
	case TimingPaper:
		return engine.Timing{W: g.W, HSeq: g.H}, nil
	case TimingKV, "":
		return engine.Timing{W: g.W, HKV: g.H / float64(g.CalibCtx)}, nil
	case TimingKVPrefill:
		p, ok, err := g.PrefillCost()
		if err != nil {
			return engine.Timing{}, err
		}
		if !ok {
			return engine.Timing{}, fmt.Errorf("timing %q: gpu %q states no instance it stands for", preset, g.Name)
		}
		return engine.Timing{W: g.W, HKV: g.H / float64(g.CalibCtx), P: p}, nil
	case TimingAuto:
		if r := g.ResolveTiming(preset); r != TimingAuto {
			return g.Timing(r)
		}
	case TimingMeasured, TimingCalibrated:
		return engine.Timing{}, fmt.Errorf("timing %q: fitted over a pool's operating region (max context, slots): use EngineConfig", preset)
	}
	return engine.Timing{}, fmt.Errorf("unknown timing preset %q (allowed: %s)", preset, strings.Join(TimingNames, ", "))
}

// StepModel returns the step-time model behind a fitted preset
// (TimingMeasured or TimingCalibrated), or an error naming why the
// profile has none.
func (g GPU) StepModel(preset string) (StepModel, error) {
	if g.Inst == nil {
		return nil, fmt.Errorf("timing %s: gpu %q is a hand-written profile (the papers' constants); %s timing needs a computed instance GPU/MODEL/tpN with data", preset, g.Name, preset)
	}
	in := *g.Inst
	switch preset {
	case TimingMeasured:
		t, err := LookupMeasured(in.GPU.Name, in.Model.Name)
		if err != nil {
			return nil, fmt.Errorf("timing measured: %w", err)
		}
		return NewMeasuredModel(t, in.TP)
	case TimingCalibrated:
		c, ok := CalibrationFor(in.GPU.Name)
		if !ok {
			return nil, fmt.Errorf("timing calibrated: no calibration for gpu %q (calibrated: a100, h100)", in.GPU.Name)
		}
		return NewCalibratedRoofline(in, c)
	}
	return nil, fmt.Errorf("timing %q: not a fitted preset (allowed: %s, %s)", preset, TimingMeasured, TimingCalibrated)
}

// RegionTiming fits a fitted preset's step model to the engine's linear
// form over the operating region of a pool of slots sequences at maxCtx
// (RegionBatches), returning the fit and its residuals.
func (g GPU) RegionTiming(preset string, slots, maxCtx int) (LinearFit, error) {
	m, err := g.StepModel(preset)
	if err != nil {
		return LinearFit{}, err
	}
	f, err := FitEngineTiming(m, RegionBatches(slots, maxCtx, g.ChunkTokens), [4]bool{true, true, true, true})
	if err != nil {
		return LinearFit{}, fmt.Errorf("timing %s: %w", preset, err)
	}
	return f, nil
}

// EngineConfig returns the engine configuration of one instance of this
// profile in a pool of max context maxCtx tokens, or an error when the max
// context exceeds the KV budget.
func (g GPU) EngineConfig(maxCtx int, preset string) (engine.Config, error) {
	slots := g.Slots(maxCtx)
	if slots < 1 {
		return engine.Config{}, fmt.Errorf("max context %d tokens exceeds the KV budget of a %s instance (%d blocks of %d tokens)",
			maxCtx, g.Name, g.KVBlocks, g.BlockTokens)
	}
	var t engine.Timing
	var err error
	preset = g.ResolveTiming(preset)
	if preset == TimingMeasured || preset == TimingCalibrated {
		var f LinearFit
		f, err = g.RegionTiming(preset, slots, maxCtx)
		t = f.Timing
	} else {
		t, err = g.Timing(preset)
	}
	if err != nil {
		return engine.Config{}, err
	}
	return engine.Config{
		MaxSeqs: slots, KVBlocks: g.KVBlocks, BlockTokens: g.BlockTokens,
		ChunkTokens: g.ChunkTokens, MaxModelLen: maxCtx, Timing: t,
	}, nil
}
