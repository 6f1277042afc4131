package autoscale

import "math"

// Defaults of the threshold policy: the Kubernetes HorizontalPodAutoscaler's
// (kubernetes.io, "Horizontal Pod Autoscaling": tolerance 0.1; scale-up
// stabilization window 0 s; scale-down window 300 s).
const (
	DefaultTolerance   = 0.1
	DefaultUpWindowS   = 0.0
	DefaultDownWindowS = 300.0
)

// Threshold is a Kubernetes-HPA-like policy on one metric (docs/day.md):
// with ratio = value / Target,
//
//	recommendation = Current                  if |ratio − 1| <= Tolerance
//	recommendation = ⌈Serving · ratio⌉        otherwise
//
// (the HPA's ⌈ready pods × ratio⌉, its value averaged over the instances
// that report it). The stabilization windows then act as the HPA's: the
// pool scales up to the lowest recommendation of the last UpWindowS
// seconds, and down to the highest of the last DownWindowS seconds, so a
// scale-down needs the load to stay low for the whole window. A pool with
// no serving instance keeps its count, except a pool scaled to zero, which
// asks for one instance as soon as requests wait or arrive. Build it with
// NewThreshold.
type Threshold struct {
	Metric                 string
	Target, Tolerance      float64
	UpWindowS, DownWindowS float64
	// Targets, when set, gives pool i its own target (Targets[i] > 0;
	// 0 keeps Target).
	Targets []float64
	hist    [][]rec // per pool, recommendations within the longer window
}

type rec struct {
	t float64
	n int
}

// NewThreshold returns the policy for pools pools.
func NewThreshold(metric string, target, tolerance, upS, downS float64, pools int) *Threshold {
	return &Threshold{Metric: metric, Target: target, Tolerance: tolerance, UpWindowS: upS, DownWindowS: downS,
		hist: make([][]rec, pools)}
}

// Recommend returns the recommendation for one observation, before
// stabilization.
func (p *Threshold) Recommend(o Observation) int {
	return p.recommend(o, p.Target)
}

func (p *Threshold) recommend(o Observation, target float64) int {
	v, ok := value(p.Metric, o)
	if !ok {
		if o.Current == 0 && (o.Queue > 0 || o.RateRPS > 0) {
			return 1
		}
		return o.Current
	}
	ratio := v / target
	if math.Abs(ratio-1) <= p.Tolerance {
		return o.Current
	}
	// ceil with a guard against 4.000000001 from rounding.
	return int(math.Ceil(float64(o.Serving)*ratio - 1e-9))
}

// Decide returns each pool's stabilized count.
func (p *Threshold) Decide(obs []Observation) []int {
	out := make([]int, len(obs))
	for len(p.hist) < len(obs) {
		p.hist = append(p.hist, nil)
	}
	keep := max(p.UpWindowS, p.DownWindowS)
	for i, o := range obs {
		target := p.Target
		if i < len(p.Targets) && p.Targets[i] > 0 {
			target = p.Targets[i]
		}
		r := p.recommend(o, target)
		up, down := r, r
		h := p.hist[i]
		for _, x := range h {
			if x.t > o.TimeS-p.UpWindowS {
				up = min(up, x.n)
			}
			if x.t > o.TimeS-p.DownWindowS {
				down = max(down, x.n)
			}
		}
		n := o.Current
		if n < up {
			n = up
		}
		if n > down {
			n = down
		}
		out[i] = n
		// Keep the recommendations still inside a window.
		j := 0
		for j < len(h) && !(h[j].t > o.TimeS-keep) {
			j++
		}
		p.hist[i] = append(h[j:], rec{o.TimeS, r})
	}
	return out
}
