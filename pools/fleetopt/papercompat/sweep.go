package papercompat

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/fleetsim/fleetsim/pools/catalog"
	"github.com/fleetsim/fleetsim/pools/fleetopt"
	"github.com/fleetsim/fleetsim/pools/queueing"
	"github.com/fleetsim/fleetsim/workload"
)

// Config is one papers-compatible planning problem.
type Config struct {
	CDF      *workload.CDF
	Rate     float64     // fleet arrival rate λ, requests/s
	BShort   int         // short-pool boundary and max context, tokens
	Gamma    float64     // retrofit's C&R bandwidth γ (≥ 1)
	PC       float64     // compressibility p_c in [0, 1]
	LongCtx  int         // long and homogeneous pools' max context (0 = 65,536)
	SLO      float64     // P99 TTFT target of the SLO count, s (0 = DefaultSLO)
	RhoMax   float64     // utilization cap (0 = 0.85)
	ShortGPU catalog.GPU // short pool (and homogeneous pool unless LongGPU)
	LongGPU  catalog.GPU // long and homogeneous pools
}

func (c *Config) defaults() error {
	if c.LongCtx == 0 {
		c.LongCtx = fleetopt.DefaultLongCtx
	}
	if c.SLO == 0 {
		c.SLO = DefaultSLO
	}
	if c.RhoMax == 0 {
		c.RhoMax = queueing.DefaultRhoMax
	}
	if c.LongGPU.Name == "" {
		c.LongGPU = c.ShortGPU
	}
	switch {
	case c.CDF == nil:
		return errors.New("papercompat: no CDF")
	case !(c.Rate > 0 && c.Rate <= fleetopt.MaxRate):
		return fmt.Errorf("rate %v: must be in (0, %g]", c.Rate, fleetopt.MaxRate)
	case c.BShort < 1 || c.BShort >= c.LongCtx:
		return fmt.Errorf("b-short %d: must be in [1, %d) (the long context)", c.BShort, c.LongCtx)
	case !(c.Gamma >= 1) || c.Gamma > 1000:
		return fmt.Errorf("gamma %v: must be in [1, 1000]", c.Gamma)
	case !(c.PC >= 0 && c.PC <= 1):
		return fmt.Errorf("p-c %v: must be in [0, 1]", c.PC)
	case !(c.RhoMax > 0 && c.RhoMax < 1):
		return fmt.Errorf("rho-max %v: must be in (0, 1)", c.RhoMax)
	case !(c.SLO > 0) || math.IsInf(c.SLO, 0):
		return fmt.Errorf("slo-ttft-p99 %v s: must be positive", c.SLO)
	case cdfEval(points(c.CDF), c.LongCtx) < 1:
		return fmt.Errorf("long-ctx %d: %.3g of the CDF's requests are longer; the papers-compatible mode needs every length within the long context",
			c.LongCtx, 1-cdfEval(points(c.CDF), c.LongCtx))
	case c.ShortGPU.Slots(c.BShort) < 1:
		return fmt.Errorf("b-short %d: no sequence of that length fits one %s", c.BShort, c.ShortGPU.Name)
	case c.LongGPU.Slots(c.LongCtx) < 1:
		return fmt.Errorf("long-ctx %d: no sequence of that length fits one %s", c.LongCtx, c.LongGPU.Name)
	}
	return nil
}

// Gammas is the optimizer's γ grid: 1.0, 1.1, …, 2.0 (each the double
// nearest the decimal, as Python's round(1.0 + 0.1·k, 1) gives).
func Gammas() []float64 {
	g := make([]float64, 11)
	for k := range g {
		g[k] = float64(10+k) / 10
	}
	return g
}

// Pool is one pool of a cell.
type Pool struct {
	Calib
	Lambda   float64 // arrival rate, requests/s
	GPUs     int
	P99WaitS float64 // Kimura P99 slot wait at GPUs, s
	P99TTFTS float64 // P99WaitS + MeanPrefillS, s (the papers' §7.4 convention)
}

// Cell is one γ of the sweep at the fixed B.
type Cell struct {
	Gamma       float64
	Alpha       float64 // F(B), interpolated
	Beta        float64 // max(0, F(⌊γB⌋) − F(B))
	AlphaPrime  float64 // min(1, α + β·p_c)
	Short, Long Pool    // Long.GPUs = 0 when its traffic is at most MinLongRate
	LongSlice   bool    // the long pool was calibrated (false: fleet_sim's placeholder moments)
	CostPerHour float64 // USD
}

// TotalGPUs is the cell's fleet size.
func (c Cell) TotalGPUs() int { return c.Short.GPUs + c.Long.GPUs }

// sizer holds what every cell of one (config, B) shares.
type sizer struct {
	cfg   Config
	pts   []point
	b     int
	alpha float64
	short Calib
}

func newSizer(cfg Config, b int, shortGPU catalog.GPU) sizer {
	pts := points(cfg.CDF)
	return sizer{cfg: cfg, pts: pts, b: b, alpha: cdfEval(pts, b), short: calibrate(shortSlice(pts, b), b, shortGPU, 1)}
}

func (s sizer) cell(gamma float64, shortGPU catalog.GPU) Cell {
	cfg := s.cfg
	gb := int(gamma * float64(s.b))
	fg := cdfEval(s.pts, gb)
	beta := math.Max(0, fg-s.alpha)
	ap := math.Min(1, s.alpha+beta*cfg.PC)
	c := Cell{Gamma: gamma, Alpha: s.alpha, Beta: beta, AlphaPrime: ap}
	lamS, lamL := ap*cfg.Rate, (1-ap)*cfg.Rate
	c.Short = Pool{Calib: s.short, Lambda: lamS}
	c.Short.GPUs = minGPUs(lamS, s.short.MuGPU, cfg.SLO, s.short.Cs2, cfg.RhoMax, s.short.Slots)
	c.Short.P99WaitS = p99Wait(c.Short.GPUs*s.short.Slots, lamS, s.short.MuGPU/float64(s.short.Slots), s.short.Cs2)
	c.Short.P99TTFTS = c.Short.P99WaitS + s.short.MeanPrefillS
	long := Calib{Slots: 1, MuGPU: 0.01, Cs2: 1}
	if sl := longSlice(s.pts, gb); sl != nil {
		long = calibrate(sl, cfg.LongCtx, cfg.LongGPU, max(1, gb))
		c.LongSlice = true
	}
	c.Long = Pool{Calib: long, Lambda: lamL}
	if lamL > MinLongRate {
		c.Long.GPUs = minGPUs(lamL, long.MuGPU, cfg.SLO, long.Cs2, cfg.RhoMax, long.Slots)
		c.Long.P99WaitS = p99Wait(c.Long.GPUs*long.Slots, lamL, long.MuGPU/float64(long.Slots), long.Cs2)
		c.Long.P99TTFTS = c.Long.P99WaitS + long.MeanPrefillS
	}
	c.CostPerHour = float64(c.Short.GPUs)*shortGPU.CostPerHour + float64(c.Long.GPUs)*cfg.LongGPU.CostPerHour
	return c
}

// Sweep sizes the fleet at B = cfg.BShort for every γ, in the order given
// (nil = Gammas()).
func Sweep(cfg Config, gammas []float64) ([]Cell, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	if gammas == nil {
		gammas = Gammas()
	}
	s := newSizer(cfg, cfg.BShort, cfg.ShortGPU)
	out := make([]Cell, len(gammas))
	for i, g := range gammas {
		out[i] = s.cell(g, cfg.ShortGPU)
	}
	return out, nil
}

// Best returns the cheapest cell; among equal costs the first in sweep
// order (fleet_sim sorts its cells by cost with Python's stable sort).
func Best(cells []Cell) Cell {
	idx := make([]int, len(cells))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return cells[idx[a]].CostPerHour < cells[idx[b]].CostPerHour })
	return cells[idx[0]]
}

// Homogeneous sizes the single pool at the long context on the long GPU
// (fleet_sim's baseline: the optimizer with B = the long context, γ = 1).
func Homogeneous(cfg Config) (Pool, error) {
	if err := cfg.defaults(); err != nil {
		return Pool{}, err
	}
	s := newSizer(cfg, cfg.LongCtx, cfg.LongGPU)
	return s.cell(1, cfg.LongGPU).Short, nil
}
