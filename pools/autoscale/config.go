package autoscale

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/fleetsim/fleetsim/pools/variants"
	"github.com/fleetsim/fleetsim/workload"
)

// Policy names.
const (
	PolicyStatic    = "static"
	PolicyThreshold = "threshold"
	PolicyWVA       = "wva"
	PolicySchedule  = "schedule"
)

// Policies lists the policy names.
var Policies = []string{PolicyStatic, PolicyThreshold, PolicyWVA, PolicySchedule}

// DefaultIntervalS is the control interval, seconds: the HPA's default sync
// period (kube-controller-manager --horizontal-pod-autoscaler-sync-period).
const DefaultIntervalS = 15.0

// MinIntervalS is the shortest control interval, seconds (1 ms, the time
// series' shortest interval): a shorter one would tick (nearly) without end.
const MinIntervalS = 1e-3

// Config is an autoscaler as a scenario file gives it (key autoscale) or
// ParseConfig reads it from a flag. Zero values mean defaults; the pointer
// fields tell "not given" from an explicit 0.
type Config struct {
	Policy    string  `json:"policy" yaml:"policy"`
	IntervalS float64 `json:"interval_s,omitempty" yaml:"interval_s,omitempty"` // > 0; default 15 s
	// threshold
	Metric      string   `json:"metric,omitempty" yaml:"metric,omitempty"` // queue, kv, running or rate
	Target      float64  `json:"target,omitempty" yaml:"target,omitempty"` // > 0 (kv: in (0, 1])
	Tolerance   *float64 `json:"tolerance,omitempty" yaml:"tolerance,omitempty"`
	UpWindowS   *float64 `json:"up_window_s,omitempty" yaml:"up_window_s,omitempty"`
	DownWindowS *float64 `json:"down_window_s,omitempty" yaml:"down_window_s,omitempty"`
	// Targets overrides Target per pool, by pool name (flag: target.POOL=T).
	Targets map[string]float64 `json:"targets,omitempty" yaml:"targets,omitempty"`
	// wva: a variants file (fleetsim optimize's) whose workloads are named
	// after the pools; Mode "unlimited" or "limited" overrides the file's.
	Variants string `json:"variants,omitempty" yaml:"variants,omitempty"`
	Mode     string `json:"mode,omitempty" yaml:"mode,omitempty"`
	// schedule: each pool's schedule, by pool name.
	Schedules map[string]Schedule `json:"schedules,omitempty" yaml:"schedules,omitempty"`
}

func bad(field string, v any, allowed string, args ...any) error {
	if s, ok := v.(string); ok {
		v = strconv.Quote(s)
	}
	return fmt.Errorf("autoscale.%s = %v: %s", field, v, fmt.Sprintf(allowed, args...))
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// WithDefaults returns c with the defaults of its policy filled in.
func (c Config) WithDefaults() Config {
	if c.Policy == "" {
		c.Policy = PolicyStatic
	}
	if c.IntervalS == 0 {
		c.IntervalS = DefaultIntervalS
	}
	def := func(p **float64, v float64) {
		if *p == nil {
			*p = &v
		}
	}
	if c.Policy == PolicyThreshold {
		def(&c.Tolerance, DefaultTolerance)
		def(&c.UpWindowS, DefaultUpWindowS)
	}
	if c.Policy == PolicyThreshold || c.Policy == PolicyWVA {
		def(&c.DownWindowS, DefaultDownWindowS)
	}
	return c
}

// Validate checks c against the pools' names; the error names the field
// (autoscale.policy, autoscale.interval_s, ...), the value and what is
// allowed. Parameters of another policy are errors.
func (c Config) Validate(pools []string) error {
	c = c.WithDefaults()
	if !slices.Contains(Policies, c.Policy) {
		return bad("policy", c.Policy, "allowed: %s", strings.Join(Policies, ", "))
	}
	if !finite(c.IntervalS) || !(c.IntervalS >= MinIntervalS) || c.IntervalS > workload.MaxTraceSpanS {
		return bad("interval_s", c.IntervalS, "must be a finite number of seconds in [0.001, %g]", workload.MaxTraceSpanS)
	}
	th := c.Policy == PolicyThreshold
	switch {
	case !th && (c.Metric != "" || c.Target != 0 || len(c.Targets) > 0 || c.Tolerance != nil || c.UpWindowS != nil):
		return bad("metric", c.Metric, "metric, target, tolerance and up_window_s apply only to policy threshold (policy is %s)", c.Policy)
	case !th && c.Policy != PolicyWVA && c.DownWindowS != nil:
		return bad("down_window_s", *c.DownWindowS, "applies only to policies threshold and wva (policy is %s)", c.Policy)
	case c.Policy != PolicyWVA && (c.Variants != "" || c.Mode != ""):
		return bad("variants", c.Variants, "variants and mode apply only to policy wva (policy is %s)", c.Policy)
	case c.Policy != PolicySchedule && len(c.Schedules) > 0:
		return bad("schedules", len(c.Schedules), "apply only to policy schedule (policy is %s)", c.Policy)
	}
	switch c.Policy {
	case PolicyThreshold:
		if !slices.Contains(Metrics, c.Metric) {
			return bad("metric", c.Metric, "allowed: %s", strings.Join(Metrics, ", "))
		}
		if err := checkTarget("target", c.Metric, c.Target); err != nil && (len(c.Targets) < len(pools) || c.Target != 0) {
			return err
		}
		for _, name := range slices.Sorted(maps.Keys(c.Targets)) {
			if !slices.Contains(pools, name) {
				return bad("targets", name, "no such pool (pools: %s)", strings.Join(pools, ", "))
			}
			if err := checkTarget("targets."+name, c.Metric, c.Targets[name]); err != nil {
				return err
			}
		}
		if t := *c.Tolerance; !finite(t) || t < 0 || t >= 1 {
			return bad("tolerance", t, "must be in [0, 1) (default %g)", DefaultTolerance)
		}
		for _, w := range []struct {
			f string
			v float64
		}{{"up_window_s", *c.UpWindowS}, {"down_window_s", *c.DownWindowS}} {
			if !finite(w.v) || w.v < 0 {
				return bad(w.f, w.v, "must be a finite number of seconds >= 0")
			}
		}
	case PolicyWVA:
		if c.Variants == "" {
			return bad("variants", c.Variants, "policy wva needs a variants file (fleetsim optimize's format; one workload per pool, named after it)")
		}
		if c.Mode != "" && c.Mode != variants.ModeUnlimited && c.Mode != variants.ModeLimited {
			return bad("mode", c.Mode, "allowed: %s, %s", variants.ModeUnlimited, variants.ModeLimited)
		}
		if w := *c.DownWindowS; !finite(w) || w < 0 {
			return bad("down_window_s", w, "must be a finite number of seconds >= 0")
		}
	case PolicySchedule:
		for _, p := range pools {
			s, ok := c.Schedules[p]
			if !ok {
				return bad("schedules", p, "policy schedule needs a schedule for every pool (pools: %s)", strings.Join(pools, ", "))
			}
			if err := s.validate("schedules." + p); err != nil {
				return err
			}
		}
		for name := range c.Schedules {
			if !slices.Contains(pools, name) {
				return bad("schedules", name, "no such pool (pools: %s)", strings.Join(pools, ", "))
			}
		}
	}
	return nil
}

func checkTarget(field, metric string, v float64) error {
	if !finite(v) || !(v > 0) || ((metric == MetricKV || metric == MetricSlots) && v > 1) {
		if metric == MetricKV || metric == MetricSlots {
			return bad(field, v, "must be a utilization in (0, 1]")
		}
		return bad(field, v, "must be a finite number > 0 (%s per serving instance)", metric)
	}
	return nil
}

func (s Schedule) validate(field string) error {
	n := len(s.Times)
	if n == 0 || n != len(s.Counts) {
		return bad(field, n, "needs as many times_s as instances, at least one")
	}
	if s.Times[0] != 0 {
		return bad(field+".times_s", s.Times[0], "the first time must be 0")
	}
	for i := range n {
		if !finite(s.Times[i]) || (i > 0 && !(s.Times[i] > s.Times[i-1])) {
			return bad(field+".times_s", s.Times[i], "times must be finite and strictly increasing")
		}
		if s.Counts[i] < 0 {
			return bad(field+".instances", s.Counts[i], "must be >= 0")
		}
	}
	if !finite(s.PeriodS) || s.PeriodS < 0 || (s.PeriodS > 0 && s.Times[n-1] >= s.PeriodS) {
		return bad(field+".period_s", s.PeriodS, "must be 0 (no repeat) or a period > the last time %g s", s.Times[n-1])
	}
	return nil
}

// New builds the autoscaler of a valid c for the pools named pools. vcfg is
// the wva policy's variants file, parsed and with profiles resolved (nil
// for the other policies); its workloads are matched to the pools by name.
func New(c Config, pools []string, vcfg *variants.Config) (Autoscaler, error) {
	if err := c.Validate(pools); err != nil {
		return nil, err
	}
	c = c.WithDefaults()
	switch c.Policy {
	case PolicyThreshold:
		th := NewThreshold(c.Metric, c.Target, *c.Tolerance, *c.UpWindowS, *c.DownWindowS, len(pools))
		if len(c.Targets) > 0 {
			th.Targets = make([]float64, len(pools))
			for i, p := range pools {
				th.Targets[i] = c.Targets[p]
			}
		}
		return th, nil
	case PolicyWVA:
		if vcfg == nil {
			return nil, bad("variants", c.Variants, "not loaded")
		}
		idx := make([]int, len(pools))
		for i, p := range pools {
			idx[i] = slices.IndexFunc(vcfg.Workloads, func(w variants.Workload) bool { return w.Name == p })
			if idx[i] < 0 {
				return nil, bad("variants", c.Variants, "has no workload named after pool %q", p)
			}
		}
		w, err := NewWVA(vcfg, variants.Options{Mode: c.Mode}, idx)
		if err != nil || *c.DownWindowS == 0 {
			return w, err
		}
		return &Stabilized{Inner: w, DownWindowS: *c.DownWindowS}, nil
	case PolicySchedule:
		s := Scheduled{}
		for _, p := range pools {
			s.Pools = append(s.Pools, c.Schedules[p])
		}
		return s, nil
	}
	return Static{}, nil
}

// ParseConfig reads an autoscaler from a flag (docs/day.md):
//
//	static
//	threshold:metric=queue,target=4[,tolerance=0.1][,up=0][,down=5m][,interval=15s]
//	wva:FILE[,mode=limited][,down=5m][,interval=60s]
//
// (schedule: in a scenario file only). The result is not validated.
func ParseConfig(s string) (Config, error) {
	policy, body, _ := strings.Cut(s, ":")
	c := Config{Policy: policy}
	if body == "" {
		return c, nil
	}
	items := strings.Split(body, ",")
	if policy == PolicyWVA {
		c.Variants, items = items[0], items[1:]
	}
	for _, it := range items {
		k, v, ok := strings.Cut(it, "=")
		if !ok {
			return c, bad("policy", s, "want POLICY:KEY=VALUE,... (docs/day.md)")
		}
		var err error
		num := func(field string) float64 {
			var x float64
			if err == nil {
				x, err = workload.ParseSeconds(field, v)
			}
			return x
		}
		if pool, ok := strings.CutPrefix(k, "target."); ok {
			x, e := strconv.ParseFloat(v, 64)
			if e != nil {
				return c, bad("targets."+pool, v, "must be a number")
			}
			if c.Targets == nil {
				c.Targets = map[string]float64{}
			}
			c.Targets[pool] = x
			continue
		}
		switch k {
		case "metric":
			c.Metric = v
		case "mode":
			c.Mode = v
		case "target":
			c.Target, err = strconv.ParseFloat(v, 64)
			if err != nil {
				return c, bad("target", v, "must be a number")
			}
		case "interval":
			if c.IntervalS = num("autoscale.interval_s"); err == nil && !(c.IntervalS >= MinIntervalS) {
				return c, bad("interval_s", c.IntervalS, "must be a finite number of seconds in [0.001, %g]", workload.MaxTraceSpanS)
			}
		case "tolerance":
			x, e := strconv.ParseFloat(v, 64)
			if e != nil {
				return c, bad("tolerance", v, "must be a number in [0, 1)")
			}
			c.Tolerance = &x
		case "up":
			x := num("autoscale.up_window_s")
			c.UpWindowS = &x
		case "down":
			x := num("autoscale.down_window_s")
			c.DownWindowS = &x
		default:
			return c, bad(k, v, "unknown key (threshold: metric, target, target.POOL, tolerance, up, down, interval; wva: mode, interval)")
		}
		if err != nil {
			return c, err
		}
	}
	return c, nil
}
