package disagg

import (
	"fmt"
	"math"

	"github.com/fleetsim/fleetsim/pools/catalog"
	"github.com/fleetsim/fleetsim/workload"
)

// DefaultSamples is the size of Pool's stratified length sample.
const DefaultSamples = 3000

// Pool is a planner's pool served disaggregated: the requests whose total
// length L = L_in + L_out falls in (Lo, Hi] of a token-length CDF, split
// L_in = floor(InputFraction·L), on instances of one GPU profile at a max
// context, each stage's iteration time the engine's (the timing preset's
// coefficients for the pool) at full slots, like the colocated planner's
// paper service model (docs/planner.md §11).
type Pool struct {
	CDF           *workload.CDF
	Lo, Hi        int     // the pool's length slice (Lo, Hi], tokens
	InputFraction float64 // fixed split f, in (0, 1)
	Lambda        float64 // arrival rate into the pool, requests/s
	GPU           catalog.GPU
	MaxCtx        int    // max context, tokens: slots per instance
	Timing        string // timing preset (catalog.TimingNames)
	// Link and KVBytesPerToken give the transfer time
	// T(L_in) = L_in·KVBytesPerToken/(GBs·10^9) + LatencyS.
	Link            catalog.KVLink
	KVBytesPerToken float64
	TTFTP99         float64 // P99 TTFT target, s; 0 = none (size by RhoMax)
	RhoMax          float64 // utilization cap of both stages, in (0, 1)
	Samples         int     // stratified sample size (0 = DefaultSamples)
}

// PoolResult is a pool's two stages with the constants they were sized
// with.
type PoolResult struct {
	Result
	Slots int // sequences per instance (both stages)
	// DecodeIterS and PrefillIterS are the iteration times of a full
	// decode and prefill instance without their length-proportional part
	// PerTokenS (s per token of L): with the engine's coefficients and n
	// slots, W + H_seq·n and W + H_seq·n + P·n·C, and H_kv·n.
	DecodeIterS, PrefillIterS, PerTokenS float64
}

// SizePool sizes pool p's prefill and decode stages (Size) on a
// stratified sample of its slice: sample k has u_k = F(Lo) + (k+½)/M ·
// (F(Hi) − F(Lo)) and L_k = CDF.Quantile(u_k), so the sample is
// deterministic and its moments converge to the slice's like the
// colocated planner's stratified Monte Carlo (docs/planner.md §2).
func SizePool(p Pool) (PoolResult, error) {
	switch {
	case p.CDF == nil:
		return PoolResult{}, fmt.Errorf("disagg: no length CDF")
	case !(p.Lambda > 0) || math.IsInf(p.Lambda, 0):
		return PoolResult{}, fmt.Errorf("disagg: arrival rate %v requests/s: must be finite and > 0", p.Lambda)
	case !(p.InputFraction > 0 && p.InputFraction < 1):
		return PoolResult{}, fmt.Errorf("disagg: input fraction %v: must be in (0, 1)", p.InputFraction)
	}
	if err := p.Link.Validate(); err != nil {
		return PoolResult{}, fmt.Errorf("disagg: %w", err)
	}
	if !(p.KVBytesPerToken >= 0) || p.KVBytesPerToken > 1e12 {
		return PoolResult{}, fmt.Errorf("disagg: KV bytes per token %v: must be in [0, 1e12]", p.KVBytesPerToken)
	}
	ec, err := p.GPU.EngineConfig(p.MaxCtx, p.Timing)
	if err != nil {
		return PoolResult{}, fmt.Errorf("disagg: %w", err)
	}
	// The longest prompt (max context − 1 tokens) moves within
	// catalog.MaxTransferS, as the simulator requires.
	if err := p.Link.CheckLongest(p.MaxCtx-1, p.KVBytesPerToken); err != nil {
		return PoolResult{}, fmt.Errorf("disagg: %w", err)
	}
	m := p.Samples
	if m <= 0 {
		m = DefaultSamples
	}
	lo, hi := p.Lo, min(p.Hi, p.CDF.Max())
	flo, fhi := p.CDF.F(float64(lo)), p.CDF.F(float64(hi))
	if !(fhi > flo) {
		return PoolResult{}, fmt.Errorf("disagg: no requests of the CDF in the pool's slice (%d, %d] tokens", p.Lo, p.Hi)
	}
	sample := make([]Lengths, m)
	for k := range sample {
		l := p.CDF.Quantile(flo + (float64(k)+0.5)/float64(m)*(fhi-flo))
		l = min(max(l, lo+1), hi)
		in, out := workload.SplitFixed(l, p.InputFraction)
		sample[k] = Lengths{In: in, Out: out}
	}
	// Full slots, every one holding a request of the same length L (the
	// colocated planner's calibration, pools/fleetopt PoolTiming: paper
	// W + H·n, kv W + H·(L/CalibCtx)·n), prefilling a chunk each on a
	// prefill instance.
	tm, n := ec.Timing, float64(ec.MaxSeqs)
	res := PoolResult{Slots: ec.MaxSeqs, DecodeIterS: tm.W + tm.HSeq*n, PerTokenS: tm.HKV * n}
	res.PrefillIterS = res.DecodeIterS + tm.P*n*float64(ec.ChunkTokens)
	ttft := p.TTFTP99
	if ttft == 0 {
		ttft = math.Inf(1)
	}
	kv, link := p.KVBytesPerToken, p.Link
	r, err := Size(Input{Lambda: p.Lambda, Sample: sample, Chunk: ec.ChunkTokens,
		PrefillSlots: ec.MaxSeqs, PrefillIter: res.PrefillIterS, DecodeSlots: ec.MaxSeqs, DecodeIter: res.DecodeIterS, PerToken: res.PerTokenS, IterW: tm.W,
		HSeq: tm.HSeq, HKV: tm.HKV, P: tm.P,
		TransferS: func(n int) float64 { return float64(n)*kv/(link.GBs*1e9) + link.LatencyS },
		TTFTP99:   ttft, DecodeWaitP99: math.Inf(1), RhoMax: p.RhoMax})
	if err != nil {
		return PoolResult{}, err
	}
	res.Result = r
	return res, nil
}
