package variants

import (
	"fmt"

	"github.com/fleetsim/fleetsim/engine"
)

// SimSweep is a benchmark of fleetsim's own engine: for each batch size b,
// b identical requests arrive together on an idle instance and are served
// to completion.
type SimSweep struct {
	Batches []int // batch sizes to run (each <= the engine's MaxSeqs)
	In      int   // prompt tokens per request (prefill measurement)
	Out     int   // output tokens per request (>= 2: decode measurement)
}

// SimPoint is one batch size's measurement, ms.
type SimPoint struct {
	Batch   int
	ITL     float64 // (finish − first token)/(out − 1), ms (mean over the batch)
	Prefill float64 // first token − admission, ms (mean over the batch)
}

// RunSweep runs the sweep on engine configuration cfg. The b requests are
// submitted at time 0, so they are admitted by the first iteration (when
// the KV cache holds them: a batch that would not fit is an error) and
// decode in lockstep; with the paper timing (t_iter = W + H·n) the ITL of
// batch b is exactly W + H·b, so a line through the points recovers the
// engine's constants.
func RunSweep(cfg engine.Config, s SimSweep) ([]SimPoint, error) {
	if s.Out < 2 {
		return nil, bad("out", s.Out, "must be >= 2 tokens (a decode step needs a second token)")
	}
	if s.In < 1 {
		return nil, bad("in", s.In, "must be >= 1 token")
	}
	var pts []SimPoint
	for _, b := range s.Batches {
		if b < 1 || b > cfg.MaxSeqs {
			return nil, bad("batch", b, "must be 1 to the instance's %d slots", cfg.MaxSeqs)
		}
		need := b * ((s.In + s.Out - 1 + cfg.BlockTokens - 1) / cfg.BlockTokens)
		if need > cfg.KVBlocks {
			return nil, bad("batch", b, "%d requests of %d+%d tokens need %d KV blocks; the instance has %d",
				b, s.In, s.Out, need, cfg.KVBlocks)
		}
		e, err := engine.New(cfg)
		if err != nil {
			return nil, err
		}
		for i := range b {
			if _, ok := e.Submit(engine.Job{In: s.In, Out: s.Out, Tag: i}, 0); !ok {
				return nil, fmt.Errorf("batch %d: the engine refused a request of %d+%d tokens", b, s.In, s.Out)
			}
		}
		res := e.AdvanceTo(engine.Never, nil)
		if len(res) != b {
			return nil, fmt.Errorf("batch %d: %d of %d requests finished", b, len(res), b)
		}
		p := SimPoint{Batch: b}
		for _, r := range res {
			if r.Preemptions > 0 || r.Admitted != 0 {
				return nil, fmt.Errorf("batch %d: a request was preempted or admitted late: not one batch", b)
			}
			p.ITL += (r.Finished - r.FirstToken).Seconds() / float64(s.Out-1)
			p.Prefill += (r.FirstToken - r.Admitted).Seconds()
		}
		p.ITL *= 1000 / float64(b)
		p.Prefill *= 1000 / float64(b)
		pts = append(pts, p)
	}
	return pts, nil
}

// FitSweep fits a profile to a sweep: decode α + β·b through the ITLs and
// prefill γ + δ·(in·b) through the prefill times.
func FitSweep(pts []SimPoint, in int) (Profile, *FitReport, error) {
	x := make([]float64, len(pts))
	xi := make([]float64, len(pts))
	itl := make([]float64, len(pts))
	pre := make([]float64, len(pts))
	for i, p := range pts {
		x[i] = float64(p.Batch)
		xi[i] = float64(in * p.Batch)
		itl[i], pre[i] = p.ITL, p.Prefill
	}
	d, err := FitLine(x, itl, "bb")
	if err != nil {
		return Profile{}, nil, err
	}
	pf, err := FitLine(xi, pre, "in*bb")
	if err != nil {
		return Profile{}, nil, err
	}
	p := Profile{Alpha: d.Intercept, Beta: d.Slope, Gamma: pf.Intercept, Delta: pf.Slope}
	return p, &FitReport{Decode: d, Prefill: &pf}, nil
}
