package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/fleetsim/fleetsim/sim"
	"github.com/fleetsim/fleetsim/sim/export"
	"github.com/fleetsim/fleetsim/sim/osd"
	"github.com/fleetsim/fleetsim/sim/sweep"
	"github.com/fleetsim/fleetsim/workload"
)

// checkFindMax checks a --find-max-rate grid: only seeds may vary, and a
// duration is needed.
func (f *sweepFlags) checkFindMax(g *sweep.Grid) error {
	if err := g.FoldSingle(); err != nil {
		return err
	}
	for _, a := range g.Axes {
		if a.Key != sweep.KeySeed {
			return fmt.Errorf("--find-max-rate searches the rate of one scenario: sweep key %q has %d values; give it one (only --seeds may list several)", a.Key, len(a.Values))
		}
	}
	if !(g.DurationS > 0) {
		return fmt.Errorf("--duration %v: --find-max-rate needs the simulated seconds of each probe, > 0 (e.g. 300)", g.DurationS)
	}
	if f.fs.Changed("osd") {
		return fmt.Errorf("--osd %s: --find-max-rate runs the over-saturation detector in enforce mode on every probe (its parameters come from the scenario's osd.params); leave --osd out", f.sim.osd)
	}
	if g.Base.OSD.Mode == sim.OSDOff {
		return fmt.Errorf("osd.mode off: --find-max-rate needs the over-saturation detector (it runs it in enforce mode on every probe)")
	}
	p := osd.DefaultConfig()
	if g.Base.OSD.Params != nil {
		p = *g.Base.OSD.Params
	}
	if m := sweep.MinProbeDurationS(p); !(g.DurationS >= m) {
		return fmt.Errorf("--duration %v: a probe shorter than %g s cannot be decided by the over-saturation detector (2 × max(minimum_duration_s %g, minimum_ttft_s %g, minimum_window_size %d, 1 s); docs/sweep.md)",
			g.DurationS, m, p.MinimumDuration, p.MinimumTTFT, p.MinimumWindowSize)
	}
	if f.probes < 1 || f.probes > 1000 {
		return fmt.Errorf("--probes %d: must be in [1, 1000]", f.probes)
	}
	if !(f.rateTol > 0 && f.rateTol < 1) {
		return fmt.Errorf("--rate-tol %v: must be in (0, 1)", f.rateTol)
	}
	if f.satRequest < 0 || f.satRequest > workload.MaxRequests {
		return fmt.Errorf("--saturation-requests %d: must be in [0, %d] (0: automatic)", f.satRequest, workload.MaxRequests)
	}
	cfg := g.Base
	cfg.Workload.Rate = 1 // any valid rate: the search sets it
	return cfg.Validate()
}

// maxRateOnlyFlags are the flags that only tune --find-max-rate.
var maxRateOnlyFlags = []string{"probes", "rate-tol", "saturation-requests"}

// checkNoFindMax refuses the --find-max-rate flags without it: they would
// do nothing.
func (f *sweepFlags) checkNoFindMax() error {
	for _, name := range maxRateOnlyFlags {
		if f.fs.Changed(name) {
			return fmt.Errorf("--%s %s: only with --find-max-rate (it tunes the rate search)", name, f.fs.Lookup(name).Value)
		}
	}
	return nil
}

// findMaxRate runs the rate search per seed and reports the bracket.
func (f *sweepFlags) findMaxRate(g *sweep.Grid, stdout, stderr io.Writer, stop func() bool) error {
	seeds := []uint64{g.Base.Seed}
	if len(g.Axes) == 1 {
		seeds = seeds[:0]
		for i := range g.Axes[0].Values {
			seeds = append(seeds, uint64(g.Axes[0].Float(i)))
		}
	}
	o := sweep.MaxRateOptions{
		DurationS: g.DurationS, Probes: f.probes, RelTol: f.rateTol,
		SaturationRequests: f.satRequest, Workers: f.workers, Stop: stop,
	}
	clearBar := func() {}
	if isTerminal(stderr) {
		bar := newCountBar(stderr, 1, "find-max-rate", "runs", "runs/s")
		o.Progress = func(done, total int) { bar.total = int64(total); bar.update(int64(done)) }
		clearBar = bar.done
		defer bar.done()
	}
	res, err := sweep.FindMaxRate(g.Base, seeds, o)
	clearBar() // before anything is printed
	if err != nil {
		if errors.Is(err, sim.ErrStopped) {
			return fmt.Errorf("interrupted: nothing written")
		}
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "fleetsim %s sweep --find-max-rate: %s, %s workload, %s timing, %g simulated s per run, rate tolerance %g\n\n",
		version, poolsString(g.Base.Pools), workloadName(g.Base.Workload), g.Base.Timing, g.DurationS, f.rateTol)
	writeMaxRateTable(&b, res)
	out := b.String()
	fmt.Fprint(stdout, out)
	if err := os.MkdirAll(f.out, 0o755); err != nil {
		return fmt.Errorf("creating --out %s: %w", f.out, err)
	}
	var runs strings.Builder
	runs.WriteString(out)
	runs.WriteString("\n## Every run\n\n| seed | phase | rate_rps | throughput_rps | fired | fired_at_s |\n|---|---|---|---|---|---|\n")
	for _, m := range res {
		for _, p := range m.Probes {
			rate := fmt.Sprintf("%g", p.RateRPS)
			if p.Phase == "saturate" {
				rate = "all at once"
			}
			fmt.Fprintf(&runs, "| %d | %s | %s | %.3f | %v | %s |\n", m.Seed, p.Phase, rate, p.ThroughputRPS, p.Fired, fmtS(p.AtS))
		}
	}
	p := filepath.Join(f.out, maxRateFile)
	if err := export.WriteFileAtomic(p, []byte(runs.String())); err != nil {
		return err
	}
	if err := finishRunDir(f.out, kindMaxRate, []string{p}, true); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "wrote %s\n", p)
	return nil
}

func fmtS(x float64) string {
	if math.IsNaN(x) {
		return "-"
	}
	return fmt.Sprintf("%.1f", x)
}

// writeMaxRateTable writes one row per seed and a closing line with the
// bracket over all seeds.
func writeMaxRateTable(b *strings.Builder, res []sweep.MaxRate) {
	b.WriteString("| seed | saturated_rps | held_rps | fired_rps | fired_at_s | runs |\n|---|---|---|---|---|---|\n")
	minHeld, maxFired := math.Inf(1), 0.0
	for _, m := range res {
		fmt.Fprintf(b, "| %d | %.3f | %g | %g | %s | %d |\n", m.Seed, m.SaturatedRPS, m.Held, m.Fired, fmtS(m.FiredAtS), len(m.Probes))
		minHeld, maxFired = min(minHeld, m.Held), max(maxFired, m.Fired)
	}
	fmt.Fprintf(b, "\nEvery seed held at %g req/s; every seed fired by %g req/s.\n", minHeld, maxFired)
	for _, m := range res {
		if m.AboveSaturation {
			fmt.Fprintf(b, "Warning: seed %d held at %g req/s, above its saturated throughput %.3f req/s: no fleet sustains more than it completes with every request offered at once, so the probes were too short for the detector to see this overload; a longer --duration settles it.\n", m.Seed, m.Held, m.SaturatedRPS)
		}
	}
}
