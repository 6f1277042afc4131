package sweep

import (
	"fmt"
	"io"
	"sync/atomic"

	"github.com/fleetsim/fleetsim/sim"
	"github.com/fleetsim/fleetsim/workload"
)

// SinkFunc opens the per-request output of one point. finish is called once
// the run ended: with ok it must complete the output, without it discard it.
type SinkFunc func(p Point, cfg sim.Config) (sink sim.Sink, finish func(ok bool) error, err error)

// Options tune a sweep without changing its results.
type Options struct {
	// Workers is the number of points run at once; 0 means GOMAXPROCS.
	Workers int
	// Shard restricts the sweep to a 1/N partition of the grid.
	Shard Shard
	// Progress, when set, is called after each point with the points done
	// and the points to run (calls are serialized).
	Progress func(done, total int)
	// Stop, when set, is polled by every run; once true the sweep ends with
	// sim.ErrStopped.
	Stop func() bool
	// Sink, when set, gives each point a per-request output.
	Sink SinkFunc
	// Detector gives the over-saturation verdicts (DefaultDetector if nil).
	Detector Detector
	// Enforce lets each run stop at its first over-saturation detection.
	Enforce bool
}

// Result is one point's run.
type Result struct {
	Point   Point
	Label   string
	Config  sim.Config // the point's scenario as run (defaults spelled out)
	Summary *sim.Summary
	Fleet   Verdict   // the fleet's over-saturation verdict
	Pools   []Verdict // per pool, Config.Pools order
}

// Run runs the points of g selected by opts.Shard, opts.Workers at a time,
// and returns their results in grid order. g must be valid (Grid.Validate).
func Run(g *Grid, opts Options) ([]Result, error) {
	idx := opts.Shard.Points(g.Size())
	res := make([]Result, len(idx))
	var done atomic.Int64
	progress := make(chan struct{}, 1)
	progress <- struct{}{}
	err := parallel(len(idx), opts.Workers, opts.Stop, func(k int) error {
		p := g.Point(idx[k])
		cfg, err := g.Config(p)
		if err != nil {
			return err
		}
		r, err := runPoint(cfg, p, opts)
		if err != nil {
			if l := g.Label(p); l != "" {
				return fmt.Errorf("point %d (%s): %w", p.Index, l, err)
			}
			return err
		}
		r.Label = g.Label(p)
		res[k] = r
		n := int(done.Add(1))
		if opts.Progress != nil {
			<-progress // serialize the calls
			opts.Progress(n, len(idx))
			progress <- struct{}{}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// runPoint simulates one scenario.
func runPoint(cfg sim.Config, p Point, opts Options) (Result, error) {
	det := opts.Detector
	if det == nil {
		det = DefaultDetector
	}
	src, err := workload.NewSource(cfg.Workload, cfg.Seed)
	if err != nil {
		return Result{}, err
	}
	if c, ok := src.(io.Closer); ok {
		defer c.Close()
	}
	cfg = cfg.Effective()
	var (
		sink   sim.Sink
		finish func(bool) error
	)
	if opts.Sink != nil {
		if sink, finish, err = opts.Sink(p, cfg); err != nil {
			return Result{}, err
		}
	}
	simOpts := sim.Options{Stop: opts.Stop}
	sink, verdicts := det.Begin(&cfg, &simOpts, sink, opts.Enforce)
	sum, err := sim.Run(cfg, src, sink, simOpts)
	if err == nil {
		err = src.Err()
	}
	if finish != nil {
		if ferr := finish(err == nil); err == nil {
			err = ferr
		}
	}
	if err != nil {
		return Result{}, err
	}
	fleet, pools := verdicts(sum)
	return Result{Point: p, Config: cfg, Summary: sum, Fleet: fleet, Pools: pools}, nil
}
