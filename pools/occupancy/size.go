package occupancy

import (
	"errors"
	"fmt"
	"math"
)

// Targets are what a sized pool must meet; a zero latency target is
// skipped.
type Targets struct {
	RhoMax   float64 // slot-utilization cap, in (0, 1)
	P99TTFTS float64 // P99 TTFT target, s (0 = none)
	P99TPOTS float64 // P99 TPOT target, s (0 = none)
}

func (tg Targets) met(pr Prediction) bool {
	return pr.Utilization <= tg.RhoMax &&
		(tg.P99TTFTS == 0 || pr.P99TTFTS <= tg.P99TTFTS) &&
		(tg.P99TPOTS == 0 || pr.P99TPOTS <= tg.P99TPOTS)
}

// MaxGPUs bounds the search of Size (one pool).
const MaxGPUs = 1 << 36

// Size returns the smallest GPU count at which the model predicts a stable
// pool meeting tg, and its prediction. p.GPUs is ignored. The search starts
// at the fixed point's bound G >= λ·E[k]·(W + ρ_max·N·β)/(ρ_max·N), gallops
// up and bisects: every predicted quantity falls as G grows. A latency
// target that no size meets (below the P99 of an empty pool) is an error
// naming the target and the floor.
func Size(p Pool, tg Targets) (int, Prediction, error) {
	p.GPUs = 1
	if err := p.validate(); err != nil {
		return 0, Prediction{}, err
	}
	if !(tg.RhoMax > 0 && tg.RhoMax < 1) {
		return 0, Prediction{}, fmt.Errorf("rho-max %v: must be in (0, 1)", tg.RhoMax)
	}
	// Floors: a pool so large that no request meets another.
	floor, err := p.emptyFloor()
	if err != nil {
		return 0, Prediction{}, err
	}
	if tg.P99TTFTS > 0 && tg.P99TTFTS <= floor.P99TTFTS {
		return 0, Prediction{}, fmt.Errorf("slo-ttft-p99 %.4g s: unreachable, the P99 TTFT of an idle pool is %.4g s (prefill of the P99 prompt)", tg.P99TTFTS, floor.P99TTFTS)
	}
	if tg.P99TPOTS > 0 && tg.P99TPOTS <= floor.P99TPOTS {
		return 0, Prediction{}, fmt.Errorf("slo-tpot-p99 %.4g s: unreachable, the P99 TPOT of an idle pool is %.4g s", tg.P99TPOTS, floor.P99TPOTS)
	}
	N := float64(p.Slots)
	g0 := p.Rate * p.Traffic.EK * (p.Timing.W + tg.RhoMax*N*p.beta()) / (tg.RhoMax * N)
	lo := max(1, int(math.Floor(g0))) // lo may meet tg; checked below
	// A count the model cannot evaluate (a chain too wide for
	// queueing.MaxWindowStates) ends the search with that error; an
	// unstable count just fails the targets.
	var evalErr error
	eval := func(g int) (Prediction, bool) {
		q := p
		q.GPUs = g
		pr, err := q.Predict()
		if err != nil {
			if !errors.Is(err, ErrUnstable) && evalErr == nil {
				evalErr = fmt.Errorf("occupancy model at %d GPUs: %w", g, err)
			}
			return pr, false
		}
		return pr, tg.met(pr)
	}
	// Gallop from lo.
	step := 1
	hi := lo
	var best Prediction
	for {
		pr, ok := eval(hi)
		if evalErr != nil {
			return 0, Prediction{}, evalErr
		}
		if ok {
			best = pr
			break
		}
		lo = hi + 1
		hi += step
		step *= 2
		if hi > MaxGPUs {
			return 0, Prediction{}, fmt.Errorf("occupancy model: no pool of up to 2^36 GPUs meets the targets at %.4g requests/s", p.Rate)
		}
	}
	// Bisect (lo, hi]: hi meets, lo−1 does not. Below a count the model
	// can evaluate the chains are narrower, so evalErr stays nil.
	for lo < hi {
		mid := lo + (hi-lo)/2
		if pr, ok := eval(mid); ok {
			hi, best = mid, pr
		} else {
			lo = mid + 1
		}
	}
	// The start is the fixed point's bound, not the chain's: step down
	// while the count below also meets tg.
	for hi > 1 {
		pr, ok := eval(hi - 1)
		if !ok {
			break
		}
		hi, best = hi-1, pr
	}
	if evalErr != nil {
		return 0, Prediction{}, evalErr
	}
	return hi, best, nil
}

// emptyFloor is the prediction of a pool whose GPUs run nothing but the
// request itself: the lower bound of every latency.
func (p Pool) emptyFloor() (Prediction, error) {
	s := shape{idle: 1, theta: math.Inf(1), tau: p.Traffic.EK}
	return Prediction{
		P99TTFTS: quantile(func(x float64) float64 { return s.ttftTail(p, x) }),
		P99TPOTS: quantile(func(x float64) float64 { return s.tpotTail(p, x) }),
	}, nil
}
