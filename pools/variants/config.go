package variants

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/fleetsim/fleetsim/pools/catalog"
)

// Optimizer modes.
const (
	ModeUnlimited = "unlimited" // every workload takes its cheapest allocation (the upstream's only mode)
	ModeLimited   = "limited"   // allocations come out of an accelerator inventory
)

// Saturation policies: what limited mode does with the accelerators left
// when some workloads could not get an allocation meeting their SLOs.
const (
	PolicyNone               = "None"               // nothing beyond the SLO-meeting allocations
	PolicyPriorityExhaustive = "PriorityExhaustive" // in priority order, each takes all it can use
	PolicyPriorityRoundRobin = "PriorityRoundRobin" // one replica at a time, round robin within each priority
	PolicyRoundRobin         = "RoundRobin"         // one replica at a time, round robin across all
)

// Policies lists the saturation policies.
var Policies = []string{PolicyNone, PolicyPriorityExhaustive, PolicyPriorityRoundRobin, PolicyRoundRobin}

// ParsePolicy returns the canonical name of a saturation policy (matched
// without regard to case, '-' or '_').
func ParsePolicy(s string) (string, error) {
	key := func(x string) string { return strings.ToLower(strings.NewReplacer("-", "", "_", "").Replace(x)) }
	for _, p := range Policies {
		if key(p) == key(s) {
			return p, nil
		}
	}
	return "", bad("policy", s, "allowed: %s", strings.Join(Policies, ", "))
}

// Defaults of a variants file.
const (
	DefaultPriority          = 100 // lowest priority (the upstream's default service class)
	DefaultTransitionPenalty = 0.1 // share of old + new cost charged for changing accelerator type
	MaxEntries               = 1000
	MaxPriority              = 1_000_000
	MaxReplicasPerWorkload   = 1 << 20
	// MaxUnitCost bounds a unit cost (per accelerator unit and hour), so
	// that every cost (at most 1,024 units × 2^20 replicas) stays finite.
	MaxUnitCost = 1e9
)

// Config is a variants file: the variants (a model on an accelerator
// arrangement with its profile and cost), the workloads to serve and the
// optimizer's settings.
type Config struct {
	Mode   string `yaml:"mode,omitempty" json:"mode,omitempty"`     // unlimited (default) or limited
	Policy string `yaml:"policy,omitempty" json:"policy,omitempty"` // saturation policy, default None
	// DeferBestEffort runs the saturation policy once after every priority
	// group got its SLO-meeting allocations, instead of after each group.
	DeferBestEffort bool `yaml:"defer_best_effort,omitempty" json:"defer_best_effort,omitempty"`
	// TransitionPenalty is the factor f of the cost of moving a workload to
	// another accelerator type: f·(old + new cost) + (new − old). nil: 0.1.
	TransitionPenalty *float64 `yaml:"transition_penalty,omitempty" json:"transition_penalty,omitempty"`
	// Inventory is the number of accelerator units of each type (limited mode).
	Inventory map[string]int `yaml:"inventory,omitempty" json:"inventory,omitempty"`
	Variants  []Variant      `yaml:"variants" json:"variants"`
	Workloads []Workload     `yaml:"workloads" json:"workloads"`
}

// Variant is a model served on an accelerator arrangement.
type Variant struct {
	Name        string `yaml:"name" json:"name"`
	Model       string `yaml:"model" json:"model"`
	Accelerator string `yaml:"accelerator" json:"accelerator"` // accelerator type (the inventory's key)
	// AcceleratorsPerReplica is the units of Accelerator one replica uses
	// (tensor/pipeline parallel degree); default 1.
	AcceleratorsPerReplica int     `yaml:"accelerators_per_replica,omitempty" json:"accelerators_per_replica,omitempty"`
	UnitCost               float64 `yaml:"unit_cost" json:"unit_cost"` // cost of one accelerator unit (any currency per hour)
	MinReplicas            int     `yaml:"min_replicas,omitempty" json:"min_replicas,omitempty"`
	// Profile is the variant's performance profile, inline or loaded from
	// ProfileFile (a `fleetsim fit` output, its profile ProfileName).
	Profile     *Profile `yaml:"profile,omitempty" json:"profile,omitempty"`
	ProfileFile string   `yaml:"profile_file,omitempty" json:"profile_file,omitempty"`
	ProfileName string   `yaml:"profile_name,omitempty" json:"profile_name,omitempty"`
}

// Workload is a stream of requests for one model with its SLOs.
type Workload struct {
	Name      string  `yaml:"name" json:"name"`
	Model     string  `yaml:"model" json:"model"`
	RateRPM   float64 `yaml:"rate_rpm" json:"rate_rpm"`     // arrival rate, requests per minute
	InTokens  int     `yaml:"in_tokens" json:"in_tokens"`   // mean prompt tokens
	OutTokens int     `yaml:"out_tokens" json:"out_tokens"` // mean output tokens
	SLO       Targets `yaml:"slo" json:"slo"`
	// Priority: 1 is the highest; omitted means 100 (the lowest class).
	Priority *int `yaml:"priority,omitempty" json:"priority,omitempty"`
	// MaxBatch overrides the batch limit the profile implies.
	MaxBatch int `yaml:"max_batch,omitempty" json:"max_batch,omitempty"`
	// Current is the allocation in place, if any: moving to another
	// accelerator type costs the transition penalty.
	Current *Current `yaml:"current,omitempty" json:"current,omitempty"`
}

// Current is a workload's allocation in place.
type Current struct {
	Variant  string `yaml:"variant" json:"variant"`
	Replicas int    `yaml:"replicas" json:"replicas"`
}

// PriorityOf returns the workload's priority (DefaultPriority when unset).
func (w Workload) PriorityOf() int {
	if w.Priority == nil {
		return DefaultPriority
	}
	return *w.Priority
}

// Units returns the accelerator units one replica of v uses.
func (v Variant) Units() int { return max(v.AcceleratorsPerReplica, 1) }

// ParseConfig decodes a variants file (YAML; JSON is YAML too) and checks
// it. Variants with a profile_file keep a nil Profile until ResolveProfiles.
// Unknown keys are errors; every error is one line.
func ParseConfig(data []byte) (*Config, error) {
	var c Config
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, bad("variants", "[]", "the file is empty: it needs variants and workloads")
		}
		return nil, fmt.Errorf("variants file: %s", oneLine(err.Error()))
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, errors.New(`variants file: holds more than one document (one YAML document is allowed; remove the "---" separator)`)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err == nil {
		// yaml.v3 truncates 1.5 into an int field without a word
		if p, v, _ := catalog.FractionInInt(&doc, reflect.TypeOf(c)); p != "" {
			return nil, bad(p, v, "must be a whole number")
		}
	}
	if err := c.check(false); err != nil {
		return nil, err
	}
	return &c, nil
}

func oneLine(s string) string {
	s = strings.ToValidUTF8(s, "?")
	return strings.Join(strings.Fields(s), " ")
}

// ResolveProfiles loads the profile of every variant that names a
// profile_file, through load (which reads the file; the package does no
// I/O), and checks the whole configuration again.
func (c *Config) ResolveProfiles(load func(path string) ([]Profile, error)) error {
	for i := range c.Variants {
		v := &c.Variants[i]
		if v.ProfileFile == "" {
			continue
		}
		ps, err := load(v.ProfileFile)
		if err != nil {
			return fmt.Errorf("variants[%d].profile_file %s: %w", i, v.ProfileFile, err)
		}
		p, err := SelectProfile(ps, v.ProfileName)
		if err != nil {
			return fmt.Errorf("variants[%d].profile_file %s: %w", i, v.ProfileFile, err)
		}
		v.Profile = &p
	}
	return c.check(true)
}

// Validate checks a configuration whose profiles are all present.
func (c *Config) Validate() error { return c.check(true) }

func (c *Config) check(needProfiles bool) error {
	if c.Mode != "" && c.Mode != ModeUnlimited && c.Mode != ModeLimited {
		return bad("mode", c.Mode, "allowed: %s, %s", ModeUnlimited, ModeLimited)
	}
	if c.Policy != "" {
		p, err := ParsePolicy(c.Policy)
		if err != nil {
			return err
		}
		c.Policy = p
	}
	if f := c.TransitionPenalty; f != nil && (!finite(*f) || *f < 0) {
		return bad("transition_penalty", *f, "must be a finite number >= 0")
	}
	for _, k := range sortedKeys(c.Inventory) {
		if n := c.Inventory[k]; n < 0 || n > math.MaxInt32 {
			return bad("inventory."+k, n, "must be 0 to %d accelerator units", math.MaxInt32)
		}
	}
	if len(c.Variants) == 0 {
		return bad("variants", "[]", "at least one variant is needed")
	}
	if len(c.Workloads) == 0 {
		return bad("workloads", "[]", "at least one workload is needed")
	}
	if len(c.Variants) > MaxEntries || len(c.Workloads) > MaxEntries {
		return bad("variants", len(c.Variants)+len(c.Workloads), "at most %d variants and %d workloads", MaxEntries, MaxEntries)
	}
	names := map[string]bool{}
	models := map[string]bool{}
	for i, v := range c.Variants {
		f := fmt.Sprintf("variants[%d].", i)
		switch {
		case strings.TrimSpace(v.Name) == "":
			return bad(f+"name", v.Name, "a variant needs a name")
		case names[v.Name]:
			return bad(f+"name", v.Name, "duplicate variant name")
		case v.Model == "":
			return bad(f+"model", v.Model, "a variant serves a model (name it)")
		case v.Accelerator == "":
			return bad(f+"accelerator", v.Accelerator, "a variant needs an accelerator type")
		case v.AcceleratorsPerReplica < 0 || v.AcceleratorsPerReplica > 1024:
			return bad(f+"accelerators_per_replica", v.AcceleratorsPerReplica, "must be 1 to 1024 (0 = 1)")
		case !(v.UnitCost >= 0 && v.UnitCost <= MaxUnitCost):
			return bad(f+"unit_cost", v.UnitCost, "must be a number in [0, %g] per accelerator unit", MaxUnitCost)
		case v.MinReplicas < 0 || v.MinReplicas > MaxReplicasPerWorkload:
			return bad(f+"min_replicas", v.MinReplicas, "must be 0 to %d", MaxReplicasPerWorkload)
		case v.Profile != nil && v.ProfileFile != "" && !needProfiles: // (ResolveProfiles fills Profile from the file)
			return bad(f+"profile_file", v.ProfileFile, "give an inline profile or a profile_file, not both")
		case v.Profile == nil && v.ProfileFile == "":
			return bad(f+"profile", "none", "a variant needs a profile (inline alpha_ms, beta_ms, ... or profile_file)")
		case v.Profile == nil && needProfiles:
			return bad(f+"profile_file", v.ProfileFile, "not loaded")
		case v.ProfileName != "" && v.ProfileFile == "":
			return bad(f+"profile_name", v.ProfileName, "names a profile of profile_file; set profile_file")
		}
		if v.Profile != nil {
			if err := v.Profile.Validate(f + "profile."); err != nil {
				return err
			}
		}
		names[v.Name] = true
		models[v.Model] = true
	}
	wnames := map[string]bool{}
	for i, w := range c.Workloads {
		f := fmt.Sprintf("workloads[%d].", i)
		switch {
		case strings.TrimSpace(w.Name) == "":
			return bad(f+"name", w.Name, "a workload needs a name")
		case wnames[w.Name]:
			return bad(f+"name", w.Name, "duplicate workload name")
		case !models[w.Model]:
			return bad(f+"model", w.Model, "no variant serves this model")
		case !finite(w.RateRPM) || w.RateRPM < 0 || w.RateRPM > 1e9:
			return bad(f+"rate_rpm", w.RateRPM, "must be a finite number of requests per minute in [0, 1e9]")
		case w.InTokens < 0 || w.InTokens > 1<<24:
			return bad(f+"in_tokens", w.InTokens, "must be 0 to %d tokens", 1<<24)
		case w.OutTokens < 1 || w.OutTokens > 1<<24:
			return bad(f+"out_tokens", w.OutTokens, "must be 1 to %d tokens", 1<<24)
		case !finite(w.SLO.TTFT) || w.SLO.TTFT < 0:
			return bad(f+"slo.ttft_ms", w.SLO.TTFT, "must be a finite number of ms >= 0 (0 = no target)")
		case !finite(w.SLO.ITL) || w.SLO.ITL < 0:
			return bad(f+"slo.itl_ms", w.SLO.ITL, "must be a finite number of ms >= 0 (0 = no target)")
		case !finite(w.SLO.TPS) || w.SLO.TPS < 0:
			return bad(f+"slo.tps", w.SLO.TPS, "must be a finite number of tokens/s >= 0 (0 = no target)")
		case w.Priority != nil && (*w.Priority < 1 || *w.Priority > MaxPriority):
			return bad(f+"priority", *w.Priority, "must be 1 (highest) to %d", MaxPriority)
		case w.MaxBatch < 0 || w.MaxBatch > MaxBatchLimit:
			return bad(f+"max_batch", w.MaxBatch, "must be 0 to %d (0 = from the profile)", MaxBatchLimit)
		}
		if cur := w.Current; cur != nil {
			j := slices.IndexFunc(c.Variants, func(v Variant) bool { return v.Name == cur.Variant })
			switch {
			case j < 0:
				return bad(f+"current.variant", cur.Variant, "no variant has this name")
			case c.Variants[j].Model != w.Model:
				return bad(f+"current.variant", cur.Variant, "serves model %q, not the workload's %q", c.Variants[j].Model, w.Model)
			case cur.Replicas < 0 || cur.Replicas > MaxReplicasPerWorkload:
				return bad(f+"current.replicas", cur.Replicas, "must be 0 to %d", MaxReplicasPerWorkload)
			}
		}
		if needProfiles && w.MaxBatch == 0 {
			for _, v := range c.Variants {
				if v.Model == w.Model && v.Profile.MaxBatch == 0 {
					return bad(f+"max_batch", 0, "variant %q's profile has no max_batch: set the workload's max_batch", v.Name)
				}
			}
		}
		wnames[w.Name] = true
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
