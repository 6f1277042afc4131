// Package papercompat is fleetsim's papers-compatible planner (`fleetsim
// plan --compat papers`): it sizes FleetOpt's fleets the way the papers'
// simulator did (vllm-sr-sim's fleet_sim optimizer, vllm-project/
// semantic-router src/fleet-sim, which produced FleetOpt Tables 3 and 6
// and §7.4), so that those tables come out cell for cell.
//
// What differs from pools' default planner (docs/planner.md §9):
//
//   - service-time moments are one Monte Carlo draw of 3,000 requests from
//     Python's random.Random(42) (workload/pyrand), restarted for every
//     pool, walking the CDF's breakpoints: u = random(), the first bucket
//     with u ≤ F, then a length randint(max(lo, prev+1), min(poolMax,
//     threshold));
//   - the pools' CDF slices are normalized the way fleet_sim does it: the
//     short slice keeps the breakpoints ≤ B divided by F(B); the long slice
//     keeps the breakpoints > ⌊γB⌋, (F − F(⌊γB⌋))/(1 − F(⌊γB⌋)) with F
//     linearly interpolated, its first bucket starting at ⌊γB⌋ itself;
//   - the traffic split uses the linearly interpolated CDF;
//   - a pool's GPU count is max(c_slo, ⌈λ/(ρ_max·μ)⌉) with c_slo the
//     smallest count from max(1, ⌈λ/μ⌉ + 1) up whose Kimura P99 wait meets
//     the SLO (500 ms): one GPU more than the utilization cap for small
//     pools;
//   - P99 TTFT is Kimura's P99 wait plus the *mean* prefill time at one
//     active sequence, ⌈L_in/C⌉·(W + H).
//
// Everything else (the A100 constants, the slot rule, the kv iteration
// time W + H·(L/8192)·slots, L_in = ⌊0.8·L⌋) is the same as pools'.
package papercompat

import (
	"math"

	"github.com/fleetsim/fleetsim/pools/catalog"
	"github.com/fleetsim/fleetsim/workload"
	"github.com/fleetsim/fleetsim/workload/pyrand"
)

// The fleet_sim optimizer's fixed settings.
const (
	Seed          = 42   // random.Random(42), restarted for every pool
	Samples       = 3000 // Monte Carlo requests per pool
	InputFraction = 0.8  // L_in = max(1, int(0.8·L)), L_out = max(1, L − L_in)
	DefaultSLO    = 0.5  // P99 TTFT target of the optimizer, s
	MinLongFrac   = 1e-6 // a long slice with less mass is not calibrated
	MinLongRate   = 0.01 // a long pool with less traffic (req/s) gets 0 GPUs
	maxSLOGPUs    = 5000 // fleet_sim stops the SLO search here
)

// point is one (threshold, F) breakpoint as fleet_sim holds it.
type point struct {
	t int
	f float64
}

func points(c *workload.CDF) []point {
	out := make([]point, len(c.Points))
	for i, p := range c.Points {
		out[i] = point{p.Tokens, p.F}
	}
	return out
}

// cdfEval is F(t) with linear interpolation between breakpoints (0 at
// t ≤ 0, 1 beyond the last), in fleet_sim's order of operations.
func cdfEval(pts []point, t int) float64 {
	if t <= 0 {
		return 0
	}
	prevT, prevF := 0, 0.0
	for _, p := range pts {
		if t <= p.t {
			if p.t == prevT {
				return p.f
			}
			return prevF + (p.f-prevF)*float64(t-prevT)/float64(p.t-prevT)
		}
		prevT, prevF = p.t, p.f
	}
	return 1
}

// shortSlice is the short pool's normalized slice: breakpoints ≤ b divided
// by the last one's F; [(b, 1)] when none.
func shortSlice(pts []point, b int) []point {
	var out []point
	for _, p := range pts {
		if p.t <= b {
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		return []point{{b, 1}}
	}
	last := out[len(out)-1].f
	for i := range out {
		out[i].f /= last
	}
	return out
}

// longSlice is the long pool's normalized slice above gb = ⌊γB⌋, or nil
// when no breakpoint lies above gb or its mass is at most MinLongFrac.
func longSlice(pts []point, gb int) []point {
	fg := cdfEval(pts, gb)
	frac := 1 - fg
	var out []point
	for _, p := range pts {
		if p.t > gb {
			out = append(out, point{p.t, math.Max(0, math.Min(1, (p.f-fg)/frac))})
		}
	}
	if len(out) == 0 || !(frac > MinLongFrac) {
		return nil
	}
	out[len(out)-1].f = 1
	return out
}

// Calib is one pool's Monte Carlo calibration.
type Calib struct {
	Slots        int     // sequences per GPU at the pool's max context
	MuGPU        float64 // slots/E[S], requests/s per GPU
	Cs2          float64 // max(0.01, E[S²]/E[S]² − 1)
	MeanPrefillS float64 // mean ⌈L_in/C⌉·(W + H), s
	MeanServiceS float64 // E[S], s
}

// calibrate draws Samples requests from the normalized slice with a fresh
// random.Random(Seed) and returns the pool's moments. poolMax is the
// pool's max context (the slot count and the top of every length);
// loClamp the smallest length drawn.
func calibrate(slice []point, poolMax int, g catalog.GPU, loClamp int) Calib {
	rng := pyrand.New(Seed)
	slots := g.Slots(poolMax)
	var sum, sum2, pref float64
	n := 0
	iter1 := g.W + g.H*1 // iter_latency(1): one active sequence, H unscaled
	for range Samples {
		u := rng.Float64()
		prev := 0
		for _, p := range slice {
			if u <= p.f {
				lo, hi := max(loClamp, prev+1), min(poolMax, p.t)
				length := poolMax
				if lo <= hi {
					length = rng.RandInt(lo, hi)
				}
				lin := max(1, int(float64(length)*InputFraction))
				lout := max(1, length-lin)
				iters := (lin+g.ChunkTokens-1)/g.ChunkTokens + lout
				hEff := g.H * (float64(lin+lout) / float64(g.CalibCtx))
				s := float64(iters) * (g.W + hEff*float64(slots))
				sum += s
				sum2 += s * s
				pref += float64((lin+g.ChunkTokens-1)/g.ChunkTokens) * iter1
				n++
				break
			}
			prev = p.t
		}
	}
	if n == 0 {
		return Calib{Slots: slots, MuGPU: float64(slots), Cs2: 1}
	}
	e1 := sum / float64(n)
	e2 := sum2 / float64(n)
	return Calib{
		Slots: slots, MuGPU: float64(slots) / e1, Cs2: math.Max(0.01, e2/(e1*e1)-1),
		MeanPrefillS: pref / float64(n), MeanServiceS: e1,
	}
}
