package sim

import "math"

// ScalingSummary is the cost and service of an autoscaled run
// (Summary.Scaling; docs/day.md): GPU-hours and cost from each scale-up
// decision to the release (reserved instances for the whole run), scale
// events, and the SLO attainment overall and in the worst hour.
type ScalingSummary struct {
	Policy    string  `json:"policy"`
	IntervalS float64 `json:"interval_s"`
	// EndS is the end of the accounting: the run's simulated time, s.
	EndS        float64 `json:"end_s"`
	GPUHours    float64 `json:"gpu_hours"`
	CostUSD     float64 `json:"cost_usd"`
	ReservedUSD float64 `json:"reserved_usd"`
	OnDemandUSD float64 `json:"on_demand_usd"`
	ScaleUps    int     `json:"scale_ups"`   // instances started
	ScaleDowns  int     `json:"scale_downs"` // instances cancelled or drained
	HourSLO
	// TTFTWindows tracks the fleet's P99 TTFT over windows of simulated
	// time against the SLO.
	TTFTWindows TTFTWindows `json:"ttft_windows"`
	// BShort is the adaptive threshold at the end, tokens (0: none).
	BShort int                  `json:"b_short,omitempty"`
	Pools  []PoolScalingSummary `json:"pools"`
}

// HourSLO is the SLO attainment of the post-warm-up requests, overall and
// in the worst hour of arrival (hours [k·3600, (k+1)·3600) s of simulated
// time holding at least one such request); attainment is the fraction of
// the completed requests meeting both SLO targets (PoolMetrics'), NaN
// when none completed.
type HourSLO struct {
	SLOAttainment          float64 `json:"slo_attainment"`
	WorstHourSLOAttainment float64 `json:"worst_hour_slo_attainment"`
	WorstHourStartS        float64 `json:"worst_hour_start_s"`
	Rejected               int64   `json:"rejected"`
}

// PoolScalingSummary is one pool's part of a ScalingSummary.
type PoolScalingSummary struct {
	Name string `json:"name"`
	Bill
	GPUHours float64 `json:"gpu_hours"`
	// PeakInstances is the most instances billed at once (starting,
	// serving or draining: it can exceed the policy's max while instances
	// told to drain finish their work); EndInstances the instances
	// starting or serving at the end.
	PeakInstances int `json:"peak_instances"`
	EndInstances  int `json:"end_instances"`
	HourSLO
}

func hourSummary(hs []hourSLO) HourSLO {
	h := HourSLO{SLOAttainment: math.NaN(), WorstHourSLOAttainment: math.NaN()}
	var c, m int64
	for k, x := range hs {
		c, m = c+x.completed, m+x.met
		h.Rejected += x.rejected
		if x.completed == 0 {
			continue
		}
		if a := float64(x.met) / float64(x.completed); !(a >= h.WorstHourSLOAttainment) {
			h.WorstHourSLOAttainment, h.WorstHourStartS = a, float64(k)*3600
		}
	}
	if c > 0 {
		h.SLOAttainment = float64(m) / float64(c)
	}
	return h
}

// scalingSummary returns the run's ScalingSummary, billed up to end s.
func (f *fleet) scalingSummary(end float64) *ScalingSummary {
	sc := f.sc
	if sc == nil {
		return nil
	}
	s := &ScalingSummary{Policy: sc.policy, IntervalS: sc.dt, EndS: end, HourSLO: hourSummary(sc.hours), BShort: sc.bShort,
		TTFTWindows: sc.win.close()}
	for _, p := range f.pools {
		b := p.sc.lc.Bill(end)
		ps := PoolScalingSummary{Name: p.cfg.Name, Bill: b, GPUHours: b.GPUSeconds / 3600,
			PeakInstances: p.sc.peak, EndInstances: p.sc.lc.Active(), HourSLO: hourSummary(p.sc.hours)}
		s.Pools = append(s.Pools, ps)
		s.GPUHours += ps.GPUHours
		s.CostUSD += b.CostUSD
		s.ReservedUSD += b.ReservedUSD
		s.OnDemandUSD += b.OnDemandUSD
		s.ScaleUps += b.ScaleUps
		s.ScaleDowns += b.ScaleDowns
	}
	return s
}

// SLOWindowS is the window of TTFTWindows, s of simulated time.
const SLOWindowS = 60.0

// TTFTWindows is the P99 TTFT of the post-warm-up requests completed in
// each window [k·WindowS, (k+1)·WindowS) of simulated time (by finish
// time), against the SLO's TTFT target: how many windows were above it and
// when the first began and the last ended (0 when none: the run recovered
// from the last one by LastAboveEndS).
type TTFTWindows struct {
	WindowS       float64 `json:"window_s"`
	Windows       int     `json:"windows"`          // windows with a completion
	Above         int     `json:"above"`            // windows whose P99 TTFT exceeds the SLO
	FirstAboveS   float64 `json:"first_above_s"`    // start of the first such window, s
	LastAboveEndS float64 `json:"last_above_end_s"` // end of the last such window, s
	WorstP99S     float64 `json:"worst_p99_s"`      // the largest window P99 TTFT, s
}

// ttftWindows accumulates TTFTWindows from records in finish order.
type ttftWindows struct {
	TTFTWindows
	k    int64 // open window (−1: none yet)
	slo  float64
	s    windowSketch
	init bool
}

func (w *ttftWindows) add(finish, ttft, slo float64) {
	if !w.init {
		w.init, w.k, w.slo, w.WindowS = true, -1, slo, SLOWindowS
		w.s = windowSketch{s: newSketch()}
		w.s.reset()
	}
	k := int64(finish / SLOWindowS)
	if k != w.k {
		w.flush()
		w.k = k
	}
	w.s.add(ttft)
}

func (w *ttftWindows) flush() {
	if w.k < 0 || w.s.s.n == 0 {
		return
	}
	p := w.s.quantile(0.99)
	w.Windows++
	w.WorstP99S = max(w.WorstP99S, p)
	if w.slo > 0 && p > w.slo {
		if w.Above == 0 {
			w.FirstAboveS = float64(w.k) * SLOWindowS
		}
		w.Above++
		w.LastAboveEndS = float64(w.k+1) * SLOWindowS
	}
	w.s.reset()
}

func (w *ttftWindows) close() TTFTWindows {
	if w.init {
		w.flush()
	}
	w.WindowS = SLOWindowS
	return w.TTFTWindows
}
