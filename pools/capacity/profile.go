package capacity

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io"
	"math"
	"path"
	"sort"
	"strings"
	"sync"

	"github.com/fleetsim/fleetsim/workload"
	"go.yaml.in/yaml/v3"
)

// Weights are a profile's burndown weights: adjusted tokens charged per
// token of each kind (dimensionless).
type Weights struct {
	Input    float64 `json:"input"`    // w_in, per uncached input token (I − C)
	Cached   float64 `json:"cached"`   // w_cache, per cached input token C
	Output   float64 `json:"output"`   // w_out, per output token O
	Thinking float64 `json:"thinking"` // w_think, per thinking token H
}

// LongContext is a profile's long-context rule: for a request whose input
// I is strictly greater than Threshold tokens, each weight given here
// replaces the profile's weight of that kind (nil keeps it).
type LongContext struct {
	Threshold int      `json:"threshold"` // input tokens; the rule applies when I > Threshold
	Input     *float64 `json:"input,omitempty"`
	Cached    *float64 `json:"cached,omitempty"`
	Output    *float64 `json:"output,omitempty"`
	Thinking  *float64 `json:"thinking,omitempty"`
}

// Profile is a provider's reserved-capacity offer for one model.
type Profile struct {
	Name        string       `json:"name"`
	Description string       `json:"description,omitempty"`
	Unit        string       `json:"unit"`    // name of one unit ("GSU", "PTU", "unit")
	Tau         float64      `json:"tau"`     // τ: adjusted tokens per second one unit serves (> 0)
	Weights     Weights      `json:"weights"` // burndown weights
	Long        *LongContext `json:"long_context,omitempty"`
	Increment   int          `json:"increment"` // purchase increment, units (>= 1); G is a multiple of it
	Minimum     int          `json:"minimum"`   // smallest purchase, units (>= 1)
	Source      string       `json:"source"`    // where the numbers come from
}

// Limits of a profile's fields, so that a typo ends in a clear error.
const (
	MaxTau      = 1e12 // adjusted tokens per second per unit
	MaxWeight   = 1e6  // per token
	MaxPurchase = 1e9  // units, for Increment and Minimum
	// MaxThreshold bounds a long-context threshold, input tokens.
	MaxThreshold = 1 << 30
)

// DefaultProfile is the name of the built-in default profile: τ = 1,000
// adjusted tokens/s per unit, weights (1, 0, 4, 4), increment 1, minimum 1.
const DefaultProfile = "default"

// Default weights of a profile file that omits some (those of the default
// profile).
var defaultWeights = Weights{Input: 1, Cached: 0, Output: 4, Thinking: 4}

// profileFile is a profile as written in YAML (see docs/capacity.md).
type profileFile struct {
	Name        string   `yaml:"name"`
	Description string   `yaml:"description"`
	Unit        string   `yaml:"unit"`
	Tau         *float64 `yaml:"tau"`
	Weights     struct {
		Input    *float64 `yaml:"input"`
		Cached   *float64 `yaml:"cached"`
		Output   *float64 `yaml:"output"`
		Thinking *float64 `yaml:"thinking"`
	} `yaml:"weights"`
	Long *struct {
		Threshold *float64 `yaml:"threshold"`
		Input     *float64 `yaml:"input"`
		Cached    *float64 `yaml:"cached"`
		Output    *float64 `yaml:"output"`
		Thinking  *float64 `yaml:"thinking"`
	} `yaml:"long_context"`
	// Increment, Minimum and Long.Threshold are whole numbers, read as
	// floats so that a fraction is an error: yaml.v3 truncates 2.5 into an
	// int field without a word.
	Increment *float64 `yaml:"increment"`
	Minimum   *float64 `yaml:"minimum"`
	Source    string   `yaml:"source"`
}

// wholeNumber converts a whole-number field read as a float; a fraction, a
// non-finite value or one outside [lo, hi] is a *workload.FieldError.
func wholeNumber(field string, v float64, lo, hi int, allowed string) (int, error) {
	if !(v >= float64(lo) && v <= float64(hi)) || v != math.Trunc(v) {
		return 0, &workload.FieldError{Field: field, Value: v, Allowed: allowed}
	}
	return int(v), nil
}

// ParseProfile reads one profile from YAML. name is used when the file has
// no name field. Unknown keys, a missing tau and out-of-range values are
// errors (a *workload.FieldError naming the key, or a YAML syntax error).
// Omitted weights take the default profile's (1, 0, 4, 4); omitted
// increment and minimum are 1.
func ParseProfile(name string, data []byte) (Profile, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var f profileFile
	if err := dec.Decode(&f); err != nil {
		if errors.Is(err, io.EOF) {
			return Profile{}, &workload.FieldError{Field: "profile", Value: name, Allowed: "empty file (want a YAML mapping with at least tau)"}
		}
		return Profile{}, fmt.Errorf("profile %q: %s", name, oneLineErr(err))
	}
	var extra any
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return Profile{}, &workload.FieldError{Field: "profile", Value: name, Allowed: "one YAML document (a profile file holds one profile)"}
	}
	p := Profile{
		Name: f.Name, Description: f.Description, Unit: f.Unit, Source: f.Source,
		Weights: defaultWeights, Increment: 1, Minimum: 1,
	}
	if p.Name == "" {
		p.Name = name
	}
	if p.Unit == "" {
		p.Unit = "unit"
	}
	if f.Tau == nil {
		return Profile{}, &workload.FieldError{Field: "tau", Value: "(missing)", Allowed: "required: adjusted tokens per second per unit, > 0"}
	}
	p.Tau = *f.Tau
	for _, w := range []struct {
		src *float64
		dst *float64
	}{{f.Weights.Input, &p.Weights.Input}, {f.Weights.Cached, &p.Weights.Cached}, {f.Weights.Output, &p.Weights.Output}, {f.Weights.Thinking, &p.Weights.Thinking}} {
		if w.src != nil {
			*w.dst = *w.src
		}
	}
	if f.Long != nil {
		if f.Long.Threshold == nil {
			return Profile{}, &workload.FieldError{Field: "long_context.threshold", Value: "(missing)", Allowed: "required: input tokens above which the long-context weights apply"}
		}
		th, err := wholeNumber("long_context.threshold", *f.Long.Threshold, 0, MaxThreshold, fmt.Sprintf("input tokens: an integer in [0, %d]", MaxThreshold))
		if err != nil {
			return Profile{}, err
		}
		p.Long = &LongContext{Threshold: th, Input: f.Long.Input, Cached: f.Long.Cached, Output: f.Long.Output, Thinking: f.Long.Thinking}
	}
	for _, n := range []struct {
		field string
		src   *float64
		dst   *int
		what  string
	}{{"increment", f.Increment, &p.Increment, "purchase increment"}, {"minimum", f.Minimum, &p.Minimum, "smallest purchase"}} {
		if n.src == nil {
			continue
		}
		v, err := wholeNumber(n.field, *n.src, 1, MaxPurchase, fmt.Sprintf("%s: an integer in [1, %g] units", n.what, float64(MaxPurchase)))
		if err != nil {
			return Profile{}, err
		}
		*n.dst = v
	}
	if err := p.Validate(); err != nil {
		return Profile{}, err
	}
	return p, nil
}

// oneLineErr flattens a (YAML) error to one line.
func oneLineErr(err error) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(err.Error(), "\n", "; ")), " ")
}

func okWeight(w float64) bool { return w >= 0 && w <= MaxWeight } // false for NaN

// Validate checks every field; the error is a *workload.FieldError.
func (p Profile) Validate() error {
	bad := func(field string, v any, allowed string) error {
		return &workload.FieldError{Field: field, Value: v, Allowed: allowed}
	}
	if !(p.Tau > 0 && p.Tau <= MaxTau) {
		return bad("tau", p.Tau, fmt.Sprintf("adjusted tokens per second per unit: a number in (0, %g]", MaxTau))
	}
	for _, w := range []struct {
		name string
		v    float64
	}{{"input", p.Weights.Input}, {"cached", p.Weights.Cached}, {"output", p.Weights.Output}, {"thinking", p.Weights.Thinking}} {
		if !okWeight(w.v) {
			return bad("weights."+w.name, w.v, fmt.Sprintf("a weight in [0, %g]", MaxWeight))
		}
	}
	if l := p.Long; l != nil {
		if l.Threshold < 0 || l.Threshold > MaxThreshold {
			return bad("long_context.threshold", l.Threshold, fmt.Sprintf("input tokens: an integer in [0, %d]", MaxThreshold))
		}
		n := 0
		for _, w := range []struct {
			name string
			v    *float64
		}{{"input", l.Input}, {"cached", l.Cached}, {"output", l.Output}, {"thinking", l.Thinking}} {
			if w.v == nil {
				continue
			}
			n++
			if !okWeight(*w.v) {
				return bad("long_context."+w.name, *w.v, fmt.Sprintf("a weight in [0, %g]", MaxWeight))
			}
		}
		if n == 0 {
			return bad("long_context", "(no weights)", "give at least one of input, cached, output, thinking")
		}
	}
	if p.Increment < 1 || p.Increment > MaxPurchase {
		return bad("increment", p.Increment, fmt.Sprintf("purchase increment: an integer in [1, %g] units", float64(MaxPurchase)))
	}
	if p.Minimum < 1 || p.Minimum > MaxPurchase {
		return bad("minimum", p.Minimum, fmt.Sprintf("smallest purchase: an integer in [1, %g] units", float64(MaxPurchase)))
	}
	return nil
}

// WeightsFor returns the weights that apply to a request of input I tokens:
// the long-context weights where given when I > Threshold (strictly), the
// profile's weights otherwise.
func (p *Profile) WeightsFor(input int) Weights {
	w := p.Weights
	if l := p.Long; l != nil && input > l.Threshold {
		for _, r := range []struct {
			src *float64
			dst *float64
		}{{l.Input, &w.Input}, {l.Cached, &w.Cached}, {l.Output, &w.Output}, {l.Thinking, &w.Thinking}} {
			if r.src != nil {
				*r.dst = *r.src
			}
		}
	}
	return w
}

// Work returns B, the request's work in adjusted tokens:
//
//	B = w_in·(I − C) + w_cache·C + w_out·O + w_think·H
//
// with the weights of WeightsFor(I). I is the total input, cached tokens
// included (as in slosizer's code; its documentation writes w_in·I), so a
// cached token is charged w_cache, not w_in + w_cache. r must be valid
// (Request.Validate).
func (p *Profile) Work(r Request) float64 {
	w := p.WeightsFor(r.Input)
	return w.Input*float64(r.Input-r.Cached) + w.Cached*float64(r.Cached) +
		w.Output*float64(r.Output) + w.Thinking*float64(r.Thinking)
}

//go:embed profiles/*.yaml
var builtinFS embed.FS

// builtin returns the built-in profiles by name, parsed at the first call
// (not at start-up: parsing them took 1 ms of every command's start, most
// of which never read a profile).
var builtin = sync.OnceValue(func() map[string]Profile {
	m := map[string]Profile{}
	entries, err := builtinFS.ReadDir("profiles")
	if err != nil {
		panic(err)
	}
	for _, e := range entries {
		data, err := builtinFS.ReadFile(path.Join("profiles", e.Name()))
		if err != nil {
			panic(err)
		}
		name := strings.TrimSuffix(e.Name(), ".yaml")
		p, err := ParseProfile(name, data)
		if err != nil || p.Name != name {
			panic(fmt.Sprintf("capacity: built-in profile %s: %v (name %q)", e.Name(), err, p.Name))
		}
		m[name] = p
	}
	return m
})

// LookupProfile returns the built-in profile with the given name.
func LookupProfile(name string) (Profile, error) {
	p, ok := builtin()[name]
	if !ok {
		return Profile{}, &workload.FieldError{Field: "profile", Value: name,
			Allowed: "unknown profile (built-in: " + strings.Join(ProfileNames(), ", ") + "; or a YAML file)"}
	}
	return p, nil
}

// ProfileNames lists the built-in profiles, sorted.
func ProfileNames() []string {
	names := make([]string, 0, len(builtin()))
	for n := range builtin() {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// isFinite reports whether x is neither NaN nor infinite.
func isFinite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
