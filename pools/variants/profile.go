package variants

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/fleetsim/fleetsim/engine"
	"github.com/fleetsim/fleetsim/pools/catalog"
	"github.com/fleetsim/fleetsim/workload"
)

// FieldError is an invalid field of a profile, a benchmark or a variants
// file: its path, the offending value and what is allowed, printed as one
// line `field = value: allowed` (the workload package's type, so that every
// configuration error of fleetsim has one form).
type FieldError = workload.FieldError

func bad(field string, value any, allowed string, args ...any) error {
	return &FieldError{Field: field, Value: value, Allowed: fmt.Sprintf(allowed, args...)}
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// Profile is a model-arrangement performance profile: the decode time per
// token and the prefill time of a batch, both linear in the batch size,
// and the batch limit. Times are milliseconds.
//
//	decode(b)  = α + β·b          (ITL at batch size b)
//	prefill(b) = γ + δ·in·b       (0 when in = 0)
type Profile struct {
	Name        string  `json:"name,omitempty" yaml:"name,omitempty"`               // label, usually model/accelerator/precision/tp
	Model       string  `json:"model,omitempty" yaml:"model,omitempty"`             // benchmark column mm
	Accelerator string  `json:"accelerator,omitempty" yaml:"accelerator,omitempty"` // benchmark column hw
	Precision   string  `json:"precision,omitempty" yaml:"precision,omitempty"`     // benchmark column prec
	TP          int     `json:"tp,omitempty" yaml:"tp,omitempty"`                   // tensor-parallel size
	Alpha       float64 `json:"alpha_ms" yaml:"alpha_ms"`                           // decode base, ms
	Beta        float64 `json:"beta_ms" yaml:"beta_ms"`                             // decode slope, ms per request in the batch
	Gamma       float64 `json:"gamma_ms" yaml:"gamma_ms"`                           // prefill base, ms
	Delta       float64 `json:"delta_ms" yaml:"delta_ms"`                           // prefill slope, ms per prompt token in the batch
	// MaxBatch is the largest batch at AtTokens tokens per request; a
	// workload of out output tokens gets N = max(MaxBatch·AtTokens/out, 1)
	// (the upstream's scaling). 0 means not known: a workload must then set
	// its own max_batch.
	MaxBatch int `json:"max_batch,omitempty" yaml:"max_batch,omitempty"`
	AtTokens int `json:"at_tokens,omitempty" yaml:"at_tokens,omitempty"`
	// Fit describes how the constants were obtained (fleetsim fit); nil
	// for a hand-written profile.
	Fit *FitReport `json:"fit,omitempty" yaml:"fit,omitempty"`
}

// FitReport is the quality of a profile's fits.
type FitReport struct {
	Source  string     `json:"source" yaml:"source"` // benchmark file or "fleetsim engine ..."
	Decode  LinearFit  `json:"decode" yaml:"decode"`
	Prefill *LinearFit `json:"prefill,omitempty" yaml:"prefill,omitempty"`
}

// MaxProfileMs bounds every constant of a profile, ms (1,000 s per decode
// step or per prompt token is far beyond any hardware), so that rates and
// times derived from it stay finite.
const MaxProfileMs = 1e6

// Validate checks the profile's constants; field names are prefixed by
// prefix (e.g. "variants[2].profile.").
func (p Profile) Validate(prefix string) error {
	for _, f := range []struct {
		name string
		v    float64
	}{{"alpha_ms", p.Alpha}, {"beta_ms", p.Beta}, {"gamma_ms", p.Gamma}, {"delta_ms", p.Delta}} {
		if !(f.v >= 0 && f.v <= MaxProfileMs) {
			return bad(prefix+f.name, f.v, "must be a number of ms in [0, %g]", MaxProfileMs)
		}
	}
	if !(p.Alpha > 0) {
		return bad(prefix+"alpha_ms", p.Alpha, "must be > 0 ms (a decode step takes time)")
	}
	if p.MaxBatch < 0 || p.MaxBatch > MaxBatchLimit {
		return bad(prefix+"max_batch", p.MaxBatch, "must be 0 to %d (0 = not known)", MaxBatchLimit)
	}
	if p.AtTokens < 0 || p.AtTokens > 1<<24 {
		return bad(prefix+"at_tokens", p.AtTokens, "must be 0 to %d tokens", 1<<24)
	}
	if p.MaxBatch > 0 && p.AtTokens == 0 {
		return bad(prefix+"at_tokens", p.AtTokens, "must be >= 1 when max_batch is set (tokens per request at which max_batch holds)")
	}
	return nil
}

// Decode returns the decode time of one token at batch size b, ms.
func (p Profile) Decode(b float64) float64 { return p.Alpha + p.Beta*b }

// Prefill returns the prefill time of a batch of b requests of in prompt
// tokens each, ms; 0 when in = 0.
func (p Profile) Prefill(in int, b float64) float64 {
	if in == 0 {
		return 0
	}
	return p.Gamma + p.Delta*float64(in)*b
}

// EngineTiming returns the engine iteration-time coefficients (seconds)
// that follow the profile: W = α, H_seq = β, P = δ. The engine has no
// per-prefill fixed cost, so γ is not represented: an iteration that
// prefills costs α + β·n + δ·tokens instead of γ + δ·tokens
// (docs/variants.md, "Simulating a variant").
func (p Profile) EngineTiming() engine.Timing {
	return engine.Timing{W: p.Alpha / 1000, HSeq: p.Beta / 1000, P: p.Delta / 1000}
}

// ProfileFile is the file `fleetsim fit` writes and `optimize` and
// `simulate` read: one or more profiles.
type ProfileFile struct {
	Profiles []Profile `json:"profiles"`
}

// MaxProfileBytes bounds a profile file (1 MiB).
const MaxProfileBytes = 1 << 20

// ReadProfiles parses a profile file (JSON) and validates every profile.
func ReadProfiles(r io.Reader) ([]Profile, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxProfileBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxProfileBytes {
		return nil, fmt.Errorf("profile file larger than %d bytes", MaxProfileBytes)
	}
	if err := catalog.CheckDuplicateKeys(data); err != nil {
		return nil, fmt.Errorf("profile file: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var f ProfileFile
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("profile file: %s", strings.ReplaceAll(err.Error(), "\n", " "))
	}
	if len(f.Profiles) == 0 {
		return nil, bad("profiles", "[]", "a profile file holds at least one profile")
	}
	for i, p := range f.Profiles {
		if err := p.Validate(fmt.Sprintf("profiles[%d].", i)); err != nil {
			return nil, err
		}
	}
	return f.Profiles, nil
}

// WriteProfiles encodes profiles as a profile file (indented JSON, one
// trailing newline).
func WriteProfiles(w io.Writer, ps []Profile) error {
	b, err := json.MarshalIndent(ProfileFile{Profiles: ps}, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// SelectProfile returns the profile named name, or when name is "" the only
// profile of ps.
func SelectProfile(ps []Profile, name string) (Profile, error) {
	if name == "" {
		if len(ps) != 1 {
			return Profile{}, fmt.Errorf("the profile file holds %d profiles (%s); name one", len(ps), profileNames(ps))
		}
		return ps[0], nil
	}
	for _, p := range ps {
		if p.Name == name {
			return p, nil
		}
	}
	return Profile{}, fmt.Errorf("no profile named %q (the file holds: %s)", name, profileNames(ps))
}

func profileNames(ps []Profile) string {
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = p.Name
	}
	return strings.Join(names, ", ")
}
