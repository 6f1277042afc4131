package sweep

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/fleetsim/fleetsim/sim"
	"github.com/fleetsim/fleetsim/sim/osd"
)

// smallBase is a two-pool scenario small enough for unit tests.
func smallBase() sim.Config {
	c := sim.PapersDefaults() // kv timing: the tests' rates and capacities were set under it
	c.Workload.Requests = 400
	c.Pools = []sim.PoolConfig{
		{Name: "short", GPU: "a100", Count: 2, MaxContext: 4096},
		{Name: "long", GPU: "a100", Count: 4, MaxContext: 65536},
	}
	return c
}

func mustAxis(t *testing.T, key, spec string) Axis {
	t.Helper()
	a, err := ParseAxis(key, spec)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestGridPoints(t *testing.T) {
	g := &Grid{Base: smallBase(), Axes: []Axis{
		mustAxis(t, "rate", "10,20"), mustAxis(t, "count.long", "4,8,16"), mustAxis(t, "seed", "7"),
	}}
	if g.Size() != 6 {
		t.Fatalf("size %d, want 6", g.Size())
	}
	// Row-major: the last axis varies fastest.
	p := g.Point(4)
	if got := g.Label(p); got != "rate=20 count.long=8 seed=7" {
		t.Errorf("point 4 is %q", got)
	}
	cfg, err := g.Config(p)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Workload.Rate != 20 || cfg.Pools[1].Count != 8 || cfg.Pools[0].Count != 2 || cfg.Seed != 7 {
		t.Errorf("point 4's config: rate %v, counts %d/%d, seed %d", cfg.Workload.Rate, cfg.Pools[0].Count, cfg.Pools[1].Count, cfg.Seed)
	}
	if g.Base.Pools[1].Count != 4 {
		t.Error("Config changed the base's pools")
	}
	g.DurationS = 30
	cfg, _ = g.Config(p)
	if cfg.Workload.Requests != 600 { // ceil(20 req/s × 30 s)
		t.Errorf("requests %d with a 30 s duration at 20 req/s, want 600", cfg.Workload.Requests)
	}
	if err := g.Validate(); err != nil {
		t.Errorf("Validate: %v", err)
	}
}

func TestGridValidateErrors(t *testing.T) {
	for _, tc := range []struct {
		axes []Axis
		want string
	}{
		{[]Axis{{Key: "count.medium", Values: []string{"2"}}}, `no pool named "medium"`},
		{[]Axis{{Key: "gpu", Values: []string{"a10g"}}}, "pools[1].max_ctx"}, // an A10G cannot hold 65,536 tokens
		{[]Axis{{Key: "router", Values: []string{"magic"}}}, "router.kind"},
		{[]Axis{{Key: "count", Values: []string{"1"}}, {Key: "count.long", Values: []string{"2"}}}, "not both"},
		{[]Axis{{Key: "rate", Values: []string{"1"}}, {Key: "rate", Values: []string{"2"}}}, "given twice"},
	} {
		g := &Grid{Base: smallBase(), Axes: tc.axes}
		err := g.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: Validate = %v, want %q", tc.axes, err, tc.want)
		}
	}
}

// rowsEqual compares rows, NaN equal to NaN.
func rowsEqual(a, b []Row) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if math.IsNaN(x.OSD.AtS) && math.IsNaN(y.OSD.AtS) {
			x.OSD.AtS, y.OSD.AtS = 0, 0
		}
		if !reflect.DeepEqual(x, y) {
			return false
		}
	}
	return true
}

func TestRunDeterministicAcrossWorkers(t *testing.T) {
	g := &Grid{Base: smallBase(), Axes: []Axis{mustAxis(t, "rate", "20,40,80"), mustAxis(t, "seed", "1,2")}}
	one, err := Run(g, Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	many, err := Run(g, Options{Workers: 4})
	if err != nil {
		t.Fatal(err)
	}
	r1, r4 := Rows(one), Rows(many)
	if len(r1) != 6*3 { // 6 points × (fleet + 2 pools)
		t.Fatalf("%d rows, want 18", len(r1))
	}
	if !rowsEqual(r1, r4) {
		t.Error("1 worker and 4 workers give different rows")
	}
	// A point equals the same scenario run alone (its seed is its own).
	alone, err := Run(&Grid{Base: func() sim.Config { c := smallBase(); c.Workload.Rate, c.Seed = 40, 2; return c }()}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	a := Rows(alone)
	for i := range a {
		a[i].Point, a[i].Label, a[i].Values = r1[3*3+i].Point, r1[3*3+i].Label, r1[3*3+i].Values
	}
	if !rowsEqual(a, r1[9:12]) {
		t.Error("point 3 (rate=40 seed=2) differs from the same scenario run alone")
	}
}

func TestShardsUnionEqualsGrid(t *testing.T) {
	g := &Grid{Base: smallBase(), Axes: []Axis{mustAxis(t, "rate", "20,40,80"), mustAxis(t, "count.short", "1,2")}}
	all, err := Run(g, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := Rows(all)
	byPoint := map[int][]Row{}
	for n := 1; n <= 4; n++ {
		clear(byPoint)
		for i := range n {
			res, err := Run(g, Options{Shard: Shard{i, n}})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range Rows(res) {
				if byPoint[r.Point] != nil && r.Fleet {
					t.Fatalf("N=%d: point %d in two shards", n, r.Point)
				}
				byPoint[r.Point] = append(byPoint[r.Point], r)
			}
		}
		var got []Row
		for p := range g.Size() {
			got = append(got, byPoint[p]...)
		}
		if !rowsEqual(got, want) {
			t.Errorf("N=%d: the union of the shards differs from the whole grid", n)
		}
	}
}

// rateDetector fires when the offered rate exceeds limit: a detector whose
// boundary is known exactly.
type rateDetector struct{ limit float64 }

func (d rateDetector) Begin(_ *sim.Config, _ *sim.Options, sink sim.Sink, _ bool) (sim.Sink, VerdictFunc) {
	return sink, func(s *sim.Summary) (Verdict, []Verdict) {
		v := Verdict{Fired: s.Config.Workload.Rate > d.limit, AtS: math.NaN()}
		if v.Fired {
			v.AtS = 1
		}
		return v, make([]Verdict, len(s.Pools))
	}
}

func TestFindMaxRateBracketsTheBoundary(t *testing.T) {
	base := smallBase()
	base.Pools = base.Pools[:1]
	base.Workload.CDF = "lmsys"
	for _, limit := range []float64{0.7, 33.3} { // below the first probe, between probes
		res, err := FindMaxRate(base, []uint64{1, 2}, MaxRateOptions{DurationS: 5, RelTol: 0.01, Detector: rateDetector{limit}, SaturationRequests: 300})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range res {
			if !(m.Held <= limit && m.Fired > limit && m.Fired-m.Held <= 0.01*m.Fired) {
				t.Errorf("limit %v seed %d: held %v, fired %v: not a 1%% bracket of the limit", limit, m.Seed, m.Held, m.Fired)
			}
			if m.FiredAtS != 1 {
				t.Errorf("limit %v: fired at %v, want the detector's 1 s", limit, m.FiredAtS)
			}
		}
	}
}

// TestMaxRateNextExtends: while nothing fired the search doubles the
// highest rate run, at most MaxExtend times, then gives up (Fired = +Inf).
func TestMaxRateNextExtends(t *testing.T) {
	m := MaxRate{Probes: []Probe{{Phase: "saturate", RateRPS: saturationRate}, {Phase: "sweep", RateRPS: 5}, {Phase: "sweep", RateRPS: 10}}}
	for k := range MaxExtend {
		j, ok := m.next(0.01, k)
		if want := 10 * math.Pow(2, float64(k+1)); !ok || j.phase != "extend" || j.rate != want {
			t.Fatalf("step %d: next = %+v, %v; want extend to %v", k, j, ok, want)
		}
		m.Probes = append(m.Probes, Probe{Phase: "extend", RateRPS: j.rate})
	}
	if j, ok := m.next(0.01, MaxExtend); ok {
		t.Errorf("after %d doublings next = %+v, want none", MaxExtend, j)
	}
	m.bracket()
	if !math.IsInf(m.Fired, 1) || m.Held != 10240 {
		t.Errorf("held %v fired %v, want 10240 and +Inf", m.Held, m.Fired)
	}
}

func TestRoundRate(t *testing.T) {
	for _, tc := range []struct{ r, step, want float64 }{
		{12.4999871, 0.1, 12.5},
		{12.4999871, 0.13, 12.5},
		{13.0625, 0.01, 13.06},
		{1234.5, 12, 1230},
		{0.3, 0, 0.3},
	} {
		if got := roundRate(tc.r, tc.step); got != tc.want {
			t.Errorf("roundRate(%v, %v) = %v, want %v", tc.r, tc.step, got, tc.want)
		}
	}
}

// Issue 20 item 4: a probe too short for the simulator's detector to
// decide is refused (it reported "held at 14950.4 req/s" at 1e-9 s), the
// minimum coming from the detector's own settings (guidellm's defaults:
// 2 × 30 s); with the detector off the search cannot run.
func TestFindMaxRateRefusesUndecidableProbes(t *testing.T) {
	base := sim.Defaults()
	base.Pools = []sim.PoolConfig{{Name: "a", GPU: "a10g", Count: 1, MaxContext: 2048}}
	base.Timing = "kv"
	for _, d := range []float64{1e-9, 59.9} {
		if _, err := FindMaxRate(base, []uint64{1}, MaxRateOptions{DurationS: d}); err == nil || !strings.Contains(err.Error(), "cannot be decided") {
			t.Errorf("duration %g: err %v", d, err)
		}
	}
	short := base
	short.OSD.Params = &osd.Config{MinimumDuration: 5, MinimumTTFT: 2.5, MaximumWindowSeconds: 120, MOEThreshold: 2, MaximumWindowRatio: 0.75, MinimumWindowSize: 5, Confidence: 0.95, Eps: 1e-12}
	if got := MinProbeDurationS(*short.OSD.Params); got != 10 {
		t.Errorf("min probe %g s, want 2 × max(5, 2.5, 5) = 10", got)
	}
	// Every parameter 0 (allowed by osd.Config) still leaves a probe of
	// 1e-9 s one request long: it reported "held at 14950.4 req/s; fired by
	// +Inf" (rev-planner). The floor is 2 × 1 s.
	zero := base
	zero.OSD.Params = &osd.Config{MaximumWindowSeconds: 120, MOEThreshold: 2, MaximumWindowRatio: 0.75, Confidence: 0.95, Eps: 1e-12}
	if got := MinProbeDurationS(*zero.OSD.Params); got != 2 {
		t.Errorf("min probe with zero parameters %g s, want 2", got)
	}
	if _, err := FindMaxRate(zero, []uint64{1}, MaxRateOptions{DurationS: 1e-9}); err == nil || !strings.Contains(err.Error(), "cannot be decided") {
		t.Errorf("zero parameters, duration 1e-9: err %v", err)
	}
	off := base
	off.OSD.Mode = sim.OSDOff
	if _, err := FindMaxRate(off, []uint64{1}, MaxRateOptions{DurationS: 300}); err == nil || !strings.Contains(err.Error(), "osd.mode off") {
		t.Errorf("osd off: err %v", err)
	}
}
