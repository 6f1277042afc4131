package experiments

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/fleetsim/fleetsim/pools/catalog"
	"github.com/fleetsim/fleetsim/sim"
	"github.com/fleetsim/fleetsim/sim/slotsim"
	"github.com/fleetsim/fleetsim/workload"
)

// Validation fidelities (`fleetsim validate --fidelity`).
const (
	// FidelitySlot is the planner's own model simulated: FCFS M/G/c over
	// the pool's slots, each request holding one slot for its analytic
	// service time S = (ceil(L_in/C) + L_out)·t(L) (sim/slotsim).
	FidelitySlot = "slot"
	// FidelityEngine is the iteration-level engine with the catalog's slot
	// rule (the KV cache never binds).
	FidelityEngine = "engine"
	// FidelityKV is the engine with vLLM-style limits: max_seqs a cap
	// (KVMaxSeqs) and the GPU's KV blocks the real budget, so it preempts.
	FidelityKV = "kv"
)

// Fidelities lists the fidelities in order of detail.
func Fidelities() []string { return []string{FidelitySlot, FidelityEngine, FidelityKV} }

// DefaultKVMaxSeqs is the kv fidelity's max_seqs: vLLM's default
// max_num_seqs.
const DefaultKVMaxSeqs = 256

// ParseFidelities reads a comma-separated list of fidelities.
func ParseFidelities(s string) ([]string, error) {
	var out []string
	for _, f := range strings.Split(s, ",") {
		f = strings.ToLower(strings.TrimSpace(f))
		if !slices.Contains(Fidelities(), f) {
			return nil, fmt.Errorf("fidelity %q: allowed %s (comma-separated)", f, strings.Join(Fidelities(), ", "))
		}
		if !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out, nil
}

// slotTimes returns the slot-level model of a pool on GPU g at max context
// maxCtx: the planner's service time S(L) = (ceil(L_in/C) + L_out)·t(L)
// and the time to the first token, (ceil(L_in/C) + 1)·t(L) (the planner's
// TTFT: prefill plus one iteration), with t(L) = W + H·(L/CalibCtx)·slots
// (kv) or W + H·slots (paper) at the pool's full slot count.
func slotTimes(g catalog.GPU, maxCtx int, timing string) (svc, first func(in, out int) float64) {
	slots := float64(g.Slots(maxCtx))
	C := g.ChunkTokens
	t := func(L int) float64 {
		if timing == catalog.TimingPaper {
			return g.W + g.H*slots
		}
		return g.W + g.H*float64(L)/float64(g.CalibCtx)*slots
	}
	svc = func(in, out int) float64 { return float64((in+C-1)/C+out) * t(in+out) }
	first = func(in, out int) float64 { return float64((in+C-1)/C+1) * t(in+out) }
	return svc, first
}

// runSlot simulates one pool at the slot level on src.
func runSlot(g catalog.GPU, maxCtx, gpus int, timing string, src workload.Source, warmupS float64) (slotsim.Result, error) {
	svc, first := slotTimes(g, maxCtx, timing)
	return slotsim.Run(src, slotsim.Config{Servers: gpus * g.Slots(maxCtx), Service: svc, Prefill: first, WarmupS: warmupS})
}

// maxIter is the longest iteration an instance of the pool can run, s:
// every slot busy at the max context. A queue wait above it means the
// request waited for a slot, not only for the iteration in progress.
func maxIter(g catalog.GPU, maxCtx, slots int, timing string) float64 {
	tm, err := g.Timing(timing)
	if err != nil {
		return math.Inf(1)
	}
	return tm.W + (tm.HSeq+tm.HKV*float64(maxCtx))*float64(slots)
}

// poolWaits counts, per pool, the post-warm-up requests whose queue wait
// exceeds the pool's threshold (PoolMeasure.PWait).
type poolWaits struct {
	thr      map[string]float64
	n, waits map[string]int64
}

func newPoolWaits() *poolWaits {
	return &poolWaits{thr: map[string]float64{}, n: map[string]int64{}, waits: map[string]int64{}}
}

func (w *poolWaits) Write(r *sim.Record) error {
	if r.Warmup || r.Rejected {
		return nil
	}
	w.n[r.Pool]++
	if r.QueueWaitS > w.thr[r.Pool] {
		w.waits[r.Pool]++
	}
	return nil
}

func (w *poolWaits) share(pool string) float64 {
	if w.n[pool] == 0 {
		return 0
	}
	return float64(w.waits[pool]) / float64(w.n[pool])
}

// kvSlots returns the slots of a kv-fidelity instance: maxSeqs (a cap)
// or the max-context sequences its KV budget holds, whichever is fewer,
// min(maxSeqs, ⌊KVBlocks/⌈maxCtx/BlockTokens⌉⌋), at least 1. An A100
// (65,536 blocks of 16 tokens) holds 16 sequences of 65,536 tokens.
func kvSlots(g catalog.GPU, maxCtx, maxSeqs int) int {
	perSeq := (maxCtx + g.BlockTokens - 1) / g.BlockTokens
	return max(1, min(maxSeqs, g.KVBlocks/max(1, perSeq)))
}

// kvMeasure is measure for the kv fidelity: the sim divides busy slots by
// max_seqs (maxSeqs here, a cap); the utilization is over the slots the
// KV budget holds at the pool's max context (kvSlots).
func kvMeasure(s sim.PoolMetrics, w *poolWaits, g catalog.GPU, maxCtx, maxSeqs int) PoolMeasure {
	m := measure(s, w)
	m.Util *= float64(maxSeqs) / float64(kvSlots(g, maxCtx, maxSeqs))
	return m
}

// measure turns a simulated pool's metrics into a PoolMeasure.
func measure(s sim.PoolMetrics, w *poolWaits) PoolMeasure {
	return PoolMeasure{Util: s.SlotUtilization, PWait: w.share(s.Name), P99Wait: s.QueueWait.P99, P99TTFT: s.TTFT.P99, P99TPOT: s.TPOT.P99,
		Measured: s.Arrived, Preemptions: s.Preemptions, Overloaded: s.Overloaded, WaitThresholdS: w.thr[s.Name]}
}
