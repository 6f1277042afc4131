package papercompat

import (
	"math"
	"testing"

	"github.com/fleetsim/fleetsim/pools/catalog"
	"github.com/fleetsim/fleetsim/pools/fleetopt"
	"github.com/fleetsim/fleetsim/workload"
)

func a100(t *testing.T) catalog.GPU {
	t.Helper()
	g, err := catalog.LookupGPU("a100")
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func cfgFor(t *testing.T, wl string, rate float64, b int, pc float64) Config {
	t.Helper()
	cdf, err := workload.LoadCDF(wl)
	if err != nil {
		t.Fatal(err)
	}
	return Config{CDF: cdf, Rate: rate, BShort: b, Gamma: 1.5, PC: pc, ShortGPU: a100(t)}
}

// TestTable3 reproduces FleetOpt (arXiv 2603.16514) Table 3 cell for cell:
// homogeneous total, PR, PR + C&R (γ 1.5) and FleetOpt (n_s, n_l, γ*), and
// annual cost in K$ (rounded as printed), at λ = 1,000 req/s.
func TestTable3(t *testing.T) {
	for _, c := range []struct {
		wl              string
		b               int
		pc              float64
		homo            int
		pr, retro, fo   [2]int
		gamma           float64
		homoK, prK, foK float64
	}{
		{"azure", 4096, 1, 284, [2]int{43, 131}, [2]int{47, 45}, [2]int{48, 2}, 2.0, 5498, 3369, 968},
		{"lmsys", 1536, 1, 139, [2]int{7, 74}, [2]int{7, 65}, [2]int{7, 52}, 2.0, 2691, 1568, 1142},
		{"agent-heavy", 8192, 0.75, 2397, [2]int{229, 2037}, [2]int{255, 1981}, [2]int{255, 1981}, 1.5, 46405, 43869, 43288},
	} {
		p, err := Plan(cfgFor(t, c.wl, 1000, c.b, c.pc), fleetopt.Methods())
		if err != nil {
			t.Fatal(err)
		}
		h, pr, re, fo := p.Methods[0], p.Methods[1], p.Methods[2], p.Methods[3]
		if h.TotalGPUs != c.homo || math.Round(h.AnnualUSD/1000) != c.homoK {
			t.Errorf("%s homogeneous %d GPUs $%.0fK, paper %d $%.0fK", c.wl, h.TotalGPUs, h.AnnualUSD/1000, c.homo, c.homoK)
		}
		for _, m := range []struct {
			name string
			mp   fleetopt.MethodPlan
			want [2]int
		}{{"PR", pr, c.pr}, {"retrofit", re, c.retro}, {"FleetOpt", fo, c.fo}} {
			got := [2]int{m.mp.Pools[0].GPUs, 0}
			if len(m.mp.Pools) > 1 {
				got[1] = m.mp.Pools[1].GPUs
			}
			if got != m.want {
				t.Errorf("%s %s: %v, paper %v", c.wl, m.name, got, m.want)
			}
		}
		if fo.Gamma != c.gamma {
			t.Errorf("%s γ* %v, paper %v", c.wl, fo.Gamma, c.gamma)
		}
		if math.Round(pr.AnnualUSD/1000) != c.prK || math.Round(fo.AnnualUSD/1000) != c.foK {
			t.Errorf("%s cost PR $%.0fK FleetOpt $%.0fK, paper %.0f, %.0f", c.wl, pr.AnnualUSD/1000, fo.AnnualUSD/1000, c.prK, c.foK)
		}
	}
}

// TestTable6 reproduces FleetOpt Table 6 (agent-heavy, B = 8,192, p_c =
// 0.75): homogeneous, PR and FleetOpt GPUs and γ* at five rates.
func TestTable6(t *testing.T) {
	for _, c := range []struct {
		rate         float64
		homo, pr, fo int
		gamma        float64
	}{
		{100, 240, 227, 225, 1.2}, {200, 480, 454, 448, 1.5}, {500, 1199, 1134, 1119, 1.5},
		{1000, 2397, 2266, 2236, 1.5}, {2000, 4794, 4531, 4470, 1.5},
	} {
		p, err := Plan(cfgFor(t, "agent-heavy", c.rate, 8192, 0.75), []string{fleetopt.MethodHomo, fleetopt.MethodPR, fleetopt.MethodFleetOpt})
		if err != nil {
			t.Fatal(err)
		}
		if got := [3]int{p.Methods[0].TotalGPUs, p.Methods[1].TotalGPUs, p.Methods[2].TotalGPUs}; got != [3]int{c.homo, c.pr, c.fo} || p.Methods[2].Gamma != c.gamma {
			t.Errorf("λ %v: %v γ* %v, paper %v γ* %v", c.rate, got, p.Methods[2].Gamma, [3]int{c.homo, c.pr, c.fo}, c.gamma)
		}
	}
}

// TestTTFT74: FleetOpt §7.4's analytical P99 TTFTs of the PR fleets
// (Azure 20/80 ms, LMSYS 11/48 ms, agent-heavy 47/220 ms) within 0.5 ms:
// Kimura's P99 wait (0 here) plus the mean prefill at t_iter(1) = W + H.
func TestTTFT74(t *testing.T) {
	for _, c := range []struct {
		wl          string
		b           int
		pc          float64
		short, long float64 // ms
	}{{"azure", 4096, 1, 20, 80}, {"lmsys", 1536, 1, 11, 48}, {"agent-heavy", 8192, 0.75, 47, 220}} {
		p, err := Plan(cfgFor(t, c.wl, 1000, c.b, c.pc), []string{fleetopt.MethodPR})
		if err != nil {
			t.Fatal(err)
		}
		s, l := 1000*p.Methods[0].Pools[0].P99TTFTS, 1000*p.Methods[0].Pools[1].P99TTFTS
		if math.Abs(s-c.short) > 0.5 || math.Abs(l-c.long) > 0.5 {
			t.Errorf("%s P99 TTFT %.2f / %.2f ms, paper %v / %v", c.wl, s, l, c.short, c.long)
		}
	}
}

// TestCDFEval: linear interpolation between breakpoints, by hand on
// azure's (4096, 0.8982082668085861) and (6144, 0.9758027319496186).
func TestCDFEval(t *testing.T) {
	cdf, _ := workload.LoadCDF("azure")
	pts := points(cdf)
	want := 0.8982082668085861 + (0.9758027319496186-0.8982082668085861)*1024/2048
	if got := cdfEval(pts, 5120); got != want {
		t.Errorf("F(5120) = %v, want %v", got, want)
	}
	if cdfEval(pts, 0) != 0 || cdfEval(pts, 1<<20) != 1 {
		t.Error("F outside the breakpoints")
	}
}

func TestBadConfig(t *testing.T) {
	c := cfgFor(t, "azure", 1000, 4096, 1)
	for _, mut := range []func(*Config){
		func(c *Config) { c.Rate = 0 }, func(c *Config) { c.BShort = 65536 }, func(c *Config) { c.Gamma = 0.5 },
		func(c *Config) { c.PC = 2 }, func(c *Config) { c.RhoMax = 1 }, func(c *Config) { c.CDF = nil },
		func(c *Config) { c.LongCtx = 8192 }, // azure: 3.5e-5 of the requests are longer
	} {
		cc := c
		mut(&cc)
		if _, err := Plan(cc, fleetopt.Methods()); err == nil {
			t.Errorf("%+v: no error", cc)
		}
	}
}

// TestCalibrateBitForBit: the Azure short pool (B = 4,096) and the γ = 1.5
// long pool calibrate to exactly the doubles of the papers' simulator —
// reference values printed by running vllm-sr-sim's own
// fleet_sim.optimizer.analytical.calibrate (vllm-project/semantic-router
// at commit 3d48f8c9c, src/fleet-sim) under CPython 3.11.7: (μ_gpu, cv2,
// mean prefill) = (24.646750834783195, 1.5124822910113718,
// 0.02015738333333382) and (0.6412740681877808, 0.023894372740787873,
// 0.10147314999999883).
func TestCalibrateBitForBit(t *testing.T) {
	c := cfgFor(t, "azure", 1000, 4096, 1)
	cells, err := Sweep(c, []float64{1.5})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []struct {
		got  Calib
		want [3]float64
	}{
		{cells[0].Short.Calib, [3]float64{24.646750834783195, 1.5124822910113718, 0.02015738333333382}},
		{cells[0].Long.Calib, [3]float64{0.6412740681877808, 0.023894372740787873, 0.10147314999999883}},
	} {
		if got := [3]float64{p.got.MuGPU, p.got.Cs2, p.got.MeanPrefillS}; got != p.want {
			t.Errorf("calibration %v, want %v", got, p.want)
		}
	}
}
