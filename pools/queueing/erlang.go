package queueing

import (
	"fmt"
	"math"
)

// This file holds the queueing layer of the planner: the Erlang-C
// probability of waiting, Kimura's P99 wait for M/G/c (FleetOpt eq. 5, 6, 16)
// and the minimum GPU count of a pool (FleetOpt eq. 11 and Appendix A).
//
// Conventions: c is the number of servers (KV slots of the whole pool,
// n_gpus*n_slots), a = λ/μ is the offered load in Erlangs (λ requests/s,
// μ = 1/E[S] the per-slot service rate), ϱ = a/c the per-server utilization.

// erlangLogRatio returns ln R(c, a) where
//
//	R(c, a) = Σ_{k=0}^{c-1} (a^k/k!) / (a^c/c!) = Σ_{j=1}^{c} Π_{i=0}^{j-1} (c-i)/a
//
// so that the Erlang-C probability is C = 1/(1 + (1-ϱ)·R). Terms are built
// by the recursion t_j = t_{j-1}·(c-j+1)/a with periodic rescaling, so there
// is no factorial and no overflow: the sum is held as s·e^scale.
//
// Work stops early, which keeps it bounded far below c for large c:
//   - once ln R exceeds stop (the caller knows C is below what it needs);
//   - once the terms are decreasing (j > c-a) and the next term is below
//     1e-17 of the sum.
//
// Requires c >= 1 and a > 0.
func erlangLogRatio(c int, a, stop float64) float64 {
	const big = 1e250
	logBig := math.Log(big)
	scale := 0.0
	// limit is e^(stop-scale): the linear-space bound on s for the current
	// scale, so the loop needs no logarithm per term.
	limit := math.Exp(min(stop, 700))
	if stop > 700 {
		limit = math.Inf(1)
	}
	inv := 1 / a
	t := float64(c) * inv // t_1
	s := t
	for j := 2; j <= c && s <= limit; j++ {
		f := float64(c-j+1) * inv
		t *= f
		s += t
		if s > big {
			s /= big
			t /= big
			scale += logBig
			if d := stop - scale; d <= 700 {
				limit = math.Exp(d)
			}
		}
		if f < 1 && t < 1e-17*s {
			break
		}
	}
	return scale + math.Log(s)
}

// ErlangC returns the Erlang-C probability that an arrival must wait in an
// M/M/c queue with c servers and offered load a = λ/μ Erlangs (FleetOpt
// eq. 5, computed in log space as in Appendix A eq. 16).
//
// Edge cases, all finite (never NaN):
//   - a <= 0 (no load): 0;
//   - ϱ = a/c >= 1 (unstable queue): 1, every arrival waits;
//   - c = 1: ϱ exactly (M/M/1);
//   - c < 1: 1 (no server: everything waits).
//
// Values below about 1e-308 underflow to 0. The cost is O(min(c, terms that
// matter)): for c = 10^6 at ϱ = 0.999 about 10^4 terms.
func ErlangC(c int, a float64) float64 {
	switch {
	case math.IsNaN(a):
		return math.NaN()
	case c < 1:
		return 1
	case a <= 0:
		return 0
	}
	rho := a / float64(c)
	if rho >= 1 {
		return 1
	}
	// C = 1/(1+e^x) with x = ln(1-ϱ) + ln R; beyond x ≈ 745 C underflows.
	logR := erlangLogRatio(c, a, 800)
	x := math.Log1p(-rho) + logR
	return 1 / (1 + math.Exp(x))
}

// KimuraTail is the tail probability of FleetOpt eq. 6: the P99 wait is the
// time by which all but 1% of arrivals have started service.
const KimuraTail = 0.01

// KimuraP99Wait returns the P99 queueing wait, in seconds, of an M/G/c queue
// with c servers, per-server service rate mu (1/s), arrival rate lambda
// (requests/s) and squared coefficient of variation cs2 of the service time
// (FleetOpt eq. 6, Kimura 1994):
//
//	W99 = ln(C(c,ϱ)/0.01)·(1+Cs²) / (2(cμ − λ))
//
// It is 0 when C(c,ϱ) <= 0.01 (99% of arrivals find a free server) and when
// lambda <= 0; +Inf when ϱ >= 1 (the queue grows without bound) or c < 1.
func KimuraP99Wait(c int, mu, lambda, cs2 float64) float64 {
	if lambda <= 0 {
		return 0
	}
	if c < 1 || mu <= 0 {
		return math.Inf(1)
	}
	a := lambda / mu
	rho := a / float64(c)
	if rho >= 1 {
		return math.Inf(1)
	}
	// C <= 0.01  <=>  (1-ϱ)R >= 99: stop summing as soon as that is certain.
	stop := math.Log(1/KimuraTail-1) - math.Log1p(-rho)
	logR := erlangLogRatio(c, a, stop)
	if logR >= stop {
		return 0
	}
	C := 1 / (1 + math.Exp(math.Log1p(-rho)+logR))
	if C <= KimuraTail {
		return 0
	}
	return math.Log(C/KimuraTail) * (1 + cs2) / (2 * (float64(c)*mu - lambda))
}

// DefaultRhoMax is FleetOpt's utilization cap ρ_max (§4.1).
const DefaultRhoMax = 0.85

// MaxServers bounds the servers (GPUs × slots) MinGPUs sizes a pool to:
// 2^40 ≈ 1.1e12 KV slots, orders of magnitude beyond any real fleet and far
// inside the int range, so every count and product of counts stays exact.
// A pool that would need more is an error, not an overflowed count.
const MaxServers = 1 << 40

// SizeInput is one pool's sizing problem (FleetOpt eq. 11).
type SizeInput struct {
	Lambda  float64 // arrival rate into the pool, requests/s
	Slots   int     // concurrent sequences per GPU (servers per GPU)
	MeanS   float64 // mean service time E[S], s
	Cs2     float64 // squared coefficient of variation of S
	WaitMax float64 // P99 wait budget T_slo − T_prefill99 − t_iter, s
	RhoMax  float64 // utilization cap, in (0, 1)
}

// SizeResult is the answer to a SizeInput.
type SizeResult struct {
	GPUs        int     // minimum GPU count
	Utilization float64 // λ/(n·μ_gpu) at that count
	P99Wait     float64 // Kimura P99 wait at that count, s
	ByRhoMax    int     // ceil(λ/(ρ_max·μ_gpu)), the cap's lower bound
}

// MinGPUs returns the minimum GPU count n with c = n·Slots servers such
// that the Kimura P99 wait is at most WaitMax and the utilization is at most
// RhoMax (FleetOpt eq. 11): it starts from ceil(λ/(ρ_max·μ_gpu)) and, if the
// wait target is not met there, brackets the answer by doubling and bisects
// (the wait is non-increasing in n). Zero traffic needs 0 GPUs. A pool that
// would need more than MaxServers servers (GPUs × Slots) is an error.
func MinGPUs(in SizeInput) (SizeResult, error) { return minGPUs(in, false) }

// MinGPUCount is MinGPUs for callers that need only the count: with an
// infinite WaitMax it skips the (then irrelevant) Kimura evaluation and
// leaves P99Wait at 0.
func MinGPUCount(in SizeInput) (SizeResult, error) { return minGPUs(in, true) }

// minGPUs is MinGPUs; with countOnly and an infinite wait budget it skips
// the (then irrelevant) Kimura evaluation and leaves P99Wait at 0.
func minGPUs(in SizeInput, countOnly bool) (SizeResult, error) {
	switch {
	case !(in.Lambda >= 0) || math.IsInf(in.Lambda, 0):
		return SizeResult{}, fmt.Errorf("arrival rate %v requests/s: must be finite and >= 0", in.Lambda)
	case in.Slots < 1:
		return SizeResult{}, fmt.Errorf("slots per GPU %d: must be >= 1", in.Slots)
	case !(in.MeanS > 0) || math.IsInf(in.MeanS, 0):
		return SizeResult{}, fmt.Errorf("mean service time %v s: must be finite and > 0", in.MeanS)
	case !(in.Cs2 >= 0):
		return SizeResult{}, fmt.Errorf("service-time Cs^2 %v: must be >= 0", in.Cs2)
	case !(in.RhoMax > 0 && in.RhoMax < 1):
		return SizeResult{}, fmt.Errorf("utilization cap rho-max %v: must be in (0, 1)", in.RhoMax)
	case !(in.WaitMax > 0):
		return SizeResult{}, fmt.Errorf("P99 wait budget %.4g s (SLO minus P99 prefill minus one iteration): must be > 0", in.WaitMax)
	}
	if in.Lambda == 0 {
		return SizeResult{}, nil
	}
	mu := 1 / in.MeanS                   // per-slot rate
	muGPU := float64(in.Slots) * mu      // per-GPU rate
	x := in.Lambda / (in.RhoMax * muGPU) // GPUs at the cap
	// Every count below is at most maxGPUs, so n·Slots <= MaxServers and no
	// float-to-int conversion or product can overflow.
	maxGPUs := MaxServers / in.Slots
	if !(x*(1-1e-12) <= float64(maxGPUs)) {
		return SizeResult{}, fmt.Errorf("arrival rate %v requests/s needs %.4g GPUs of %d slots at rho-max %v (mean service %.4g s): more than the %d servers (GPUs × slots) the planner sizes",
			in.Lambda, x, in.Slots, in.RhoMax, in.MeanS, MaxServers)
	}
	lo := int(math.Ceil(x * (1 - 1e-12))) // tolerate rounding just above an integer
	lo = max(lo, 1)
	byRho := lo
	wait := func(n int) float64 { return KimuraP99Wait(n*in.Slots, mu, in.Lambda, in.Cs2) }
	res := func(n int, w float64) SizeResult {
		return SizeResult{GPUs: n, Utilization: in.Lambda / (float64(n) * muGPU), P99Wait: w, ByRhoMax: byRho}
	}
	if countOnly && math.IsInf(in.WaitMax, 1) {
		return res(lo, 0), nil
	}
	if w := wait(lo); w <= in.WaitMax {
		return res(lo, w), nil
	}
	// Bracket: FleetOpt App. A searches up to 10·ceil(a); keep doubling past it.
	// λ/μ_gpu = ρ_max·x <= maxGPUs, so 10·ceil(λ/μ_gpu) fits an int.
	hi := min(max(2*lo, 10*int(math.Ceil(in.Lambda/muGPU))), maxGPUs)
	for wait(hi) > in.WaitMax {
		if hi >= maxGPUs {
			return SizeResult{}, fmt.Errorf("arrival rate %v requests/s: no GPU count up to %d (%d servers at %d slots per GPU) meets the P99 wait budget %.4g s",
				in.Lambda, maxGPUs, MaxServers, in.Slots, in.WaitMax)
		}
		hi = min(2*hi, maxGPUs)
	}
	for hi-lo > 1 { // wait(lo) > budget >= wait(hi)
		mid := lo + (hi-lo)/2
		if wait(mid) <= in.WaitMax {
			hi = mid
		} else {
			lo = mid
		}
	}
	return res(hi, wait(hi)), nil
}
