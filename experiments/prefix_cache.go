package experiments

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/fleetsim/fleetsim/sim"
	"github.com/fleetsim/fleetsim/sim/export"
	"github.com/fleetsim/fleetsim/workload"
)

// conversationTrace is the Mooncake conversation trace (12,031 requests,
// hash_ids kept; workload/testdata/SOURCES.md), relative to the repository
// root.
const conversationTrace = "workload/testdata/mooncake_conversation_trace.jsonl"

// findRepoFile returns rel under the working directory or one of its
// parents (experiments run from the repository root or a package's
// directory).
func findRepoFile(rel string) (string, error) {
	dir, _ := os.Getwd()
	for range 4 {
		p := filepath.Join(dir, rel)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
		dir = filepath.Dir(dir)
	}
	return "", fmt.Errorf("%s: not found (run from the repository root)", rel)
}

// prefixPoolGPUs is the conversation pool of experiment prefix-cache:
// H100 TP4 instances serving Llama-3.1-70B at the trace's own pace (about
// 3.4 req/s, 59 minutes), 24 instances (about a third of the slots busy).
const prefixPoolGPUs = 24

// PrefixCache (issue 18, experiment a) replays the Mooncake conversation
// trace on one pool without a prefix cache, then with one (every free KV
// block may keep its content) under least-loaded, prefix-affinity and
// weighted routing: the share of prompt tokens served from the cache, the
// router's hit rate, evictions, TTFT and TPOT.
func PrefixCache(o Options) ([]Table, error) {
	path, err := findRepoFile(conversationTrace)
	if err != nil {
		return nil, err
	}
	t := Table{
		Name:    "prefix-cache",
		Title:   fmt.Sprintf("Mooncake conversation trace on %d × H100 TP4 (Llama-3.1-70B): prefix cache and routing", prefixPoolGPUs),
		Source:  "issue 18 (a); Mooncake (FAST '25) conversation trace; no paper numbers",
		Columns: []string{"prefix cache", "routing", "hit token fraction", "router hit rate", "evictions", "TTFT p50 s", "TTFT p99 s", "TPOT p99 ms", "slot utilization", "instances needed"},
	}
	hitFig := export.Figure{Name: "prefix-cache-hit", Title: "Mooncake conversation: prompt tokens served from the prefix cache",
		YLabel: "hit token fraction", YUnit: true}
	ttftFig := export.Figure{Name: "prefix-cache-ttft", Title: "Mooncake conversation: TTFT per setup",
		YLabel: "TTFT, s", YFromZero: true}
	hitS := export.FigureSeries{Name: "hit token fraction", Scatter: true}
	p50S := export.FigureSeries{Name: "TTFT P50", Scatter: true}
	p99S := export.FigureSeries{Name: "TTFT P99", Scatter: true}
	needFig := export.Figure{Name: "prefix-cache-instances", Title: fmt.Sprintf("Mooncake conversation: instances for P99 TTFT <= %g s", prefixTTFTTarget),
		YLabel: "H100 TP4 instances needed", YFromZero: true}
	needS := export.FigureSeries{Name: "instances needed (bisection, one seed)", Scatter: true}
	type variant struct {
		cache bool
		route string
	}
	for _, v := range []variant{{false, "-"}, {true, sim.RouteLeastLoaded}, {true, sim.RoutePrefixAffinity}, {true, sim.RouteWeighted}} {
		o.say("prefix-cache: cache %v, routing %s", v.cache, v.route)
		s, err := runPrefix(o, path, prefixPoolGPUs, v.cache, v.route)
		if err != nil {
			return nil, err
		}
		need, err := prefixInstancesNeeded(o, path, v.cache, v.route)
		if err != nil {
			return nil, err
		}
		needCell := any(fmt.Sprintf("> %d", prefixPoolGPUs))
		if need > 0 {
			needCell = fmt.Sprintf("%d (%d GPUs)", need, 4*need)
		}
		m := s.Pools[0]
		hit, rate, ev := any(nil), any(nil), any(nil)
		if c := m.PrefixCache; c != nil {
			hit, ev = Num{c.HitTokenFraction, 4}, Num{float64(c.Evictions), 0}
			if c.Routing.Routed > 0 {
				rate = Num{c.Routing.HitRate, 4}
			}
		}
		on := "off"
		if v.cache {
			on = "all free blocks"
		}
		x := float64(len(t.Rows))
		label := "no cache"
		if v.cache {
			label = "cache, " + v.route
		}
		hitFig.XTicks, ttftFig.XTicks = append(hitFig.XTicks, label), append(ttftFig.XTicks, label)
		needFig.XTicks = append(needFig.XTicks, label)
		if need > 0 {
			needS.X, needS.Y = append(needS.X, x), append(needS.Y, float64(need))
		}
		hf := 0.0
		if c := m.PrefixCache; c != nil {
			hf = c.HitTokenFraction
		}
		hitS.X, hitS.Y = append(hitS.X, x), append(hitS.Y, hf)
		p50S.X, p50S.Y = append(p50S.X, x), append(p50S.Y, m.TTFT.P50)
		p99S.X, p99S.Y = append(p99S.X, x), append(p99S.Y, m.TTFT.P99)
		t.Rows = append(t.Rows, []any{on, v.route, hit, rate, ev, Num{m.TTFT.P50, 3}, Num{m.TTFT.P99, 3}, Num{1000 * m.TPOT.P99, 1}, Num{m.SlotUtilization, 3}, needCell})
	}
	t.Notes = []string{
		fmt.Sprintf("The trace's 12,031 requests at their own timestamps (59 minutes), 20%% warm-up, seed %d, the auto timing preset (calibrated for this computed instance: prefill is charged, so cached tokens shorten TTFT). Slots per instance follow from the KV budget at max_ctx 131,072.", o.seed(1)),
		fmt.Sprintf("Instances needed: the fewest H100 TP4 instances (4 GPUs each) whose P99 TTFT over the same replay is <= %g s and that are not overloaded, found by bisection on the count in [1, %d] (monotone in the count by assumption), one seed (%d); the target sits above the %.1f s that the longest prompts' own prefill sets at %d instances.", prefixTTFTTarget, prefixPoolGPUs, o.seed(1), 7.8, prefixPoolGPUs),
		"Bound: one instance with an unbounded cache serving the requests one at a time hits 54,097,440 of 144,793,823 prompt tokens = 0.37362 (computed from hash_ids; TestMooncakePrefixHitFraction). A real instance's KV budget holds a few of the trace's 14,250-token mean prompts, so its cache evicts millions of blocks and keeps far less.",
	}
	hitFig.Series = []export.FigureSeries{hitS}
	hitFig.Refs = []export.FigureRef{{Label: "one instance, unbounded cache (0.374)", At: 0.37362}}
	ttftFig.Series = []export.FigureSeries{p50S, p99S}
	needFig.Series = []export.FigureSeries{needS}
	t.Figures = []export.Figure{hitFig, ttftFig, needFig}
	return []Table{t}, nil
}

// prefixTTFTTarget is the P99 TTFT target, s, of the instances-needed
// column of experiment prefix-cache: above the 7.9 s that the trace's
// longest prompts' own prefill sets on an idle pool.
const prefixTTFTTarget = 10.0

// runPrefix replays the conversation trace at path on count instances,
// with a prefix cache in every free block under route when cache.
func runPrefix(o Options, path string, count int, cache bool, route string) (*sim.Summary, error) {
	cfg := sim.Defaults()
	cfg.Seed = o.seed(1)
	cfg.Workload = workload.Spec{Trace: path, TraceFormat: "mooncake", Requests: 1_000_000}
	pc := sim.PoolConfig{Name: "conv", GPU: "h100/llama-3.1-70b/tp4", Count: count, MaxContext: 131072}
	if cache {
		pc.PrefixCache = &sim.PrefixCacheConfig{Blocks: sim.CacheAll, Routing: route}
	}
	cfg.Pools = []sim.PoolConfig{pc}
	cfg = cfg.Effective()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	src, err := workload.NewSource(cfg.Workload, cfg.Seed)
	if err != nil {
		return nil, err
	}
	return sim.Run(cfg, src, nil, sim.Options{Stop: o.Stop})
}

// prefixInstancesNeeded bisects the fewest instances in [1,
// prefixPoolGPUs] meeting prefixTTFTTarget at P99 without overload; 0
// when prefixPoolGPUs does not.
func prefixInstancesNeeded(o Options, path string, cache bool, route string) (int, error) {
	lo, hi := 0, prefixPoolGPUs+1 // lo fails, hi meets (hi = prefixPoolGPUs+1 stands for "not found")
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		s, err := runPrefix(o, path, mid, cache, route)
		if err != nil {
			return 0, err
		}
		m := s.Pools[0]
		if m.TTFT.P99 <= prefixTTFTTarget && !m.Overloaded && m.Rejected == 0 {
			hi = mid
		} else {
			lo = mid
		}
	}
	if hi > prefixPoolGPUs {
		return 0, nil
	}
	return hi, nil
}
