package catalog

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/fleetsim/fleetsim/engine"
)

// ProfileFile is a catalog profile file (YAML): either the constants of a
// profile, or the specifications it is computed from. Exactly one of
// Constants and (GPU or GPUSpec) is given. Examples: docs/catalog.md.
type ProfileFile struct {
	Name      string     `yaml:"name"`      // profile name (default: the file's or the instance's)
	Constants *Constants `yaml:"constants"` // hand-written constants

	GPU       string      `yaml:"gpu"`        // catalog GPU specification (HardwareNames) ...
	GPUSpec   *Hardware   `yaml:"gpu_spec"`   // ... or an inline one
	Model     string      `yaml:"model"`      // catalog model (ModelNames) ...
	ModelSpec *Model      `yaml:"model_spec"` // ... or an inline one ...
	HFConfig  string      `yaml:"hf_config"`  // ... or a Hugging Face config.json (path relative to the profile file)
	TP        int         `yaml:"tp"`         // GPUs per instance (0: smallest of 1, 2, 4, 8 that fits)
	Util      *float64    `yaml:"util"`       // usable memory fraction (default DefaultUtil)
	ReserveGB *float64    `yaml:"reserve_gb"` // runtime reserve per GPU, GB (default DefaultReserveGB)
	Eff       *Efficiency `yaml:"efficiency"` // roofline factors (absent keys: DefaultEfficiency's)
}

// MaxKVBlocks bounds the KV blocks of one instance: a profile file's
// constants.kv_blocks and a simulated pool's kv_blocks override (sim).
// 2^30 blocks of 16 tokens are 17 G tokens; beyond it a run's slot count
// makes its work outrun the simulator's time range.
const MaxKVBlocks = 1 << 30

// Constants are a profile's constants written by hand (GPU's fields).
type Constants struct {
	W           float64 `yaml:"w"`             // fixed iteration cost, s
	H           float64 `yaml:"h"`             // per-sequence cost at calib_ctx tokens, s
	KVBlocks    int     `yaml:"kv_blocks"`     // KV blocks per instance
	MaxSlots    int     `yaml:"max_slots"`     // slots at calib_ctx (default: KV-limited)
	CalibCtx    int     `yaml:"calib_ctx"`     // tokens (default 8192)
	ChunkTokens int     `yaml:"chunk_tokens"`  // default 512
	BlockTokens int     `yaml:"block_tokens"`  // default 16
	CostPerHour float64 `yaml:"cost_per_hour"` // USD per instance-hour
	TP          int     `yaml:"tp"`            // GPUs per instance (reporting only; default 1)
}

// ParseProfileFile reads a profile file and returns its profile. readFile
// opens a path the file names (hf_config); pass nil to refuse such paths.
func ParseProfileFile(data []byte, readFile func(path string) ([]byte, error)) (GPU, error) {
	g, _, err := ParseProfileFileInstance(data, readFile)
	return g, err
}

// ParseProfileFileInstance is ParseProfileFile that also returns the
// instance a specification file was computed from (nil for constants).
func ParseProfileFileInstance(data []byte, readFile func(path string) ([]byte, error)) (GPU, *Instance, error) {
	// efficiency keys absent from the file keep their defaults
	def := DefaultEfficiency
	f := ProfileFile{Eff: &def}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		if errors.Is(err, io.EOF) {
			return GPU{}, nil, fmt.Errorf("profile file: empty")
		}
		return GPU{}, nil, fmt.Errorf("profile file: %s", strings.ReplaceAll(err.Error(), "\n", "; "))
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil || !errors.Is(err, io.EOF) {
		return GPU{}, nil, fmt.Errorf("profile file: holds more than one YAML document; want one")
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err == nil {
		if p, v, line := FractionInInt(&doc, reflect.TypeOf(f)); p != "" {
			return GPU{}, nil, fmt.Errorf("profile file: line %d: %s = %s: must be a whole number", line, p, v)
		}
	}
	specs := f.GPU != "" || f.GPUSpec != nil
	if (f.Constants != nil) == specs {
		return GPU{}, nil, fmt.Errorf("profile file: give either constants or gpu/gpu_spec (with model), not both or neither")
	}
	if f.Constants != nil {
		g, err := f.Constants.profile(f.Name)
		return g, nil, err
	}
	in, err := f.instance(readFile)
	if err != nil {
		return GPU{}, nil, err
	}
	g, err := in.Profile()
	if err != nil {
		return GPU{}, nil, fmt.Errorf("profile file: %w", err)
	}
	if f.Name != "" {
		g.Name = f.Name
	}
	return g, &in, nil
}

func (f ProfileFile) instance(readFile func(string) ([]byte, error)) (Instance, error) {
	var g Hardware
	var err error
	switch {
	case f.GPU != "" && f.GPUSpec != nil:
		return Instance{}, fmt.Errorf("profile file: give gpu or gpu_spec, not both")
	case f.GPUSpec != nil:
		g = *f.GPUSpec
	default:
		if g, err = LookupHardware(f.GPU); err != nil {
			return Instance{}, fmt.Errorf("profile file: gpu: %w", err)
		}
	}
	var m Model
	switch n := btoi(f.Model != "") + btoi(f.ModelSpec != nil) + btoi(f.HFConfig != ""); {
	case n != 1:
		return Instance{}, fmt.Errorf("profile file: give exactly one of model, model_spec, hf_config")
	case f.ModelSpec != nil:
		m = *f.ModelSpec
	case f.HFConfig != "":
		if readFile == nil {
			return Instance{}, fmt.Errorf("profile file: hf_config %s: files cannot be read here", f.HFConfig)
		}
		data, err := readFile(f.HFConfig)
		if err != nil {
			return Instance{}, fmt.Errorf("profile file: hf_config: %v", err)
		}
		name := strings.TrimSuffix(f.HFConfig[strings.LastIndex(f.HFConfig, "/")+1:], ".json")
		if m, err = ParseHFConfig(name, data); err != nil {
			return Instance{}, fmt.Errorf("profile file: hf_config: %w", err)
		}
	default:
		if m, err = LookupModel(f.Model); err != nil {
			return Instance{}, fmt.Errorf("profile file: model: %w", err)
		}
	}
	if f.TP < 0 {
		return Instance{}, fmt.Errorf("profile file: tp = %d: must be >= 1 (or 0 for the smallest that fits)", f.TP)
	}
	in, err := FitTP(g, m, f.TP, f.apply)
	if err != nil {
		return Instance{}, fmt.Errorf("profile file: %w", err)
	}
	return in, nil
}

func (f ProfileFile) apply(in *Instance) {
	if f.Util != nil {
		in.Util = *f.Util
	}
	if f.ReserveGB != nil {
		in.ReserveGB = *f.ReserveGB
	}
	if f.Eff != nil {
		in.Eff = *f.Eff
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// profile checks hand-written constants and fills their defaults.
func (c Constants) profile(name string) (GPU, error) {
	if name == "" {
		name = "custom"
	}
	g := GPU{Name: name, Description: "constants from a profile file", W: c.W, H: c.H, KVBlocks: c.KVBlocks,
		MaxSlots: c.MaxSlots, CalibCtx: c.CalibCtx, ChunkTokens: c.ChunkTokens, BlockTokens: c.BlockTokens,
		CostPerHour: c.CostPerHour, TP: c.TP, Source: "profile file"}
	if g.CalibCtx == 0 {
		g.CalibCtx = CalibCtx
	}
	if g.ChunkTokens == 0 {
		g.ChunkTokens = DefaultChunkTokens
	}
	if g.BlockTokens == 0 {
		g.BlockTokens = DefaultBlockTokens
	}
	fin := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	const maxCount, maxBlockTokens = 1 << 30, 1 << 20
	switch {
	case !(c.W >= engine.MinIterationS && c.W <= engine.MaxIterationS):
		return GPU{}, fmt.Errorf("profile file: constants.w = %v: must be %g to %g seconds (the engine's shortest and longest iteration)",
			c.W, engine.MinIterationS, float64(engine.MaxIterationS))
	case !(c.H >= 0) || !fin(c.H):
		return GPU{}, fmt.Errorf("profile file: constants.h = %v: must be a finite number of seconds >= 0", c.H)
	case c.KVBlocks < 1 || c.KVBlocks > MaxKVBlocks:
		return GPU{}, fmt.Errorf("profile file: constants.kv_blocks = %d: must be 1 to %d", c.KVBlocks, MaxKVBlocks)
	case c.MaxSlots < 0 || c.MaxSlots > maxCount:
		return GPU{}, fmt.Errorf("profile file: constants.max_slots = %d: must be 0 to %d (0: limited by KV only)", c.MaxSlots, maxCount)
	case g.CalibCtx < 1 || g.CalibCtx > maxCount:
		return GPU{}, fmt.Errorf("profile file: constants.calib_ctx = %d: must be 1 to %d tokens (absent: %d)", c.CalibCtx, maxCount, CalibCtx)
	case g.ChunkTokens < 1 || g.ChunkTokens > maxCount:
		return GPU{}, fmt.Errorf("profile file: constants.chunk_tokens = %d: must be 1 to %d tokens (absent: %d)", c.ChunkTokens, maxCount, DefaultChunkTokens)
	case g.BlockTokens < 1 || g.BlockTokens > maxBlockTokens:
		return GPU{}, fmt.Errorf("profile file: constants.block_tokens = %d: must be 1 to %d tokens (absent: %d)", c.BlockTokens, maxBlockTokens, DefaultBlockTokens)
	case !(c.CostPerHour >= 0) || !fin(c.CostPerHour):
		return GPU{}, fmt.Errorf("profile file: constants.cost_per_hour = %v: must be a finite number >= 0", c.CostPerHour)
	case c.TP < 0 || c.TP > MaxTP:
		return GPU{}, fmt.Errorf("profile file: constants.tp = %d: must be 0 to %d", c.TP, MaxTP)
	}
	// The engine's own check of the longest iteration (the whole KV cache
	// held, timing kv), so a profile it would refuse at run time is refused
	// here, with the same bound.
	t, _ := g.Timing(TimingKV)
	ec := engine.Config{MaxSeqs: 1, KVBlocks: g.KVBlocks, BlockTokens: g.BlockTokens, ChunkTokens: 1, MaxModelLen: 2, Timing: t}
	if err := ec.Validate(); err != nil {
		longest := t.W + t.HKV*float64(g.KVBlocks)*float64(g.BlockTokens)
		return GPU{}, fmt.Errorf("profile file: constants.h = %v: an iteration holding the whole KV cache would take %.4g s (w + h × kv_blocks × block_tokens / calib_ctx); must be <= %g s",
			c.H, longest, float64(engine.MaxIterationS))
	}
	if g.MaxSlots == 0 {
		g.MaxSlots = int((int64(g.KVBlocks)*int64(g.BlockTokens) + int64(g.CalibCtx) - 1) / int64(g.CalibCtx))
	}
	return g, nil
}
