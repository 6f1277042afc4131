// Package disagg sizes a prefill/decode-disaggregated pool analytically
// (issue 18): the prefill stage and the decode stage are each an M/G/c
// queue whose servers are the stage's instance slots, sized like a
// colocated pool (FleetOpt eq. 11, queueing.MinGPUs) with its own service
// time, wait budget and utilization cap. docs/planner.md, "Disaggregated
// pools", states the model and its limits.
package disagg

import (
	"fmt"
	"math"
	"slices"

	"github.com/fleetsim/fleetsim/pools/queueing"
)

// Lengths is one request's token counts.
type Lengths struct {
	In, Out int // L_in, L_out, tokens (>= 1)
}

// Input is the sizing problem of one disaggregated pool. Times are seconds.
type Input struct {
	Lambda float64   // arrival rate into the pool, requests/s
	Sample []Lengths // the pool's requests, equally likely (service-time moments)
	Chunk  int       // prefill chunk C, tokens

	PrefillSlots int     // sequences per prefill instance
	PrefillIter  float64 // iteration time of a full prefill instance, s
	DecodeSlots  int     // sequences per decode instance
	DecodeIter   float64 // iteration time of a full decode instance, s
	// PerToken adds a length-proportional term to both iteration times:
	// a request of L = L_in + L_out tokens sees t_p + PerToken·L and
	// t_d + PerToken·L (the kv preset's full batch of requests of its own
	// length, as the colocated planner's kv calibration assumes), s/token;
	// 0 = the same iteration time for every request (the paper preset).
	PerToken float64
	// IterW, when > 0, is the fixed part W of the iteration times: the
	// prefill stage's TTFT is then checked at each count's own load (see
	// Size) instead of at full slots.
	IterW float64
	// HSeq, HKV and P are the engine's other coefficients (s per active
	// sequence, per KV token, per prompt token; docs/model.md): with IterW
	// > 0 a prompt's own prefill, alone on an instance, is
	// m·(W + HSeq) + HKV·(C·m(m−1)/2 + L_in) + P·L_in, m = ceil(L_in/C)
	// (chunk k holds min(k·C, L_in) tokens at its end).
	HSeq, HKV, P float64
	// TransferS gives the time to move a prompt's KV cache to the decode
	// instance (e.g. catalog.KVLink.TransferS for a model), s; nil = 0.
	TransferS func(tokens int) float64

	TTFTP99 float64 // P99 TTFT target, s (+Inf: size the prefill stage by RhoMax only)
	// DecodeWaitP99 is the P99 wait budget before decoding starts, s (+Inf:
	// size the decode stage by RhoMax only).
	DecodeWaitP99 float64
	RhoMax        float64 // utilization cap of both stages, in (0, 1)
}

// Stage is one stage's service-time moments and size.
type Stage struct {
	Lambda float64 // arrival rate into the stage, requests/s
	MeanS  float64 // mean service time (slot holding time), s
	Cs2    float64 // squared coefficient of variation of the service time
	WaitS  float64 // P99 wait budget used, s
	queueing.SizeResult
}

// Result is the size of both stages.
type Result struct {
	Prefill, Decode Stage
}

// Size returns the instances each stage needs.
//
// Prefill: a request holds a prefill slot for S_p = ceil(L_in/C)·t_p + T(L_in)
// (its prefill at the full-instance iteration time t_p, plus PerToken·L,
// then the KV transfer); its first token comes at the end of the prefill, so the P99
// wait budget is TTFTP99 − P99(ceil(L_in/C)·t_p).
//
// With IterW > 0 the prefill stage's count is the smallest, from the
// utilization cap's up, at which the Kimura P99 wait plus the P99 prefill
// at that count's utilization ϱ = λ·E[S_p]/(n·slots) meets TTFTP99: a
// prompt's prefill then takes its own prefill alone (HSeq, HKV, P) plus,
// in each of its iterations, ϱ·(slots − 1)/slots·(t_p − W + PerToken·K)
// for the other slots, K = E[S_p·L]/E[S_p] the length a busy prefill slot
// holds on average (the colocated planner's operating-point iteration,
// pools/fleetopt operatingIter); WaitS is the budget left at that count.
// A target not above the idle P99 prefill is an error.
//
// Decode: a request with L_out >= 2 holds a decode slot for
// S_d = (L_out − 1)·t_d (t_d plus PerToken·L; the first token was produced
// by the prefill); a
// request with L_out = 1 never reaches the decode stage, whose arrival rate
// is λ·P(L_out >= 2). Its wait budget is DecodeWaitP99.
//
// Each stage's count is queueing.MinGPUs with c = instances × slots.
func Size(in Input) (Result, error) {
	switch {
	case len(in.Sample) == 0:
		return Result{}, fmt.Errorf("disagg: no requests in the sample")
	case in.Chunk < 1:
		return Result{}, fmt.Errorf("disagg: chunk %d tokens: must be >= 1", in.Chunk)
	case in.PrefillSlots < 1 || in.DecodeSlots < 1:
		return Result{}, fmt.Errorf("disagg: slots %d (prefill), %d (decode): must be >= 1", in.PrefillSlots, in.DecodeSlots)
	case !(in.PrefillIter > 0) || !(in.DecodeIter > 0) || math.IsInf(in.PrefillIter, 0) || math.IsInf(in.DecodeIter, 0):
		return Result{}, fmt.Errorf("disagg: iteration times %v s (prefill), %v s (decode): must be finite and > 0", in.PrefillIter, in.DecodeIter)
	case !(in.IterW >= 0) || in.IterW > in.PrefillIter:
		return Result{}, fmt.Errorf("disagg: fixed iteration time %v s: must be in [0, %v] (the prefill iteration time)", in.IterW, in.PrefillIter)
	case !(in.PerToken >= 0) || math.IsInf(in.PerToken, 0):
		return Result{}, fmt.Errorf("disagg: per-token iteration time %v s: must be finite and >= 0", in.PerToken)
	case !(in.HSeq >= 0 && in.HKV >= 0 && in.P >= 0) || math.IsInf(in.HSeq+in.HKV+in.P, 0):
		return Result{}, fmt.Errorf("disagg: coefficients H_seq %v, H_kv %v, P %v: must be finite and >= 0", in.HSeq, in.HKV, in.P)
	case !(in.TTFTP99 > 0) || !(in.DecodeWaitP99 > 0):
		return Result{}, fmt.Errorf("disagg: TTFT target %v s, decode wait budget %v s: must be > 0", in.TTFTP99, in.DecodeWaitP99)
	}
	var sp, sd []float64
	var prefill []float64
	for i, l := range in.Sample {
		if l.In < 1 || l.Out < 1 {
			return Result{}, fmt.Errorf("disagg: sample %d: L_in %d, L_out %d: must be >= 1", i, l.In, l.Out)
		}
		lt := in.PerToken * float64(l.In+l.Out)
		pf := float64((l.In+in.Chunk-1)/in.Chunk) * (in.PrefillIter + lt)
		x := 0.0
		if in.TransferS != nil {
			x = in.TransferS(l.In)
		}
		if !(x >= 0) || math.IsInf(x, 0) {
			return Result{}, fmt.Errorf("disagg: transfer time %v s for %d tokens: must be finite and >= 0", x, l.In)
		}
		prefill = append(prefill, pf)
		sp = append(sp, pf+x)
		if l.Out >= 2 {
			sd = append(sd, float64(l.Out-1)*(in.DecodeIter+lt))
		}
	}
	var res Result
	var err error
	if in.IterW > 0 && !math.IsInf(in.TTFTP99, 1) {
		res.Prefill, err = sizeAtLoad(in, sp)
	} else {
		p99 := quantile(prefill, 0.99)
		if !(in.TTFTP99 > p99) {
			return Result{}, fmt.Errorf("disagg: P99 TTFT target %.4g s: not above the prefill stage's own P99 prefill time %.4g s (no count of prefill instances meets it)", in.TTFTP99, p99)
		}
		res.Prefill, err = size(in.Lambda, sp, in.PrefillSlots, in.TTFTP99-p99, in.RhoMax)
	}
	if err != nil {
		return Result{}, fmt.Errorf("disagg: prefill stage: %w", err)
	}
	if len(sd) > 0 {
		lam := in.Lambda * float64(len(sd)) / float64(len(in.Sample))
		res.Decode, err = size(lam, sd, in.DecodeSlots, in.DecodeWaitP99, in.RhoMax)
		if err != nil {
			return Result{}, fmt.Errorf("disagg: decode stage: %w", err)
		}
	}
	return res, nil
}

// maxCountSteps bounds sizeAtLoad's search above the cap's count.
const maxCountSteps = 100000

// sizeAtLoad sizes the prefill stage with its TTFT checked at each count's
// own load (Size, IterW > 0); sp are the prefill service times.
func sizeAtLoad(in Input, sp []float64) (Stage, error) {
	r, err := size(in.Lambda, sp, in.PrefillSlots, math.Inf(1), in.RhoMax)
	if err != nil {
		return Stage{}, err
	}
	// A prompt's prefill at load ϱ: its own prefill alone plus, in each of
	// its m iterations, the other slots' part of a full iteration, each
	// slot busy with probability ϱ.
	// Both terms grow with L_in, so the P99 of the sum is the sum of the
	// P99s (same rank): the idle P99 and the P99 iteration count.
	iters := make([]float64, len(in.Sample))
	own := make([]float64, len(in.Sample))
	sl, s := 0.0, 0.0
	for i, l := range in.Sample {
		m := (l.In + in.Chunk - 1) / in.Chunk
		iters[i] = float64(m)
		own[i] = float64(m)*(in.IterW+in.HSeq) + in.HKV*float64(in.Chunk*m*(m-1)/2+l.In) + in.P*float64(l.In)
		sl += sp[i] * float64(l.In+l.Out)
		s += sp[i]
	}
	p99, idle := quantile(iters, 0.99), quantile(own, 0.99)
	if !(in.TTFTP99 > idle) {
		return Stage{}, fmt.Errorf("P99 TTFT target %.4g s: not above the P99 prefill of an idle instance, %.4g s (%g iterations; no count of prefill instances meets it)", in.TTFTP99, idle, p99)
	}
	// The other slots' part of a full iteration: n − 1 of the n slots.
	load := (in.PrefillIter - in.IterW + in.PerToken*sl/s) * float64(in.PrefillSlots-1) / float64(in.PrefillSlots)
	for n := max(1, r.GPUs); n <= r.GPUs+maxCountSteps; n++ {
		c := n * in.PrefillSlots
		u := in.Lambda * r.MeanS / float64(c)
		pf := idle + p99*u*load
		w := queueing.KimuraP99Wait(c, 1/r.MeanS, in.Lambda, r.Cs2)
		if w+pf <= in.TTFTP99 {
			r.WaitS, r.GPUs, r.Utilization, r.P99Wait = in.TTFTP99-pf, n, u, w
			return r, nil
		}
	}
	return Stage{}, fmt.Errorf("P99 TTFT target %.4g s: no count up to %d prefill instances meets it", in.TTFTP99, r.GPUs+maxCountSteps)
}

// size sizes one stage from its service times.
func size(lambda float64, s []float64, slots int, wait, rhoMax float64) (Stage, error) {
	mean, m2 := 0.0, 0.0
	for _, x := range s {
		mean += x
		m2 += x * x
	}
	n := float64(len(s))
	mean /= n
	cs2 := max(0, m2/n/(mean*mean)-1)
	r, err := queueing.MinGPUs(queueing.SizeInput{Lambda: lambda, Slots: slots, MeanS: mean, Cs2: cs2, WaitMax: wait, RhoMax: rhoMax})
	if err != nil {
		return Stage{}, err
	}
	return Stage{Lambda: lambda, MeanS: mean, Cs2: cs2, WaitS: wait, SizeResult: r}, nil
}

// quantile returns the nearest-rank q-quantile of x (x is reordered).
func quantile(x []float64, q float64) float64 {
	s := append([]float64(nil), x...)
	slices.Sort(s)
	k := int(math.Ceil(q*float64(len(s)))) - 1
	return s[max(0, k)]
}
