package sweep

import (
	"fmt"
	"math"
	"strings"

	"github.com/fleetsim/fleetsim/sim"
)

// Grid is a base scenario and the axes swept over it. Its points are the
// Cartesian product of the axes' values, numbered in row-major order (the
// last axis varies fastest).
type Grid struct {
	Base sim.Config
	Axes []Axis
	// DurationS, when > 0, sets each point's request count to
	// ceil(rate × DurationS), so every point covers about DurationS
	// simulated seconds whatever its rate. 0 keeps Base's request count.
	DurationS float64
}

// Point is one scenario of a grid.
type Point struct {
	Index  int      // position in the grid's row-major order, from 0
	Values []string // one value per axis, in the grid's axis order
}

// MaxPoints bounds a grid's size.
const MaxPoints = 1_000_000

// Size returns the number of points.
func (g *Grid) Size() int {
	n := 1
	for _, a := range g.Axes {
		n *= len(a.Values)
	}
	return n
}

// Check reports an axis given twice (or count/gpu given both for every pool
// and for one pool) and a grid above MaxPoints.
func (g *Grid) Check() error {
	seen := map[string]bool{}
	n := 1
	for _, a := range g.Axes {
		if seen[a.Key] {
			return fmt.Errorf("sweep key %q: given twice", a.Key)
		}
		seen[a.Key] = true
		if len(a.Values) == 0 {
			return fmt.Errorf("sweep key %q: no values", a.Key)
		}
		if n *= len(a.Values); n > MaxPoints {
			return fmt.Errorf("the grid has more than %d points; split it (fewer values, or several sweeps)", MaxPoints)
		}
	}
	for _, a := range g.Axes {
		b, pool := baseKey(a.Key)
		if pool != "" && seen[b] {
			return fmt.Errorf("sweep keys %q and %q: give the key for all pools or per pool, not both", b, a.Key)
		}
	}
	if math.IsNaN(g.DurationS) || math.IsInf(g.DurationS, 0) || g.DurationS < 0 {
		return fmt.Errorf("duration %v: must be a finite number of seconds >= 0", g.DurationS)
	}
	return nil
}

// FoldSingle sets every axis with one value (except the seed axis) on Base
// and drops it from Axes: a key given one value is a setting, not a sweep.
func (g *Grid) FoldSingle() error {
	axes := g.Axes[:0:0]
	for _, a := range g.Axes {
		if len(a.Values) == 1 && a.Key != KeySeed {
			if err := a.apply(&g.Base, a.Values[0]); err != nil {
				return err
			}
			continue
		}
		axes = append(axes, a)
	}
	g.Axes = axes
	return nil
}

// Point returns point i (0 <= i < Size()).
func (g *Grid) Point(i int) Point {
	p := Point{Index: i, Values: make([]string, len(g.Axes))}
	for k := len(g.Axes) - 1; k >= 0; k-- {
		n := len(g.Axes[k].Values)
		p.Values[k] = g.Axes[k].Values[i%n]
		i /= n
	}
	return p
}

// Label is the point's keys as "key=value key=value" (empty for a grid
// without axes).
func (g *Grid) Label(p Point) string {
	parts := make([]string, len(g.Axes))
	for k, a := range g.Axes {
		parts[k] = a.Key + "=" + p.Values[k]
	}
	return strings.Join(parts, " ")
}

// Config returns the point's scenario: Base with the point's values set.
// The result shares nothing with Base. It is not validated.
func (g *Grid) Config(p Point) (sim.Config, error) {
	cfg := g.Base
	cfg.Pools = append([]sim.PoolConfig(nil), g.Base.Pools...)
	for k, a := range g.Axes {
		if err := a.apply(&cfg, p.Values[k]); err != nil {
			return cfg, err
		}
	}
	setDuration(&cfg, g.DurationS)
	return cfg, nil
}

// MaxDurationRequests bounds the requests a duration asks for at one point.
const MaxDurationRequests = 1 << 31

// setDuration sets cfg's request count to cover d simulated seconds at its
// rate (no-op for d = 0).
func setDuration(cfg *sim.Config, d float64) {
	if d > 0 && cfg.Workload.Rate > 0 {
		cfg.Workload.Requests = int(min(math.Ceil(cfg.Workload.Rate*d), MaxDurationRequests))
	}
}

// Validate builds and validates every point's configuration (without
// running it) and returns the first problem, prefixed with the point's
// label, so a bad grid fails before any simulation starts.
func (g *Grid) Validate() error {
	if err := g.Check(); err != nil {
		return err
	}
	for i := range g.Size() {
		p := g.Point(i)
		cfg, err := g.Config(p)
		if err == nil {
			err = cfg.Validate()
		}
		if err != nil {
			if l := g.Label(p); l != "" {
				return fmt.Errorf("point %d (%s): %w", i, l, err)
			}
			return err
		}
	}
	return nil
}
