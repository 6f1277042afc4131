package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fleetsim/fleetsim/pools/autoscale"
	"github.com/fleetsim/fleetsim/pools/variants"
	"github.com/fleetsim/fleetsim/sim"
	"github.com/fleetsim/fleetsim/workload"
)

// TestAutoscaleStaticIsBaseline: --autoscale static (flag or scenario key)
// schedules no control tick: requests.parquet is byte-identical to the
// baseline binary of commit c9db118 (the sha256 TestRateProfileConstIsBaseline
// pins for `simulate --timing kv --requests 5000` on c9db118's default
// fleet, the papers': papersFleet), and summary.json is the
// run's without the flag, byte for byte.
func TestAutoscaleStaticIsBaseline(t *testing.T) {
	const wantParquet = "9bc346425a19196a8b57520d12858591adc8fb6e5032b88c01523f74bdb84cb0"
	dir := t.TempDir()
	base := append([]string{"simulate", "--requests", "5000"}, papersFleet...)
	run := func(name string, extra ...string) string {
		out := filepath.Join(dir, name)
		if code, _, stderr := runCLI(t, append(append(append([]string(nil), base...), extra...), "--out", out)...); code != 0 {
			t.Fatalf("%s: exit status %d: %s", name, code, stderr)
		}
		return out
	}
	plain := run("plain")
	scen := writeFile(t, dir, "static.yaml", "autoscale: {policy: static}\n")
	for name, extra := range map[string][]string{
		"flag":     {"--autoscale", "static"},
		"scenario": {"--config", scen},
	} {
		out := run(name, extra...)
		sum := sha256.Sum256(readBytes(t, filepath.Join(out, requestsFile)))
		if got := hex.EncodeToString(sum[:]); got != wantParquet {
			t.Errorf("%s: requests.parquet sha256 %s, want c9db118's %s", name, got, wantParquet)
		}
		if !bytes.Equal(readBytes(t, filepath.Join(out, summaryFile)), readBytes(t, filepath.Join(plain, summaryFile))) {
			t.Errorf("%s: summary.json differs from the run without --autoscale", name)
		}
	}
}

// TestAutoscaleBadInput: bad autoscaler, scaling and adaptive settings
// exit with status 2, one line naming the field, and no file.
func TestAutoscaleBadInput(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--autoscale", "hpa"}, "autoscale.policy"},
		{[]string{"--autoscale", "threshold:metric=gpu,target=1"}, "autoscale.metric"},
		{[]string{"--autoscale", "threshold:metric=queue"}, "autoscale.target"},
		{[]string{"--autoscale", "threshold:metric=queue,target=4,interval=0"}, "autoscale.interval_s"},
		{[]string{"--autoscale", "threshold:metric=queue,target=4,down=-5"}, "autoscale.down_window_s"},
		{[]string{"--autoscale", "threshold:metric=rate,target.nosuch=3,target=1"}, "autoscale.targets"},
		{[]string{"--autoscale", "wva:" + filepath.Join(dir, "missing.yaml")}, "autoscale.variants"},
		{[]string{"--autoscale", "static", "--scaling", "short:min=5,max=2"}, "min_instances"},
		{[]string{"--autoscale", "static", "--scaling", "short:startup=-1"}, "startup_s"},
		{[]string{"--autoscale", "static", "--scaling", "nosuch:min=1"}, "--scaling"},
		{[]string{"--autoscale", "static", "--scaling", "all:max=10"}, "count"},
		{[]string{"--router", "token-budget", "--adaptive", "min=100,max=50"}, "adaptive.max_b_short"},
		{[]string{"--adaptive", "min=100,max=4096"}, "router.adaptive"},
		{[]string{"--config", writeFile(t, dir, "sched.yaml", "autoscale: {policy: schedule, schedules: {short: {times_s: [0, 10], instances: [1]}}}\n")}, "autoscale.schedules"},
	} {
		checkSimulateBadInput(t, dir, tc.args, tc.want)
	}
}

// TestWVARunMatchesOptimize: in a real run under the wva policy, the count
// the autoscaler gave each pool at a recorded tick equals the replicas
// `fleetsim optimize --format json` prints for a variants file holding that
// tick's measured load (the interval's arrival rate and mean lengths).
func TestWVARunMatchesOptimize(t *testing.T) {
	const head = `mode: unlimited
variants:
  - {name: s-a100, model: m-short, accelerator: A100, unit_cost: 2.21,
     profile: {alpha_ms: 8, beta_ms: 0.05, gamma_ms: 15, delta_ms: 0.0004, max_batch: 256, at_tokens: 211}}
  - {name: l-a100, model: m-long, accelerator: A100, unit_cost: 2.21,
     profile: {alpha_ms: 8, beta_ms: 0.05, gamma_ms: 15, delta_ms: 0.0004, max_batch: 16, at_tokens: 211}}
workloads:
`
	wl := func(rpm float64, inS, outS, inL, outL int) string {
		return fmt.Sprintf("  - {name: short, model: m-short, rate_rpm: %v, in_tokens: %d, out_tokens: %d, slo: {ttft_ms: 2000, itl_ms: 60}}\n"+
			"  - {name: long, model: m-long, rate_rpm: %v, in_tokens: %d, out_tokens: %d, slo: {ttft_ms: 2000, itl_ms: 60}}\n", rpm, inS, outS, rpm/10, inL, outL)
	}
	dir := t.TempDir()
	vfile := writeFile(t, dir, "variants.yaml", head+wl(60, 100, 100, 100, 100))
	vcfg, err := loadVariants(vfile)
	if err != nil {
		t.Fatal(err)
	}
	cfg := sim.Defaults()
	cfg.Timing = "kv"
	cfg.Workload = workload.Spec{CDF: "azure", Rate: 100, Requests: 6000}
	cfg.Pools[0].Count, cfg.Pools[1].Count = 4, 8
	for i := range cfg.Pools {
		min0 := 1
		cfg.Pools[i].ScalingBlock = &sim.PoolScaling{MinInstances: &min0}
	}
	down := 0.0 // the optimizer's own counts, without the scale-down window
	cfg.Autoscale = &autoscale.Config{Policy: autoscale.PolicyWVA, Variants: vfile, IntervalS: 10, DownWindowS: &down}
	cfg.Variants = vcfg
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	src, err := workload.NewSource(cfg.Workload, cfg.Seed)
	if err != nil {
		t.Fatal(err)
	}
	var ds []sim.Decision
	if _, err := sim.Run(cfg, src, nil, sim.Options{OnDecision: func(d sim.Decision) { ds = append(ds, d) }}); err != nil {
		t.Fatal(err)
	}
	if len(ds) < 3 {
		t.Fatalf("%d control ticks, want several", len(ds))
	}
	for _, d := range []sim.Decision{ds[1], ds[len(ds)/2]} {
		o := d.Observations
		rec := head + fmt.Sprintf("  - {name: short, model: m-short, rate_rpm: %v, in_tokens: %d, out_tokens: %d, slo: {ttft_ms: 2000, itl_ms: 60}}\n"+
			"  - {name: long, model: m-long, rate_rpm: %v, in_tokens: %d, out_tokens: %d, slo: {ttft_ms: 2000, itl_ms: 60}}\n",
			o[0].RateRPS*60, round(o[0].MeanIn), round(o[0].MeanOut), o[1].RateRPS*60, round(o[1].MeanIn), round(o[1].MeanOut))
		code, stdout, stderr := runCLI(t, "optimize", "--config", writeFile(t, dir, "recorded.yaml", rec), "--format", "json")
		if code != 0 {
			t.Fatalf("fleetsim optimize: exit %d: %s", code, stderr)
		}
		var res variants.Result
		if err := json.Unmarshal([]byte(stdout), &res); err != nil {
			t.Fatal(err)
		}
		want := []int{res.Allocations[0].Replicas, res.Allocations[1].Replicas}
		if d.Desired[0] != want[0] || d.Desired[1] != want[1] {
			t.Errorf("tick at %v s (short %.1f req/s, long %.1f req/s): wva %v, fleetsim optimize %v", d.TimeS, o[0].RateRPS, o[1].RateRPS, d.Desired, want)
		}
		t.Logf("tick at %v s: short %.2f req/s (%.0f/%.0f tokens), long %.2f req/s: wva %v = optimize %v; active %v",
			d.TimeS, o[0].RateRPS, o[0].MeanIn, o[0].MeanOut, o[1].RateRPS, d.Desired, want, d.Active)
	}
}

func round(x float64) int { return max(int(x+0.5), 1) }

// TestAutoscaleScenario: the scenario keys autoscale (a schedule),
// pools[].scaling and router.adaptive decode and run; the summary records
// them and the scaling section (two scale-ups of the schedule, priced).
func TestAutoscaleScenario(t *testing.T) {
	dir := t.TempDir()
	scen := writeFile(t, dir, "day.yaml", `timing: kv
warmup_fraction: 0
workload: {cdf: azure, requests: 3000, rate_profile: "sin:mean=100,ratio=3,period=60"}
pools:
  - {name: short, gpu: a100, count: 2, max_ctx: 4096,
     scaling: {min_instances: 1, max_instances: 4, reserved_instances: 1, reserved_rate: 1, on_demand_rate: 3, startup_s: 5}}
  - {name: long, gpu: a100, count: 4, max_ctx: 65536, scaling: {startup_s: 5}}
router: {kind: token-budget, adaptive: {min_b_short: 2048, max_b_short: 4096}}
autoscale:
  policy: schedule
  interval_s: 2
  schedules:
    short: {times_s: [0, 10], instances: [2, 4], period_s: 30}
    long: {times_s: [0], instances: [4]}
`)
	out := filepath.Join(dir, "out")
	code, stdout, stderr := runCLI(t, "simulate", "--config", scen, "--out", out, "--no-parquet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "autoscaling (schedule, every 2 s)") || !strings.Contains(stdout, "adaptive B_short at the end") {
		t.Errorf("stdout lacks the scaling lines:\n%s", stdout)
	}
	var s sim.Summary
	if err := json.Unmarshal(readBytes(t, filepath.Join(out, summaryFile)), &s); err != nil {
		t.Fatal(err)
	}
	sc := s.Scaling
	if sc == nil || sc.Policy != autoscale.PolicySchedule || sc.Pools[0].ScaleUps < 2 || sc.Pools[1].ScaleUps != 0 || sc.Pools[0].OnDemandUSD <= 0 {
		t.Fatalf("scaling summary %+v: want the schedule's scale-ups on short only, on-demand cost", sc)
	}
	if s.Config.Autoscale == nil || s.Config.Router.Adaptive == nil || s.Config.Pools[0].ScalingBlock == nil {
		t.Errorf("the summary's config lost autoscale, router.adaptive or pools[0].scaling")
	}
}
