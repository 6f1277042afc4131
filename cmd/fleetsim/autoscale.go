package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/fleetsim/fleetsim/pools/autoscale"
	"github.com/fleetsim/fleetsim/router"
	"github.com/fleetsim/fleetsim/sim"
	"github.com/fleetsim/fleetsim/workload"
)

// dayFlags are simulate's flags of a day (docs/day.md): the autoscaler,
// the pools' scaling blocks and the adaptive B_short.
type dayFlags struct {
	autoscale string
	scaling   []string
	adaptive  string
}

func (d *dayFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&d.autoscale, "autoscale", "", "autoscaler `POLICY[:KEY=V,...]` (docs/day.md): static, threshold:metric=queue|kv|running|rate,target=T[,tolerance=0.1][,up=0][,down=5m][,interval=15s], wva:FILE[,mode=limited][,interval=60s] (schedule: in a scenario file)")
	fs.StringArrayVar(&d.scaling, "scaling", nil, "a pool's scaling `POOL:KEY=V,...` (repeatable; POOL all for every pool): min, max (0: no bound), reserved, reserved-rate, on-demand-rate (USD per instance-hour), startup (delay, s or a duration), provision, bandwidth (bytes/s)")
	fs.StringVar(&d.adaptive, "adaptive", "", "adaptive B_short `min=T,max=T[,...]`: min, max (tokens) and optionally step, hold, calm, preempt, reject, queue (docs/day.md \"Adaptive B_short\"; needs a token-budget, spillover or cr router)")
}

// apply sets the flags that were given on cfg.
func (d *dayFlags) apply(fs *pflag.FlagSet, cfg *sim.Config) error {
	if fs.Changed("autoscale") {
		a, err := autoscale.ParseConfig(d.autoscale)
		if err != nil {
			return fmt.Errorf("--autoscale %q: %s", d.autoscale, oneLine(err))
		}
		if a.Policy == autoscale.PolicySchedule {
			return fmt.Errorf("--autoscale %q: a schedule is given in a scenario file (key autoscale.schedules)", d.autoscale)
		}
		cfg.Autoscale = &a
	}
	for _, s := range d.scaling {
		if err := applyScaling(s, cfg); err != nil {
			return err
		}
	}
	if fs.Changed("adaptive") {
		a, err := parseAdaptive(d.adaptive)
		if err != nil {
			return err
		}
		cfg.Router.Adaptive = &a
	}
	return nil
}

// applyScaling applies one --scaling POOL:KEY=V,... to its pool(s).
func applyScaling(s string, cfg *sim.Config) error {
	name, body, ok := strings.Cut(s, ":")
	if !ok || body == "" {
		return fmt.Errorf("--scaling %q: want POOL:KEY=VALUE,... (e.g. short:min=10,max=60,reserved=20)", s)
	}
	found := false
	for i := range cfg.Pools {
		p := &cfg.Pools[i]
		if name != "all" && p.Name != name {
			continue
		}
		found = true
		if p.ScalingBlock == nil {
			p.ScalingBlock = &sim.PoolScaling{}
		}
		for _, it := range strings.Split(body, ",") {
			k, v, ok := strings.Cut(it, "=")
			if !ok {
				return fmt.Errorf("--scaling %q: item %q: want KEY=VALUE", s, it)
			}
			if err := setScaling(p.ScalingBlock, k, v); err != nil {
				return fmt.Errorf("--scaling %q: %s", s, err)
			}
		}
	}
	if !found {
		return fmt.Errorf("--scaling %q: no pool named %q (pools: %s; or all)", s, name, strings.Join(cfg.PoolNames(), ", "))
	}
	return nil
}

func setScaling(b *sim.PoolScaling, k, v string) error {
	num := func() (float64, error) {
		x, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return 0, fmt.Errorf("%s = %q: not a number", k, v)
		}
		return x, nil
	}
	count := func(dst **int) error {
		n, err := strconv.Atoi(v)
		if err != nil {
			return fmt.Errorf("%s = %q: not a whole number of instances", k, v)
		}
		*dst = &n
		return nil
	}
	rate := func(dst **float64) error {
		x, err := num()
		*dst = &x
		return err
	}
	switch k {
	case "min":
		return count(&b.MinInstances)
	case "max":
		return count(&b.MaxInstances)
	case "reserved":
		return count(&b.ReservedInstances)
	case "reserved-rate":
		return rate(&b.ReservedRate)
	case "on-demand-rate":
		return rate(&b.OnDemandRate)
	case "startup":
		x, err := workload.ParseSeconds("startup_s", v)
		b.StartupS = &x
		return err
	case "provision":
		x, err := workload.ParseSeconds("provision_s", v)
		b.ProvisionS = x
		return err
	case "bandwidth":
		x, err := num()
		b.LoadBandwidth = x
		return err
	}
	return fmt.Errorf("unknown key %q (allowed: min, max, reserved, reserved-rate, on-demand-rate, startup, provision, bandwidth)", k)
}

// parseAdaptive reads --adaptive min=..,max=..,...
func parseAdaptive(s string) (router.AdaptiveConfig, error) {
	var a router.AdaptiveConfig
	for _, it := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(it, "=")
		if !ok {
			return a, fmt.Errorf("--adaptive %q: item %q: want KEY=VALUE (min, max, step, hold, calm, preempt, reject, queue)", s, it)
		}
		ints := map[string]*int{"min": &a.MinBShort, "max": &a.MaxBShort, "step": &a.Step, "hold": &a.Hold}
		floats := map[string]*float64{"calm": &a.Calm, "preempt": &a.PreemptRate, "reject": &a.RejectRate, "queue": &a.QueuePerGPU}
		if p, ok := ints[k]; ok {
			n, err := strconv.Atoi(v)
			if err != nil {
				return a, fmt.Errorf("--adaptive %q: %s = %q: not a whole number", s, k, v)
			}
			*p = n
			continue
		}
		if p, ok := floats[k]; ok {
			x, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return a, fmt.Errorf("--adaptive %q: %s = %q: not a number", s, k, v)
			}
			*p = x
			continue
		}
		return a, fmt.Errorf("--adaptive %q: unknown key %q (allowed: min, max, step, hold, calm, preempt, reject, queue)", s, k)
	}
	return a, nil
}

// loadDayFiles reads the wva policy's variants file (relative paths from
// a scenario file are resolved against its directory by the caller).
func loadDayFiles(cfg *sim.Config) error {
	a := cfg.Autoscale
	if a == nil || a.Policy != autoscale.PolicyWVA || a.Variants == "" {
		return nil
	}
	v, err := loadVariants(a.Variants)
	if err != nil {
		var ie *inputError
		if errors.As(err, &ie) {
			return fmt.Errorf("autoscale.variants: %s", strings.TrimPrefix(ie.msg, "--config "))
		}
		return err
	}
	cfg.Variants = v
	return nil
}

// resolveDayPaths makes a scenario file's autoscale.variants relative to
// the file's directory.
func resolveDayPaths(dir string, cfg *sim.Config) {
	if a := cfg.Autoscale; a != nil && a.Variants != "" && !filepath.IsAbs(a.Variants) {
		a.Variants = filepath.Join(dir, a.Variants)
	}
}
