// This file: `fleetsim size --disaggregated` (issue 18): the prefill and
// decode instances of each pool by simulation, from pools/disagg's
// analytic answer (docs/experiments.md "Sizing disaggregated pools").

package sweep

import (
	"fmt"

	"github.com/fleetsim/fleetsim/pools/catalog"
	"github.com/fleetsim/fleetsim/pools/disagg"
	"github.com/fleetsim/fleetsim/pools/fleetopt"
	"github.com/fleetsim/fleetsim/sim"
	"github.com/fleetsim/fleetsim/workload"
)

// DisaggAnalytic is a planned pool's analytic disaggregated size
// (pools/disagg.SizePool) with the link it assumed.
type DisaggAnalytic struct {
	disagg.PoolResult
	Link            catalog.KVLink // prefill → decode link
	KVBytesPerToken float64        // KV bytes of one prompt token moved
}

// DisaggPool sizes planned pool pp (a length slice of cdf, split at frac)
// as a disaggregated pool of profile g: each stage an M/G/c with its own
// service time (docs/planner.md §11). link nil = the GPU's interconnect
// (catalog.DefaultKVLink); ttft 0 = no TTFT target (ρ_max only).
func DisaggPool(pp fleetopt.PoolPlan, g catalog.GPU, cdf *workload.CDF, frac float64, timing string, link *catalog.KVLink, ttft, rhoMax float64) (DisaggAnalytic, error) {
	var a DisaggAnalytic
	var err error
	if link != nil {
		a.Link = *link
	} else if a.Link, err = catalog.DefaultKVLink(pp.GPU, g); err != nil {
		return a, fmt.Errorf("pool %s: %w", pp.Name, err)
	}
	if a.KVBytesPerToken, err = catalog.DefaultKVBytesPerToken(g); err != nil {
		return a, fmt.Errorf("pool %s: %w", pp.Name, err)
	}
	if link != nil {
		// The simulator's bound (sim: pools[].disaggregated), named by the flag.
		if err := a.Link.CheckLongest(pp.MaxCtx-1, a.KVBytesPerToken); err != nil {
			return a, fmt.Errorf("pool %s: --link-gb-s %v: %w", pp.Name, link.GBs, err)
		}
	}
	a.PoolResult, err = disagg.SizePool(disagg.Pool{CDF: cdf, Lo: pp.SliceLo, Hi: pp.SliceHi, InputFraction: frac,
		Lambda: pp.ArrivalRate, GPU: g, MaxCtx: pp.MaxCtx, Timing: timing, Link: a.Link,
		KVBytesPerToken: a.KVBytesPerToken, TTFTP99: ttft, RhoMax: rhoMax})
	if err != nil {
		return a, fmt.Errorf("pool %s: %w", pp.Name, err)
	}
	return a, nil
}

// DisaggSize is a disaggregated pool's answer: the analytic stage sizes
// and the simulated ones.
type DisaggSize struct {
	// PrefillAnalytic and DecodeAnalytic are pools/disagg's counts (the
	// search's start), with the stages' mean service times, s.
	PrefillAnalytic int     `json:"prefill_analytic"`
	DecodeAnalytic  int     `json:"decode_analytic"`
	PrefillMeanS    float64 `json:"prefill_mean_service_s"`
	DecodeMeanS     float64 `json:"decode_mean_service_s"`
	// Prefill and Decode are the simulated counts: Prefill − 1 misses a
	// target with DecodeHeld decode instances (so with Decode too: TTFT
	// does not depend on the decode stage), Decode − 1 misses one with
	// Prefill prefill instances.
	Prefill    int     `json:"prefill"`
	Decode     int     `json:"decode"`
	DecodeHeld int     `json:"decode_held"` // decode instances while the prefill stage was searched
	LinkGBs    float64 `json:"link_gb_s"`
	// ColocatedTiming is the preset of the colocated counts beside (see
	// PlannerTiming).
	ColocatedTiming string `json:"colocated_timing"`
	// AnalyticNote is set when the analytic counts ignore the TTFT target
	// (its prefill alone exceeds it).
	AnalyticNote string `json:"analytic_note,omitempty"`
	// PrefillEvaluations and DecodeEvaluations are the candidates each
	// stage's search simulated.
	PrefillEvaluations int `json:"prefill_candidates"`
	DecodeEvaluations  int `json:"decode_candidates"`
}

// PlannerTiming is the timing preset the colocated planners (pools/
// fleetopt, which take paper and kv) size with: timing itself, or kv for
// a disaggregated sizing with another preset (calibrated, measured, auto):
// the length-routed pools' slices and rates do not depend on it, the
// disaggregated stages and the simulation use timing, and the colocated
// counts shown beside them are then kv's.
func PlannerTiming(timing string, disaggregated bool) string {
	if disaggregated && timing != catalog.TimingPaper && timing != catalog.TimingKV {
		return catalog.TimingKV
	}
	return timing
}

// checkDisagg rejects what --disaggregated does not support.
func checkDisagg(c SizeConfig) error {
	if !c.Disaggregated {
		if c.DisaggLink != nil {
			return fmt.Errorf("link-gb-s: needs --disaggregated")
		}
		return nil
	}
	if c.Method != fleetopt.MethodHomo && c.Method != fleetopt.MethodPR {
		return fmt.Errorf("method %s: --disaggregated sizes length-routed pools only (homo, pr)", c.Method)
	}
	if c.DisaggLink != nil {
		if err := c.DisaggLink.Validate(); err != nil {
			return fmt.Errorf("link-gb-s %v: must be a finite number > 0 (GB/s one way)", c.DisaggLink.GBs)
		}
	}
	return nil
}

// searchDisagg finds pool i's prefill and decode instances. TTFT ends on
// the prefill instance and a prefill never waits for the decode stage
// (sim/disagg.go), so the smallest prefill count depends on the decode
// stage only through overload: it is searched first, judged on TTFT
// alone with the decode stage held generous (2·N_d0 + 2 instances); the
// decode count is then searched with that prefill count, judged on every
// target. Both searches are the colocated search (gallop from the
// analytic count, bisect, confirm on fresh seeds), so the total is the
// smallest N_p + N_d meeting the targets up to the searches' resolution.
func (s *sizer) searchDisagg(i int, ps *PoolSize) error {
	p := s.plan.Pools[i]
	g, err := catalog.LookupGPU(p.GPU)
	if err != nil {
		return err
	}
	a, err := DisaggPool(p, g, s.cdf, s.frac, s.cfg.Timing, s.cfg.DisaggLink, s.cfg.SLOTTFTS, s.cfg.RhoMax)
	note := ""
	if err != nil && s.cfg.SLOTTFTS > 0 {
		// Like the paper model's colocated count: where the analytic
		// model cannot meet the target, start from the cap-only size.
		note = "the analytic model cannot meet the TTFT target (" + err.Error() + "); its counts are at ρ_max only"
		a, err = DisaggPool(p, g, s.cdf, s.frac, s.cfg.Timing, s.cfg.DisaggLink, 0, s.cfg.RhoMax)
	}
	if err != nil {
		return err
	}
	np0, nd0 := max(1, a.Prefill.GPUs), max(1, a.Decode.GPUs)
	d := &DisaggSize{PrefillAnalytic: np0, DecodeAnalytic: nd0, PrefillMeanS: a.Prefill.MeanS, DecodeMeanS: a.Decode.MeanS,
		DecodeHeld: 2*nd0 + 2, LinkGBs: a.Link.GBs, AnalyticNote: note, ColocatedTiming: PlannerTiming(s.cfg.Timing, true)}
	// The warm-up covers five slot times of the colocated plan's timing or
	// of the stages' (full-slot) service times, whichever is longer.
	s.warm[i] = max(s.warm[i], warmupServiceTimes*(a.Prefill.MeanS+a.Decode.MeanS))
	if n := s.runRequests(i, 1); n > MaxSizeRunRequests {
		return fmt.Errorf("rate %v requests/s: a run of disaggregated pool %s needs %d fleet requests (its warm-up must cover %d stage service times of %.3g s), more than the %d size simulates; lower the rate or use 'fleetsim plan --disaggregated'",
			s.cfg.Rate, p.Name, n, warmupServiceTimes, a.Prefill.MeanS+a.Decode.MeanS, MaxSizeRunRequests)
	}
	stage := func(np, nd int) func(*sim.PoolConfig, int) {
		return func(pc *sim.PoolConfig, n int) {
			pp, dd := np, nd
			if pp == 0 {
				pp = n
			} else {
				dd = n
			}
			pc.Count = pp + dd
			pc.Dispatch = sim.DispatchJSQ
			pc.Disaggregated = &sim.DisaggConfig{Prefill: pp, Decode: dd, Link: s.cfg.DisaggLink}
		}
	}
	sp := *s
	sp.cfg.SLOTPOTS = 0
	sp.shape = stage(0, d.DecodeHeld)
	pre := PoolSize{Name: p.Name + " prefill", GPUsOccupancy: np0}
	if err := sp.search(i, &pre); err != nil {
		return err
	}
	d.Prefill, d.PrefillEvaluations = pre.GPUsSim, pre.Evaluations
	sd := *s
	sd.shape = stage(d.Prefill, 0)
	dec := PoolSize{Name: p.Name + " decode", GPUsOccupancy: nd0}
	if err := sd.search(i, &dec); err != nil {
		return err
	}
	d.Decode, d.DecodeEvaluations = dec.GPUsSim, dec.Evaluations
	// The pool's answer is the decode search's final pair.
	ps.GPUsSearch = d.Prefill + dec.GPUsSearch
	ps.GPUsSim = d.Prefill + d.Decode
	ps.WorstP99TTFT, ps.WorstP99TPOT, ps.WorstUtil = dec.WorstP99TTFT, dec.WorstP99TPOT, dec.WorstUtil
	ps.MarginTTFT, ps.MarginTPOT, ps.MarginUtil = dec.MarginTTFT, dec.MarginTPOT, dec.MarginUtil
	ps.Seeds, ps.Confirm = dec.Seeds, dec.Confirm
	ps.Evaluations = pre.Evaluations + dec.Evaluations
	ps.Disagg = d
	s.counts[i] = ps.GPUsSim
	return nil
}

// EvaluateDisagg simulates disaggregated pool i of a sized result's
// problem at np prefill and nd decode instances on seeds first..first+K−1
// (K = cfg.Seeds) and reports whether all meet the targets (for tests and
// re-checks on seeds the search did not use).
func EvaluateDisagg(cfg SizeConfig, res *SizeResult, i, np, nd int, first uint64) (bool, []SizeSeed, error) {
	s, err := newSizer(cfg, res)
	if err != nil {
		return false, nil, err
	}
	s.shape = func(pc *sim.PoolConfig, _ int) {
		pc.Count, pc.Dispatch = np+nd, sim.DispatchJSQ
		pc.Disaggregated = &sim.DisaggConfig{Prefill: np, Decode: nd, Link: s.cfg.DisaggLink}
	}
	all := true
	var seeds []SizeSeed
	for k := range s.cfg.Seeds {
		o := s.judge(i, np+nd, first+uint64(k))
		if o.err != nil {
			return false, nil, o.err
		}
		all = all && o.ok
		seeds = append(seeds, o.SizeSeed)
	}
	return all, seeds, nil
}
