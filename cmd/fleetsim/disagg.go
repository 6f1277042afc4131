package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/fleetsim/fleetsim/pools/catalog"
	"github.com/fleetsim/fleetsim/pools/disagg"
	"github.com/fleetsim/fleetsim/pools/fleetopt"
	"github.com/fleetsim/fleetsim/sim"
	"github.com/fleetsim/fleetsim/sim/sweep"
	"github.com/fleetsim/fleetsim/workload"
	"github.com/spf13/pflag"
)

// disaggFlags are plan's and size's flags for prefill/decode-disaggregated
// pools (issue 18).
type disaggFlags struct {
	on   *bool
	link *float64
}

func addDisaggFlags(fs *pflag.FlagSet, cmd string) disaggFlags {
	what := "size every pool of --method homo or pr as prefill + decode instances analytically: each stage an M/G/c with its own service time (docs/planner.md §11), N_p and N_d beside the colocated count"
	if cmd == "size" {
		what = "search every pool of --method homo or pr as prefill + decode instances: from the analytic N_p, N_d, the smallest N_p meeting the TTFT target, then the smallest N_d meeting every target with it (docs/experiments.md \"Sizing disaggregated pools\")"
	}
	return disaggFlags{
		on:   fs.Bool("disaggregated", false, what),
		link: fs.Float64("link-gb-s", 0, "--disaggregated: prefill → decode KV link, GB/s one way; 0 = half the GPU's interconnect (catalog link_gbs / 2)"),
	}
}

// config returns the flags' disaggregation and link (nil = the GPU's).
func (f disaggFlags) config() (bool, *catalog.KVLink, error) {
	switch {
	case *f.link != 0 && !*f.on:
		return false, nil, badInput("--link-gb-s %v: needs --disaggregated", *f.link)
	case *f.link == 0:
		return *f.on, nil, nil
	case !(*f.link > 0) || math.IsInf(*f.link, 0) || *f.link > 1e6:
		return false, nil, badInput("--link-gb-s %v: must be in (0, 1e6] GB/s (0 = the GPU's interconnect)", *f.link)
	}
	return true, &catalog.KVLink{GBs: *f.link}, nil
}

// disaggMethods checks plan's methods under --disaggregated: homo and pr
// (all = both); retrofit and fleetopt mix compressed traffic into a pool,
// which the disaggregated sizing does not calibrate.
func disaggMethods(methods []string, explicit bool) ([]string, error) {
	var out []string
	for _, m := range methods {
		switch m {
		case fleetopt.MethodHomo, fleetopt.MethodPR:
			out = append(out, m)
		default:
			if explicit {
				return nil, badInput("--method %s: --disaggregated sizes length-routed pools only (homo, pr)", m)
			}
		}
	}
	return out, nil
}

// disaggStage is one stage of a planned disaggregated pool.
type disaggStage struct {
	ArrivalRate float64 `json:"arrival_rate"`   // requests/s
	MeanS       float64 `json:"mean_service_s"` // slot holding time, s
	Cs2         float64 `json:"cs2"`
	WaitBudgetS float64 `json:"p99_wait_budget_s,omitempty"` // absent: ρ_max only
	Instances   int     `json:"instances"`
	Utilization float64 `json:"utilization"`
	P99WaitS    float64 `json:"p99_wait_s"`
}

// disaggPoolPlan is one planned pool served disaggregated.
type disaggPoolPlan struct {
	Method          string      `json:"method"`
	Name            string      `json:"name"`
	GPU             string      `json:"gpu"`
	MaxCtx          int         `json:"max_ctx"`
	Slots           int         `json:"slots"`
	ArrivalRate     float64     `json:"arrival_rate"`
	PrefillIterS    float64     `json:"prefill_iter_s"`       // full prefill instance's iteration time, s (+ iter_per_token_s × L)
	DecodeIterS     float64     `json:"decode_iter_s"`        // full decode instance's iteration time, s (+ iter_per_token_s × L)
	PerTokenS       float64     `json:"iter_per_token_s"`     // s per token of the request's length L
	LinkGBs         float64     `json:"link_gb_s"`            // one way
	KVBytesPerToken float64     `json:"kv_bytes_per_token"`   // moved per prompt token
	Colocated       int         `json:"colocated_instances"`  // the paper model's colocated count
	Prefill         disaggStage `json:"prefill"`              //
	Decode          disaggStage `json:"decode"`               //
	Total           int         `json:"instances"`            // prefill + decode
	GPUs            int         `json:"gpus"`                 // instances × TP (1 for hand-written profiles)
	AnnualUSD       float64     `json:"annual_cost_usd"`      //
	ColocatedUSD    float64     `json:"colocated_annual_usd"` //
}

// disaggPlan is plan --disaggregated's output.
type disaggPlan struct {
	Workload string  `json:"workload"`
	Rate     float64 `json:"rate"`
	Timing   string  `json:"timing"`
	// InputFraction is the fixed split L_in = floor(f·L) the plan was
	// sized with (simulate --plan uses it).
	InputFraction float64 `json:"input_fraction"`
	// ColocatedTiming is the preset of the colocated counts (kv when
	// Timing is one the colocated planner does not take).
	ColocatedTiming string `json:"colocated_timing"`
	// ColocatedNote is set when the colocated model cannot meet the TTFT
	// target: its counts are then at ρ_max only.
	ColocatedNote string           `json:"colocated_note,omitempty"`
	SLOTTFTS      float64          `json:"slo_ttft_p99_s"`
	RhoMax        float64          `json:"rho_max"`
	Pools         []disaggPoolPlan `json:"pools"`
}

// capOnlyPlan is plan's colocated plan at ρ_max only, for a
// --disaggregated plan whose TTFT target the colocated model cannot meet
// (err): the disaggregated stages may still meet it. The plan keeps the
// target for them.
func capOnlyPlan(cal *fleetopt.Calibrator, cfg fleetopt.Config, methods []string, err error) (fleetopt.Plan, string, error) {
	if cfg.SLO == 0 {
		return fleetopt.Plan{}, "", err
	}
	slo := cfg.SLO
	cfg.SLO = 0
	pl, perr := fleetopt.NewPlanner(cal, cfg)
	if perr != nil {
		return fleetopt.Plan{}, "", err
	}
	p, perr := pl.Run(methods)
	if perr != nil {
		return fleetopt.Plan{}, "", err
	}
	p.SLOTTFTP99S = slo
	return p, "the colocated model cannot meet the TTFT target (" + oneLine(err) + "); its counts are at ρ_max only", nil
}

// planDisagg sizes the plan's pools disaggregated (the plan's pools give
// each one's slice, rate, GPU and max context).
func planDisagg(p fleetopt.Plan, cdf *workload.CDF, timing, slotRule string, link *catalog.KVLink, colocNote string) (disaggPlan, error) {
	out := disaggPlan{Workload: p.Workload, Rate: p.Rate, Timing: timing, InputFraction: p.InputFraction, ColocatedTiming: p.Timing, ColocatedNote: colocNote,
		SLOTTFTS: p.SLOTTFTP99S, RhoMax: p.RhoMax}
	for _, m := range p.Methods {
		for _, pp := range m.Pools {
			g, err := catalog.LookupGPU(pp.GPU)
			if err == nil {
				g, err = g.WithSlotRule(slotRule)
			}
			if err != nil {
				return out, badInput("gpu %q: %v", pp.GPU, err)
			}
			a, err := sweep.DisaggPool(pp, g, cdf, p.InputFraction, timing, link, p.SLOTTFTP99S, p.RhoMax)
			if err != nil {
				return out, badInput("--disaggregated: %s", oneLine(err))
			}
			pr, dc := a.Prefill, a.Decode
			usd := g.CostPerHour * fleetopt.HoursPerYear
			d := disaggPoolPlan{Method: m.Method, Name: pp.Name, GPU: pp.GPU, MaxCtx: pp.MaxCtx, Slots: a.Slots, ArrivalRate: pp.ArrivalRate,
				PrefillIterS: a.PrefillIterS, DecodeIterS: a.DecodeIterS, PerTokenS: a.PerTokenS, LinkGBs: a.Link.GBs, KVBytesPerToken: a.KVBytesPerToken, Colocated: pp.GPUs,
				Prefill: stageOf(pr), Decode: stageOf(dc),
				Total: pr.GPUs + dc.GPUs}
			d.GPUs = d.Total * g.GPUsPerInstance()
			d.AnnualUSD, d.ColocatedUSD = float64(d.Total)*usd, float64(pp.GPUs)*usd
			out.Pools = append(out.Pools, d)
		}
	}
	return out, nil
}

func stageOf(s disagg.Stage) disaggStage {
	wait := s.WaitS
	if math.IsInf(wait, 1) {
		wait = 0
	}
	return disaggStage{s.Lambda, s.MeanS, s.Cs2, wait, s.GPUs, s.Utilization, s.P99Wait}
}

func writeDisaggPlan(w io.Writer, p disaggPlan) error {
	slo := "none"
	if p.SLOTTFTS > 0 {
		slo = fmt.Sprintf("%g s", p.SLOTTFTS)
	}
	fmt.Fprintf(w, "workload %s, λ = %g req/s, P99 TTFT SLO %s, ρ_max %g, timing %s\n", p.Workload, p.Rate, slo, p.RhoMax, p.Timing)
	if p.ColocatedNote != "" {
		fmt.Fprintf(w, "note: %s\n", p.ColocatedNote)
	}
	if p.ColocatedTiming != p.Timing {
		fmt.Fprintf(w, "colocated counts: timing %s (the colocated planner takes paper or kv)\n", p.ColocatedTiming)
	}
	fmt.Fprintln(w, "disaggregated: prefill S_p = ceil(L_in/C)·t + KV transfer, decode S_d = (L_out − 1)·t, t the full-instance iteration time; decode sized by ρ_max (docs/planner.md §11)")
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "method\tpool\tgpu\tmax_ctx\tslots\tλ req/s\tlink GB/s\tS_p s\tCs²_p\tN_p\tutil_p\tP99 wait_p s\tλ_d req/s\tS_d s\tCs²_d\tN_d\tutil_d\tN_p+N_d\tcolocated\t$K/yr\tcolocated $K/yr\t")
	for _, d := range p.Pools {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%.2f\t%g\t%.4g\t%.3f\t%d\t%.3f\t%.4f\t%.2f\t%.4g\t%.3f\t%d\t%.3f\t%d\t%d\t%.0f\t%.0f\t\n",
			d.Method, d.Name, d.GPU, d.MaxCtx, d.Slots, d.ArrivalRate, d.LinkGBs, d.Prefill.MeanS, d.Prefill.Cs2, d.Prefill.Instances,
			d.Prefill.Utilization, d.Prefill.P99WaitS, d.Decode.ArrivalRate, d.Decode.MeanS, d.Decode.Cs2, d.Decode.Instances,
			d.Decode.Utilization, d.Total, d.Colocated, d.AnnualUSD/1000, d.ColocatedUSD/1000)
	}
	return tw.Flush()
}

// writeSizeDisagg adds size --disaggregated's stage table.
func writeSizeDisagg(w io.Writer, r *sweep.SizeResult) error {
	if len(r.Pools) == 0 || r.Pools[0].Disagg == nil {
		return nil
	}
	fmt.Fprintf(w, "\ndisaggregated (GPUs simulated = N_p + N_d; GPUs paper/occupancy above are the colocated pool's, timing %s):\n", r.Pools[0].Disagg.ColocatedTiming)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "pool\tlink GB/s\tS_p s\tS_d s\tN_p analytic\tN_d analytic\tN_p simulated\tN_d simulated\tN_d held\tcandidates p+d\t")
	for _, p := range r.Pools {
		d := p.Disagg
		fmt.Fprintf(tw, "%s\t%g\t%.4g\t%.4g\t%d\t%d\t%d\t%d\t%d\t%d+%d\t\n", p.Name, d.LinkGBs, d.PrefillMeanS, d.DecodeMeanS,
			d.PrefillAnalytic, d.DecodeAnalytic, d.Prefill, d.Decode, d.DecodeHeld, d.PrefillEvaluations, d.DecodeEvaluations)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "N_p − 1 misses a target with N_d held, N_d − 1 misses one with N_p (the searches' brackets; 1 is the floor)\n")
	for _, p := range r.Pools {
		if p.Disagg.AnalyticNote != "" {
			fmt.Fprintf(w, "note: pool %s: %s\n", p.Name, p.Disagg.AnalyticNote)
		}
	}
	return nil
}

// disaggPlanPools returns the pools of method of a `plan --disaggregated
// --format json` document (data), for simulate --plan: each pool
// disaggregated with the planned prefill and decode counts, link and KV
// bytes per token, and the short pool's max context (the router's B_short
// of a two-pool plan; 0 for one pool). ok is false when data is not such a
// plan (no error then). With method "" the plan must hold one method.
func disaggPlanPools(data []byte, method string) (pools []sim.PoolConfig, bShort int, ok bool, err error) {
	var doc struct {
		Methods json.RawMessage  `json:"methods"`
		Pools   []disaggPoolPlan `json:"pools"`
	}
	if json.Unmarshal(data, &doc) != nil || doc.Methods != nil || len(doc.Pools) == 0 {
		return nil, 0, false, nil
	}
	var names []string
	for _, d := range doc.Pools {
		if !slices.Contains(names, d.Method) {
			names = append(names, d.Method)
		}
	}
	switch {
	case method == "" && len(names) != 1:
		return nil, 0, true, fmt.Errorf("holds methods %s; name one", strings.Join(names, ", "))
	case method == "":
		method = names[0]
	case !slices.Contains(names, method):
		return nil, 0, true, fmt.Errorf("method %q not in the plan (it holds %s)", method, strings.Join(names, ", "))
	}
	for i, d := range doc.Pools {
		if d.Method != method {
			continue
		}
		g, err := catalog.LookupGPU(d.GPU)
		switch {
		case err != nil:
			return nil, 0, true, fmt.Errorf("method %q pool %d (%q): %v", method, i, d.Name, err)
		case d.Prefill.Instances < 1 || d.Decode.Instances < 1 || d.Prefill.Instances > sim.MaxInstances || d.Decode.Instances > sim.MaxInstances:
			return nil, 0, true, fmt.Errorf("method %q pool %d (%q): prefill.instances %d, decode.instances %d: each must be in [1, %d]", method, i, d.Name, d.Prefill.Instances, d.Decode.Instances, sim.MaxInstances)
		case d.MaxCtx < 2 || g.Slots(d.MaxCtx) < 1:
			return nil, 0, true, fmt.Errorf("method %q pool %d (%q): max_ctx %d tokens does not fit one %s instance", method, i, d.Name, d.MaxCtx, g.Name)
		}
		// link_gb_s and kv_bytes_per_token are checked with the scenario
		// (pools[].disaggregated).
		pools = append(pools, sim.PoolConfig{Name: d.Name, GPU: strings.ToLower(d.GPU), Count: d.Prefill.Instances + d.Decode.Instances,
			MaxContext: d.MaxCtx, SlotRule: slotRuleOf(d.GPU, d.MaxCtx, d.Slots),
			Disaggregated: &sim.DisaggConfig{Prefill: d.Prefill.Instances, Decode: d.Decode.Instances,
				Link: &catalog.KVLink{GBs: d.LinkGBs}, KVBytesPerToken: d.KVBytesPerToken}})
	}
	if len(pools) > 1 {
		bShort = pools[0].MaxContext
	}
	return pools, bShort, true, nil
}
