package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/fleetsim/fleetsim/pools/catalog"
	"github.com/fleetsim/fleetsim/pools/fleetopt"
	"github.com/fleetsim/fleetsim/router"
	"github.com/fleetsim/fleetsim/sim"
	"github.com/fleetsim/fleetsim/sim/osd"
	"github.com/fleetsim/fleetsim/workload"
)

// scenarioKeys records which workload fields a scenario file set, so that
// defaults that conflict with them can be dropped (a trace replaces the
// default CDF; a trace without a rate replays its own timestamps).
type scenarioKeys struct {
	cdf, trace, rate bool
	compat           bool // compat: papers (the file starts from sim.PapersDefaults)
}

// scenarioFile is what a scenario file may hold: the scenario's keys
// (sim.Config) and compat, which, like --compat, starts the scenario from
// the papers' (sim.PapersDefaults) instead of the default.
type scenarioFile struct {
	sim.Config
	Compat string `json:"compat"`
}

// fileCompat applies a scenario file's compat key (removing it from top):
// "papers" replaces cfg by sim.PapersDefaults, whose fleet and timing the
// file's pools and timing keys may not replace.
func fileCompat(top map[string]any, cfg *sim.Config) (bool, error) {
	v, ok := top["compat"]
	if !ok {
		return false, nil
	}
	delete(top, "compat")
	if s, _ := v.(string); s != CompatPapers {
		return false, fmt.Errorf("compat = %q: allowed: papers (or leave it out)", fmt.Sprint(v))
	}
	for _, k := range []string{"pools", "timing"} {
		if _, ok := top[k]; ok {
			return false, fileCompatConflict(k)
		}
	}
	*cfg = sim.PapersDefaults()
	return true, nil
}

// fileCompatConflict is the error of an input (what: a key or a flag)
// that would replace what a scenario file's compat: papers fixes.
func fileCompatConflict(what string) error {
	return fmt.Errorf("%s: not with compat: papers, which fixes the fleet (%s) and the timing (kv); give one of them", what, poolsString(sim.PapersDefaults().Pools))
}

// loadScenario overlays the scenario file at path (YAML, or JSON when the
// name ends in .json) on cfg. Keys the file leaves out keep their value in
// cfg; lists (pools) are replaced as a whole. Unknown keys are errors.
// Relative CDF and trace paths in the file are relative to the file's
// directory. Every error is one line.
func loadScenario(path string, cfg *sim.Config) (scenarioKeys, error) {
	data, err := readInput("--config", path, maxScenarioBytes)
	if err != nil {
		return scenarioKeys{}, err
	}
	return decodeScenario(path, data, cfg)
}

// decodeScenario is loadScenario on the file's content; path gives the
// format (by extension) and the directory of relative paths. The document
// is read as described in scenario_decode.go, YAML and JSON alike.
func decodeScenario(path string, data []byte, cfg *sim.Config) (scenarioKeys, error) {
	var keys scenarioKeys
	isJSON := strings.EqualFold(filepath.Ext(path), ".json")
	format := "YAML"
	if isJSON {
		format = "JSON"
	}
	fail := func(err error) (scenarioKeys, error) {
		return keys, fmt.Errorf("--config %s: %s", path, oneLine(err))
	}
	tree, err := parseScenarioTree(data, isJSON)
	if err != nil {
		return fail(err)
	}
	if tree == nil { // an empty file sets nothing
		return keys, nil
	}
	top, ok := tree.(map[string]any)
	if !ok {
		return keys, fmt.Errorf("--config %s: not a %s mapping of scenario keys (want keys such as workload, pools, router, timing, seed)", path, format)
	}
	if err := checkTree(top, reflect.TypeOf(scenarioFile{}), ""); err != nil {
		return fail(err)
	}
	if keys.compat, err = fileCompat(top, cfg); err != nil {
		return fail(err)
	}
	if wl, ok := top["workload"].(map[string]any); ok {
		_, keys.cdf = wl["cdf"]
		_, keys.trace = wl["trace"]
		_, keys.rate = wl["rate"]
	}
	if keys.trace && !keys.cdf {
		cfg.Workload.CDF = ""
	}
	if _, ok := top["pools"]; ok { // a file's pools replace the default pools
		cfg.Pools = nil
	}
	if keys.cdf && !keys.trace {
		cfg.Workload.Trace, cfg.Workload.TraceFormat = "", ""
	}
	// OSD parameters the file leaves out keep guidellm's defaults (the
	// decoder fills the struct the pointer already holds).
	if cfg.OSD.Params == nil {
		p := osd.DefaultConfig()
		cfg.OSD.Params = &p
	}
	if err := decodeTree(top, cfg); err != nil {
		return fail(err)
	}
	dir := filepath.Dir(path)
	w := &cfg.Workload
	if keys.cdf && w.CDF != "" && !slices.Contains(workload.BuiltinCDFs(), w.CDF) && !filepath.IsAbs(w.CDF) {
		w.CDF = filepath.Join(dir, w.CDF)
	}
	if keys.trace && w.Trace != "" && w.Trace != workload.StdinName && !filepath.IsAbs(w.Trace) {
		w.Trace = filepath.Join(dir, w.Trace)
	}
	resolveDayPaths(dir, cfg)                             // autoscale.go
	if err := loadPoolSpecs(path, dir, cfg); err != nil { // catalog profile files, HF configs (poolspec.go)
		return keys, err
	}
	return keys, loadPoolProfiles(path, dir, cfg) // pools/variants profiles (poolprofile.go)
}

// oneLine joins a multi-line error message into one line of valid UTF-8.
func oneLine(err error) string {
	msg := strings.ToValidUTF8(err.Error(), "?")
	msg = strings.Replace(msg, "yaml: unmarshal errors:\n", "", 1)
	fields := strings.Fields(strings.ReplaceAll(msg, "\n", " ; "))
	return strings.ReplaceAll(strings.Join(fields, " "), " ;", ";")
}

// planRouter is what a plan says about routing: the short-pool boundary
// B_short and, when the planned fleet relies on compress-and-route (γ > 1
// and p_c > 0), its γ and p_c.
type planRouter struct {
	cr     bool
	bShort int     // tokens; 0 for a one-pool plan
	gamma  float64 // C&R bandwidth
	pc     float64 // C&R success probability
}

// planHeader is the part of a plan file (fleetopt.Plan) that describes the
// workload the plan was sized for.
type planHeader struct {
	Workload      string  `json:"workload"`       // CDF name or file
	Rate          float64 `json:"rate"`           // requests/s
	Timing        string  `json:"timing"`         // kv or paper
	InputFraction float64 `json:"input_fraction"` // fixed split
}

// applyPlan overlays the plan file at path (the JSON of `fleetsim plan
// --format json`, with or without --disaggregated) on cfg: the pools of the
// chosen method (names, GPUs, counts and max contexts exactly as planned;
// a disaggregated plan's pools split into its prefill and decode
// instances over its link) replace cfg's pools, and the
// workload the plan records (CDF, rate, timing preset, fixed input fraction)
// replaces cfg's. It returns the plan's routing settings and which workload
// keys it set. Every error is one line naming --plan.
//
// With ownWorkload (--workload or --trace given) the plan's CDF is not used,
// so it need not exist.
func applyPlan(path, method string, ownWorkload bool, cfg *sim.Config) (planRouter, scenarioKeys, error) {
	var keys scenarioKeys
	data, err := readInput("--plan", path, maxPlanBytes)
	if err != nil {
		return planRouter{}, keys, err
	}
	planErr := func(err error) error {
		msg := strings.TrimPrefix(oneLine(err), "plan: ")
		if strings.HasSuffix(msg, "; name one") {
			msg += " with --plan-method"
		}
		return fmt.Errorf("--plan %s: %s", path, msg)
	}
	var pr planRouter
	// A `plan --disaggregated` plan (disagg.go) or a colocated one.
	if pools, bShort, ok, err := disaggPlanPools(data, method); ok {
		if err != nil {
			return planRouter{}, keys, planErr(err)
		}
		cfg.Pools, pr.bShort = pools, bShort
	} else {
		m, err := fleetopt.ReadPlanMethod(bytes.NewReader(data), method)
		if err != nil {
			return planRouter{}, keys, planErr(err)
		}
		cfg.Pools = make([]sim.PoolConfig, len(m.Pools))
		for i, pp := range m.Pools {
			cfg.Pools[i] = sim.PoolConfig{Name: pp.Name, GPU: strings.ToLower(pp.GPU), Count: pp.GPUs, MaxContext: pp.MaxCtx,
				SlotRule: slotRuleOf(pp.GPU, pp.MaxCtx, pp.Slots)}
		}
		pr = planRouter{bShort: m.BShort, gamma: m.Gamma, pc: m.PC}
		pr.cr = len(m.Pools) > 1 && m.Gamma > 1 && m.PC > 0
	}
	var h planHeader
	if err := json.Unmarshal(data, &h); err != nil {
		return planRouter{}, keys, fmt.Errorf("--plan %s: %s", path, oneLine(err))
	}
	w := &cfg.Workload
	if h.Workload != "" && !ownWorkload {
		wl := h.Workload
		// A CDF file is named as it was given to `fleetsim plan`: relative
		// to the working directory, or else to the plan file's directory.
		if !slices.Contains(workload.BuiltinCDFs(), wl) && !filepath.IsAbs(wl) {
			if _, err := os.Stat(wl); err != nil {
				alt := filepath.Join(filepath.Dir(path), wl)
				if !fileExists(alt) {
					return planRouter{}, keys, fmt.Errorf("--plan %s: workload %q: not a built-in CDF (%s) and no such file here or beside the plan (give --workload)",
						path, wl, strings.Join(workload.BuiltinCDFs(), ", "))
				}
				wl = alt
			}
		}
		w.CDF, w.Trace, w.TraceFormat = wl, "", ""
		keys.cdf = true
	}
	if h.Rate > 0 {
		w.Rate = h.Rate
		keys.rate = true
	}
	// A plan is checked under the timing that sized it: the planners'
	// (kv or paper, recorded in the plan), kv when a plan does not say —
	// never the simulator's default auto, which charges prompt tokens the
	// planners do not.
	cfg.Timing = h.Timing
	if cfg.Timing == "" {
		cfg.Timing = catalog.DefaultTiming
	}
	if h.InputFraction > 0 {
		w.Split, w.InputFraction = workload.SplitFixedName, h.InputFraction
	}
	return pr, keys, nil
}

func fileExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir()
}

// categoriesExample is the syntax of --categories.
const categoriesExample = "want NAME=SHARE,... over prose, code, cjk, rag, mixed, e.g. prose=0.6,code=0.25,rag=0.15"

// parseCategories parses --categories NAME=SHARE,... into a category mix.
// Names are the workload categories (case-insensitive), each at most once;
// shares are in [0, 1] and sum to 1 (within 1e-9, as workload.Spec requires).
func parseCategories(s string) (map[string]float64, error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("--categories %q: %s", s, fmt.Sprintf(format, args...))
	}
	if strings.TrimSpace(s) == "" {
		return nil, bad("empty (%s)", categoriesExample)
	}
	m := map[string]float64{}
	sum := 0.0
	for _, item := range strings.Split(s, ",") {
		name, val, ok := strings.Cut(item, "=")
		name, val = strings.ToLower(strings.TrimSpace(name)), strings.TrimSpace(val)
		if !ok || name == "" || val == "" {
			return nil, bad("item %q is not NAME=SHARE (%s)", item, categoriesExample)
		}
		if _, err := workload.ParseCategory(name); err != nil {
			return nil, bad("unknown category %q (allowed: prose, code, cjk, rag, mixed)", name)
		}
		if _, dup := m[name]; dup {
			return nil, bad("category %s is given twice", name)
		}
		v, err := strconv.ParseFloat(val, 64)
		if err != nil {
			return nil, bad("share %q of %s is not a number", val, name)
		}
		if !(v >= 0 && v <= 1) {
			return nil, bad("share %v of %s must be in [0, 1]", v, name)
		}
		m[name] = v
		sum += v
	}
	if math.Abs(sum-1) > 1e-9 {
		return nil, bad("the shares sum to %.6g; they must sum to 1", sum)
	}
	return m, nil
}

// routerField is a tuning field of sim.RouterConfig: its flag, its scenario
// key, the router kinds that use it, and its value (set when non-zero).
type routerField struct {
	flag, key string
	kinds     []string
	value     func(sim.RouterConfig) (any, bool)
}

var routerFields = []routerField{
	{"b-short", "router.b_short", []string{sim.RouterTokenBudget, sim.RouterSpillover, sim.RouterCR},
		func(r sim.RouterConfig) (any, bool) { return r.BShort, r.BShort != 0 }},
	{"gamma", "router.gamma", []string{sim.RouterCR},
		func(r sim.RouterConfig) (any, bool) { return r.Gamma, r.Gamma != 0 }},
	{"p-c", "router.p_c", []string{sim.RouterCR},
		func(r sim.RouterConfig) (any, bool) { return r.PC, r.PC != router.DefaultPC }}, // set: not the default of sim.Defaults
	{"spill-queue-per-gpu", "router.spill_queue_per_gpu", []string{sim.RouterSpillover, sim.RouterCR},
		func(r sim.RouterConfig) (any, bool) { return r.SpillQueuePerGPU, r.SpillQueuePerGPU != 0 }},
	{"ema-decay", "router.ema_decay", []string{sim.RouterTokenBudget, sim.RouterSpillover, sim.RouterCR},
		func(r sim.RouterConfig) (any, bool) { return r.EMADecay, r.EMADecay != 0 }},
	// Scenario-file only (no flag).
	{"", "router.spill_kv_occupancy", []string{sim.RouterSpillover, sim.RouterCR},
		func(r sim.RouterConfig) (any, bool) { return r.SpillKVOccupancy, r.SpillKVOccupancy != 0 }},
	{"", "router.sigma_weight", []string{sim.RouterTokenBudget, sim.RouterSpillover, sim.RouterCR},
		func(r sim.RouterConfig) (any, bool) { return r.SigmaWeight, r.SigmaWeight != 0 }},
	{"", "router.cold_start", []string{sim.RouterTokenBudget, sim.RouterSpillover, sim.RouterCR},
		func(r sim.RouterConfig) (any, bool) { return r.ColdStart, r.ColdStart != 0 }},
	{"", "router.min_observations", []string{sim.RouterTokenBudget, sim.RouterSpillover, sim.RouterCR},
		func(r sim.RouterConfig) (any, bool) { return r.MinObservations, r.MinObservations != 0 }},
	{"", "router.compressible", []string{sim.RouterCR},
		func(r sim.RouterConfig) (any, bool) { return r.Compressible, len(r.Compressible) != 0 }},
	{"", "router.compress_p50_s", []string{sim.RouterCR},
		func(r sim.RouterConfig) (any, bool) { return r.CompressP50S, r.CompressP50S != 0 }},
	{"", "router.compress_p99_s", []string{sim.RouterCR},
		func(r sim.RouterConfig) (any, bool) { return r.CompressP99S, r.CompressP99S != 0 }},
}

// routerScenario sets the router: its kind (--router, else compress-and-route
// when the plan relies on it, else the file's), the plan's B_short, γ and
// p_c where the kind uses them, then the router flags given. A flag's zero
// would mean "the default" in sim.RouterConfig, so each flag must be a
// proper value; a tuning field the chosen kind does not use is an error
// rather than silently ignored.
func (f *simFlags) routerScenario(r *sim.RouterConfig, pr planRouter) error {
	ch := f.fs.Changed
	switch {
	case ch("router"):
		r.Kind = f.router
	case pr.cr:
		r.Kind = sim.RouterCR
	}
	kind := r.Kind
	if kind == "" {
		kind = sim.RouterLength
	}
	if pr.bShort > 0 && kind != sim.RouterLength {
		r.BShort = pr.bShort
	}
	if pr.cr && kind == sim.RouterCR {
		r.Gamma, r.PC = pr.gamma, pr.pc
	}
	if ch("b-short") {
		if f.bShort < 1 {
			return fmt.Errorf("--b-short %d: must be a number of tokens >= 1 (at most the smallest pool's max context)", f.bShort)
		}
		r.BShort = f.bShort
	}
	// Ranges are router.CheckValue's (the rules router.Config.Validate
	// applies); p_c and the spill limit refuse 0 on top, since a zero flag
	// would silently mean no compression or the default limit.
	if ch("gamma") {
		if err := router.CheckValue("gamma", f.gamma); err != nil {
			return fmt.Errorf("--gamma %v: %v", f.gamma, err)
		}
		r.Gamma = f.gamma
	}
	if ch("p-c") {
		if f.pc == 0 || router.CheckValue("p_c", f.pc) != nil {
			return fmt.Errorf("--p-c %v: must be in (0, 1] (p_c = 0 compresses nothing: use --router token-budget or spillover)", f.pc)
		}
		r.PC = f.pc
	}
	if ch("spill-queue-per-gpu") {
		if f.spillQ == 0 || router.CheckValue("spill_queue_per_gpu", f.spillQ) != nil {
			return fmt.Errorf("--spill-queue-per-gpu %v: must be in (0, %g] queued requests per GPU", f.spillQ, float64(router.MaxSpillQueuePerGPU))
		}
		r.SpillQueuePerGPU = f.spillQ
	}
	if ch("ema-decay") {
		if err := router.CheckValue("ema_decay", f.emaDecay); err != nil {
			return fmt.Errorf("--ema-decay %v: %v", f.emaDecay, err)
		}
		r.EMADecay = f.emaDecay
	}
	if !slices.Contains([]string{sim.RouterLength, sim.RouterTokenBudget, sim.RouterSpillover, sim.RouterCR}, kind) {
		return nil // Validate names the unknown kind
	}
	for _, fd := range routerFields {
		v, set := fd.value(*r)
		if !set || slices.Contains(fd.kinds, kind) {
			continue
		}
		if fd.flag != "" && ch(fd.flag) {
			return fmt.Errorf("--%s %v: only used by --router %s (the router is %q)", fd.flag, v, strings.Join(fd.kinds, ", "), kind)
		}
		return fmt.Errorf("%s = %v: only used by router.kind %s (router.kind is %q)", fd.key, v, strings.Join(fd.kinds, ", "), kind)
	}
	return nil
}
