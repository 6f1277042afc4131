package papercompat

import (
	"math"

	"github.com/fleetsim/fleetsim/pools/queueing"
)

// p99Wait is Kimura's P99 slot wait as fleet_sim evaluates it: c slots of
// rate mu each, arrival rate lam; 0 when the Erlang-C probability is at
// most 0.01, +Inf when unstable.
func p99Wait(c int, lam, mu, cs2 float64) float64 {
	if c <= 0 || lam <= 0 || mu <= 0 {
		return math.Inf(1)
	}
	a := lam / mu
	if a/float64(c) >= 1 {
		return math.Inf(1)
	}
	C := queueing.ErlangC(c, a)
	if C <= 0.01 {
		return 0
	}
	decay := 2 * (float64(c)*mu - lam) / math.Max(1e-9, 1+cs2)
	if decay <= 0 {
		return math.Inf(1)
	}
	return math.Log(C/0.01) / decay
}

// minGPUs is fleet_sim's GPU count for arrival rate lam at per-GPU rate mu:
// c_slo starts at max(1, ⌈lam/mu⌉ + 1) and grows until the P99 wait meets
// slo (giving up at 5,000 GPUs); the answer is max(c_slo, ⌈lam/(ρ_max·mu)⌉).
func minGPUs(lam, mu, slo, cs2, rhoMax float64, slots int) int {
	if lam <= 0 {
		return 1
	}
	muSlot := mu / float64(slots)
	cSLO := max(1, int(math.Ceil(lam/mu))+1)
	for p99Wait(cSLO*slots, lam, muSlot, cs2) > slo {
		cSLO++
		if cSLO > maxSLOGPUs {
			return cSLO
		}
	}
	cRho := cSLO
	if rhoMax < 1 {
		cRho = int(math.Ceil(lam / (mu * rhoMax)))
	}
	return max(cSLO, cRho)
}
