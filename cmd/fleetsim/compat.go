package main

import (
	"io"
	"strings"

	"github.com/fleetsim/fleetsim/pools/catalog"
	"github.com/fleetsim/fleetsim/pools/fleetopt/papercompat"
	"github.com/fleetsim/fleetsim/workload"
	"github.com/spf13/pflag"
)

// CompatPapers is the --compat value that reproduces the papers' own
// simulator (pools/fleetopt/papercompat).
const CompatPapers = "papers"

// compatIgnored are plan flags whose setting the papers' simulator fixes;
// giving one with --compat papers is an error rather than silently ignored.
var compatIgnored = []string{"calibration", "short-calibration", "estimate-noise", "seed", "timing", "input-fraction", "fix-b"}

type compatArgs struct {
	cdf               *workload.CDF
	rate, slo, rhoMax float64
	short, long       catalog.GPU
	longCtx, bShort   int
	gamma, pc         float64
	methods           []string
	pareto            bool
}

// runPlanCompat plans with --compat papers and hands the plan to write.
func runPlanCompat(fs *pflag.FlagSet, compat string, a compatArgs, write func(doc any, table func(io.Writer) error) error) error {
	if compat != CompatPapers {
		return badInput("--compat %q: allowed: papers (or leave it out)", compat)
	}
	for _, f := range compatIgnored {
		if fs.Changed(f) {
			return badInput("--%s: fixed by --compat papers (the papers' simulator: Monte Carlo seed 42, 3,000 samples, kv timing, L_in = int(0.8·L), B fixed)", f)
		}
	}
	if a.pareto {
		return badInput("--pareto: not available with --compat papers")
	}
	if a.bShort == 0 {
		return badInput("--b-short: required by --compat papers (FleetOpt sweeps γ at a fixed B, e.g. 4096)")
	}
	cfg := papercompat.Config{CDF: a.cdf, Rate: a.rate, BShort: a.bShort, Gamma: a.gamma, PC: a.pc, LongCtx: a.longCtx,
		SLO: a.slo, RhoMax: a.rhoMax, ShortGPU: a.short, LongGPU: a.long}
	if a.rhoMax == 0 {
		return badInput("--rho-max 0: must be in (0, 1)")
	}
	plan, err := papercompat.Plan(cfg, a.methods)
	if err != nil {
		return badInput("%s", strings.TrimPrefix(flagNames(oneLine(err)), "papercompat: "))
	}
	return write(plan, func(w io.Writer) error { return writePlanTable(w, plan) })
}

// writeDoc writes a plan-like document: indented JSON for format "json",
// else the table.
func writeDoc(w io.Writer, format string, doc any, table func(io.Writer) error) error {
	if format == "json" {
		return writeJSON(w, doc)
	}
	return table(w)
}

// slotRuleOf is the slot rule a planned pool was sized with, read back
// from its recorded slot count: catalog.SlotRuleCapped when that count is
// the capped rule's and not the catalog's scaled one, else "" (scaled).
func slotRuleOf(gpu string, maxCtx, slots int) string {
	g, err := catalog.LookupGPU(gpu)
	if err != nil || slots <= 0 || g.Slots(maxCtx) == slots {
		return ""
	}
	if c, _ := g.SlotsByRule(maxCtx, catalog.SlotRuleCapped); c == slots {
		return catalog.SlotRuleCapped
	}
	return ""
}
