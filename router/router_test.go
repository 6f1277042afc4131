package router

import (
	"math"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/fleetsim/fleetsim/workload"
)

// twoPools is the FleetOpt Azure configuration: a 4K short pool and a 64K
// long pool (FleetOpt Table 2, C_max^(l) = 65,536).
var twoPools = []Pool{
	{Name: "short", MaxContext: 4096, GPUs: 4, Slots: 128},
	{Name: "long", MaxContext: 65536, GPUs: 2, Slots: 16},
}

var threePools = []Pool{
	{Name: "s", MaxContext: 4096, GPUs: 4, Slots: 128},
	{Name: "m", MaxContext: 16384, GPUs: 2, Slots: 64},
	{Name: "l", MaxContext: 65536, GPUs: 1, Slots: 16},
}

func mustNew(t testing.TB, cfg Config, pools []Pool, seed uint64) Router {
	t.Helper()
	r, err := New(cfg, pools, seed)
	if err != nil {
		t.Fatalf("New(%+v): %v", cfg, err)
	}
	return r
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name  string
		cfg   Config
		pools []Pool
		want  string // substring of the error; "" means valid
	}{
		{"defaults length", Config{}, twoPools, ""},
		{"defaults cr", Config{Kind: "cr", BShort: 4096, Gamma: 1.5, PC: 1}, twoPools, ""},
		{"unknown kind", Config{Kind: "fastest"}, twoPools, `kind = "fastest"`},
		{"gamma below 1", Config{Kind: "cr", Gamma: 0.8}, twoPools, "gamma = 0.8"},
		{"gamma NaN", Config{Kind: "cr", Gamma: math.NaN()}, twoPools, "gamma = NaN"},
		{"p_c above 1", Config{Kind: "cr", PC: 1.2}, twoPools, "p_c = 1.2"},
		{"p_c negative", Config{Kind: "cr", PC: -0.1}, twoPools, "p_c = -0.1"},
		{"b_short above short ctx", Config{Kind: "token-budget", BShort: 8192}, twoPools, "b_short = 8192"},
		{"b_short negative", Config{Kind: "token-budget", BShort: -1}, twoPools, "b_short = -1"},
		{"ema decay 1", Config{Kind: "token-budget", EMADecay: 1}, twoPools, "ema_decay = 1"},
		{"spill negative", Config{Kind: "spillover", SpillQueuePerGPU: -2}, twoPools, "spill_queue_per_gpu = -2"},
		{"kv occupancy above 1", Config{Kind: "spillover", SpillKVOccupancy: 1.5}, twoPools, "spill_kv_occupancy = 1.5"},
		{"cold start negative", Config{Kind: "token-budget", ColdStart: -4}, twoPools, "cold_start = -4"},
		{"min obs negative", Config{Kind: "token-budget", MinObservations: -1}, twoPools, "min_observations = -1"},
		{"code compressible", Config{Kind: "cr", Compressible: []workload.Category{workload.Prose, workload.Code}}, twoPools, "code is never compressible"},
		{"latency p99 < p50", Config{Kind: "cr", CompressP50S: 0.002, CompressP99S: 0.001}, twoPools, "compress_p99_s = 0.001"},
		{"no pools", Config{Kind: "cr"}, nil, "pools: none"},
		{"unsorted pools", Config{Kind: "token-budget"}, []Pool{twoPools[1], twoPools[0]}, "sorted by max context"},
		{"zero gpus", Config{Kind: "token-budget"}, []Pool{{Name: "x", MaxContext: 10, GPUs: 0}}, "gpus = 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.Validate(tt.pools)
			_, nerr := New(tt.cfg, tt.pools, 1)
			if tt.want == "" {
				if err != nil || nerr != nil {
					t.Fatalf("Validate = %v, New = %v; want nil", err, nerr)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Validate = %v; want an error containing %q", err, tt.want)
			}
			if nerr == nil {
				t.Fatalf("New accepted a config Validate rejects")
			}
		})
	}
}

func TestEstimatorColdStartAndConvergence(t *testing.T) {
	e := NewEstimator(0.95, 1, 4.0, 10)
	// Cold start: 4.0 bytes/token (token-budget paper §2.1), 4000 bytes -> 1000 tokens.
	if got := e.InputTokens(workload.CJK, 4000); got != 1000 {
		t.Fatalf("cold-start estimate = %d; want 1000", got)
	}
	// Nine exact CJK observations (2.01 bytes/token): still below
	// MinObservations, so the router keeps the cold start.
	for i := 0; i < 9; i++ {
		e.Observe(workload.CJK, 2010, 1000)
	}
	if got := e.RouteRatio(workload.CJK); got != 4.0 {
		t.Fatalf("route ratio after 9 observations = %g; want the cold start 4.0", got)
	}
	e.Observe(workload.CJK, 2010, 1000)
	// Bias-corrected EMA of identical observations is exactly that value,
	// and the deviation is 0.
	if got := e.Ratio(workload.CJK); math.Abs(got-2.01) > 1e-12 {
		t.Fatalf("ratio = %g; want 2.01", got)
	}
	if got := e.RouteRatio(workload.CJK); math.Abs(got-2.01) > 1e-12 {
		t.Fatalf("route ratio = %g; want 2.01", got)
	}
	if got := e.InputTokens(workload.CJK, 2010); got != 1000 {
		t.Fatalf("estimate = %d; want 1000", got)
	}
	// Other categories are untouched.
	if got := e.RouteRatio(workload.Prose); got != 4.0 {
		t.Fatalf("prose route ratio = %g; want 4.0", got)
	}
	// Bad feedback is ignored.
	e.Observe(workload.CJK, 0, 10)
	e.Observe(workload.CJK, 10, 0)
	if got := e.Observations(workload.CJK); got != 10 {
		t.Fatalf("observations = %d; want 10", got)
	}
}

func TestEstimatorConservativeBias(t *testing.T) {
	// Alternating observations 3 and 5 bytes/token: mean 4, the prediction
	// error is about 1, so the conservative ratio is about 3 (Eq. 5, γ = 1).
	e := NewEstimator(0.95, 1, 4.0, 1)
	for i := 0; i < 400; i++ {
		c := 3.0
		if i%2 == 1 {
			c = 5.0
		}
		e.Observe(workload.Prose, int(c*1000), 1000)
	}
	if m := e.Ratio(workload.Prose); math.Abs(m-4) > 0.1 {
		t.Errorf("mean = %g; want ≈ 4", m)
	}
	if d := e.Deviation(workload.Prose); math.Abs(d-1) > 0.1 {
		t.Errorf("deviation = %g; want ≈ 1", d)
	}
	if r := e.RouteRatio(workload.Prose); math.Abs(r-3) > 0.15 {
		t.Errorf("route ratio = %g; want ≈ 3", r)
	}
	// The floor: with γ = 10 the ratio would be negative; it stops at ĉ/2.
	e2 := NewEstimator(0.95, 10, 4.0, 1)
	for i := 0; i < 100; i++ {
		e2.Observe(workload.Prose, 3000+2000*(i%2), 1000)
	}
	if r, m := e2.RouteRatio(workload.Prose), e2.Ratio(workload.Prose); r != m/2 {
		t.Errorf("route ratio = %g; want the floor ĉ/2 = %g", r, m/2)
	}
}

// calibrated returns a token-budget router whose estimator has seen n exact
// observations of every category (so its estimates are the truth up to
// rounding).
func calibrated(t testing.TB, cfg Config, pools []Pool, n int) *TokenBudget {
	t.Helper()
	tb := mustNew(t, cfg, pools, 7).(*TokenBudget)
	for k := workload.Category(0); k < workload.NumCategories; k++ {
		for i := 0; i < n; i++ {
			r := workload.Request{Category: k, InputTokens: 1000, Bytes: int(math.Round(1000 * trueRatio[k]))}
			tb.Observe(&r, 1000)
		}
	}
	return tb
}

func TestDispatchThresholds(t *testing.T) {
	tb2 := calibrated(t, Config{Kind: "token-budget", BShort: 3000}, twoPools, 50)
	tb3 := calibrated(t, Config{Kind: "token-budget"}, threePools, 50)
	// Prose at 4.48 bytes/token: Bytes = 4.48·L_in gives an estimate of L_in.
	tests := []struct {
		name     string
		tb       *TokenBudget
		in, out  int
		wantPool int
	}{
		{"2 pools, at b_short", tb2, 2000, 1000, 0},
		{"2 pools, above b_short", tb2, 2001, 1000, 1},
		{"2 pools, above every pool", tb2, 70000, 1000, 1},
		{"3 pools, short", tb3, 3000, 1096, 0},
		{"3 pools, one above short ctx", tb3, 3001, 1096, 1},
		{"3 pools, at middle ctx", tb3, 15384, 1000, 1},
		{"3 pools, above middle ctx", tb3, 15385, 1000, 2},
		{"3 pools, output-heavy", tb3, 200, 8192, 1}, // routes on L_total, not L_in (paper §2.1)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := workload.Request{InputTokens: tt.in, OutputTokens: tt.out, MaxOutputTokens: tt.out,
				Bytes: int(math.Floor(4.48 * float64(tt.in))), Category: workload.Prose}
			d := tt.tb.Route(&r, nil)
			if d.Pool != tt.wantPool {
				t.Fatalf("pool = %d (estimate %d); want %d", d.Pool, d.EstimatedTokens, tt.wantPool)
			}
			if d.EstimatedTokens != tt.in+tt.out {
				t.Fatalf("estimate = %d; want %d", d.EstimatedTokens, tt.in+tt.out)
			}
			if d.Compressed || d.Spilled || d.DelayS != 0 || d.InputTokens != tt.in {
				t.Fatalf("decision %+v: want uncompressed, unspilled", d)
			}
		})
	}
}

func TestDispatchHardConstraintProperty(t *testing.T) {
	// Whatever the estimator has learned and whatever the loads, a request
	// never lands on a pool whose max context is below its estimate unless it
	// was compressed (then it fits b_short) or no pool holds it.
	rng := workload.NewRand(3, workload.StreamLengths)
	for _, kind := range []string{"token-budget", "spillover", "cr"} {
		tb := mustNew(t, Config{Kind: kind, SpillQueuePerGPU: 1}, threePools, 11).(*TokenBudget)
		var r workload.Request
		loads := make([]Load, 3)
		for i := 0; i < 20000; i++ {
			k := workload.Category(rng.IntN(int(workload.NumCategories)))
			makeRequest(&r, rng, int64(i), 1+rng.IntN(80000), k, 0.2)
			for j := range loads {
				loads[j].Queued = rng.IntN(12)
			}
			d := tb.Route(&r, loads)
			if d.Compressed {
				if d.Pool != 0 || d.InputTokens+r.MaxOutputTokens > tb.bShort {
					t.Fatalf("%s: compressed %+v of %+v exceeds b_short", kind, d, r)
				}
			} else if d.EstimatedTokens > threePools[d.Pool].MaxContext && d.Pool != 2 {
				t.Fatalf("%s: estimate %d sent to pool %d (max ctx %d)", kind, d.EstimatedTokens, d.Pool, threePools[d.Pool].MaxContext)
			}
			if d.Spilled && d.Pool != 2 && d.EstimatedTokens > threePools[d.Pool].MaxContext {
				t.Fatalf("%s: spilled to a pool that cannot serve it: %+v", kind, d)
			}
			tb.Observe(&r, r.InputTokens)
		}
	}
}

func TestSpillover(t *testing.T) {
	tb := calibrated(t, Config{Kind: "spillover", SpillQueuePerGPU: 2}, twoPools, 50)
	small := workload.Request{InputTokens: 1000, OutputTokens: 200, MaxOutputTokens: 200, Bytes: 4480, Category: workload.Prose}
	big := workload.Request{InputTokens: 10000, OutputTokens: 200, MaxOutputTokens: 200, Bytes: 44800, Category: workload.Prose}
	// Limits: short pool 2·4 = 8 queued, long pool 2·2 = 4 queued.
	tests := []struct {
		name     string
		r        *workload.Request
		loads    []Load
		wantPool int
		spilled  bool
	}{
		{"short not overloaded", &small, []Load{{Queued: 8}, {Queued: 0}}, 0, false},
		{"short overloaded, long free", &small, []Load{{Queued: 9}, {Queued: 0}}, 1, true},
		{"short overloaded, long overloaded too", &small, []Load{{Queued: 9}, {Queued: 5}}, 0, false},
		{"long overloaded, short cannot serve", &big, []Load{{Queued: 0}, {Queued: 100}}, 1, false},
		{"no loads given", &small, nil, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := tb.Route(tt.r, tt.loads)
			if d.Pool != tt.wantPool || d.Spilled != tt.spilled {
				t.Fatalf("decision %+v; want pool %d spilled %v", d, tt.wantPool, tt.spilled)
			}
		})
	}
	// Long to short spill when the short pool's context holds the request.
	wide := []Pool{{Name: "s", MaxContext: 8192, GPUs: 1}, {Name: "l", MaxContext: 65536, GPUs: 1}}
	tb2 := calibrated(t, Config{Kind: "spillover", BShort: 4096, SpillQueuePerGPU: 2}, wide, 50)
	mid := workload.Request{InputTokens: 5000, OutputTokens: 200, MaxOutputTokens: 200, Bytes: 22400, Category: workload.Prose}
	if d := tb2.Route(&mid, []Load{{Queued: 0}, {Queued: 3}}); d.Pool != 0 || !d.Spilled {
		t.Fatalf("long overloaded, short can serve: %+v; want spill to pool 0", d)
	}
	// KV-occupancy trigger (C&R router with no queue limit).
	tkv := calibrated(t, Config{Kind: "cr", SpillKVOccupancy: 0.9}, twoPools, 50)
	if d := tkv.Route(&small, []Load{{Queued: 100, KVOccupancy: 0.85}, {}}); d.Spilled {
		t.Fatalf("KV 0.85 under limit 0.9 (queue ignored): spilled %+v", d)
	}
	if d := tkv.Route(&small, []Load{{KVOccupancy: 0.95}, {KVOccupancy: 0.5}}); !d.Spilled || d.Pool != 1 {
		t.Fatalf("KV 0.95 over limit 0.9: %+v; want spill to pool 1", d)
	}
	if d := tkv.Route(&small, []Load{{KVOccupancy: 0.95}, {KVOccupancy: 0.97}}); d.Spilled {
		t.Fatalf("both pools over the KV limit: spilled %+v", d)
	}
	// The token-budget kind never spills.
	tb3 := calibrated(t, Config{Kind: "token-budget", SpillQueuePerGPU: 2}, twoPools, 50)
	if d := tb3.Route(&small, []Load{{Queued: 100}, {Queued: 0}}); d.Spilled || d.Pool != 0 {
		t.Fatalf("token-budget spilled: %+v", d)
	}
}

func TestCompressAndRoute(t *testing.T) {
	cfg := Config{Kind: "cr", BShort: 4096, Gamma: 1.5, PC: 1}
	tb := calibrated(t, cfg, twoPools, 50)
	mk := func(in, out int, k workload.Category) *workload.Request {
		return &workload.Request{InputTokens: in, OutputTokens: out, MaxOutputTokens: out,
			Bytes: int(math.Round(trueRatio[k] * float64(in))), Category: k}
	}
	tests := []struct {
		name       string
		r          *workload.Request
		compressed bool
		wantPool   int
		wantIn     int
	}{
		{"below b_short", mk(3000, 1000, workload.Prose), false, 0, 3000},
		{"in band, prose", mk(4000, 1000, workload.Prose), true, 0, 3096},
		{"in band, rag", mk(4000, 1000, workload.RAG), true, 0, 3096},
		{"in band, mixed", mk(4000, 1000, workload.Mixed), true, 0, 3096},
		{"in band, code", mk(4000, 1000, workload.Code), false, 1, 4000},
		{"in band, cjk (not in the default gate)", mk(4000, 1000, workload.CJK), false, 1, 4000},
		{"top of band", mk(5144, 1000, workload.Prose), true, 0, 3096},
		{"above band", mk(5145, 1000, workload.Prose), false, 1, 5145},
		{"output alone fills b_short", mk(100, 4096, workload.Prose), false, 1, 100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := tb.Route(tt.r, nil)
			if d.Compressed != tt.compressed || d.Pool != tt.wantPool || d.InputTokens != tt.wantIn {
				t.Fatalf("decision %+v; want compressed %v pool %d input %d", d, tt.compressed, tt.wantPool, tt.wantIn)
			}
			if d.Compressed {
				if d.DelayS <= 0 || d.DelayS > 1 {
					t.Fatalf("delay %g s; want a compression latency", d.DelayS)
				}
				if d.InputTokens+tt.r.OutputTokens > 4096 {
					t.Fatalf("compressed request overflows b_short")
				}
			} else if d.DelayS != 0 {
				t.Fatalf("uncompressed request delayed %g s", d.DelayS)
			}
		})
	}
}

// TestCRNoOverflowEvenWhenTheEstimateIsWrong sends requests whose byte
// lengths badly mislead the estimator (ratios from 0.5 to 3x the truth):
// every compressed request still satisfies L_in' + L_out ≤ B_short ≤ the
// short pool's max context.
func TestCRNoOverflowEvenWhenTheEstimateIsWrong(t *testing.T) {
	rng := workload.NewRand(5, workload.StreamLengths)
	tb := mustNew(t, Config{Kind: "cr", Gamma: 2, PC: 1}, twoPools, 5).(*TokenBudget)
	n := 0
	for i := 0; i < 50000; i++ {
		in := 1 + rng.IntN(20000)
		out := 1 + rng.IntN(3000)
		r := workload.Request{InputTokens: in, OutputTokens: out, MaxOutputTokens: out + rng.IntN(500),
			Bytes: int(float64(in) * (0.5 + 3*rng.Float64())), Category: workload.Category(rng.IntN(int(workload.NumCategories)))}
		d := tb.Route(&r, nil)
		if d.Compressed {
			n++
			if r.Category == workload.Code {
				t.Fatalf("code compressed: %+v", r)
			}
			if d.InputTokens+r.OutputTokens > twoPools[0].MaxContext {
				t.Fatalf("overflow: %+v -> %+v", r, d)
			}
		}
		if i%3 == 0 {
			tb.Observe(&r, in)
		}
	}
	if n == 0 {
		t.Fatal("nothing compressed: the test did not exercise C&R")
	}
}

func TestCRSuccessProbabilityAndLatency(t *testing.T) {
	cfg := Config{Kind: "cr", PC: 0.3, CompressP50S: 0.002, CompressP99S: 0.006}
	tb := calibrated(t, cfg, twoPools, 50)
	r := workload.Request{InputTokens: 4000, OutputTokens: 500, MaxOutputTokens: 500, Bytes: 17920, Category: workload.Prose}
	const n = 100000
	var delays []float64
	for i := 0; i < n; i++ {
		if d := tb.Route(&r, nil); d.Compressed {
			delays = append(delays, d.DelayS)
		}
	}
	// Binomial(100000, 0.3): sd = 0.00145; 5 sd.
	if f := float64(len(delays)) / n; math.Abs(f-0.3) > 0.0073 {
		t.Errorf("compressed fraction = %.4f; want 0.3 ± 0.0073", f)
	}
	sort.Float64s(delays)
	p50 := delays[len(delays)/2]
	p99 := delays[len(delays)*99/100]
	if math.Abs(p50/0.002-1) > 0.03 || math.Abs(p99/0.006-1) > 0.06 {
		t.Errorf("latency p50 = %.5f s, p99 = %.5f s; want 0.002, 0.006", p50, p99)
	}
}

func TestDeterministic(t *testing.T) {
	run := func(seed uint64) []Decision {
		tb := mustNew(t, Config{Kind: "cr", PC: 0.5, SpillQueuePerGPU: 3}, twoPools, seed).(*TokenBudget)
		rng := workload.NewRand(9, workload.StreamLengths)
		var out []Decision
		var r workload.Request
		for i := 0; i < 5000; i++ {
			makeRequest(&r, rng, int64(i), 3000+rng.IntN(4000), workload.Prose, 0.05)
			out = append(out, tb.Route(&r, []Load{{Queued: rng.IntN(20)}, {Queued: rng.IntN(5)}}))
			tb.Observe(&r, r.InputTokens)
		}
		return out
	}
	a, b, c := run(1), run(1), run(2)
	if !slices.Equal(a, b) {
		t.Fatal("same seed gave different decisions")
	}
	if slices.Equal(a, c) {
		t.Fatal("different seeds gave identical decisions (C&R draws not seeded?)")
	}
}

func TestLengthKind(t *testing.T) {
	rt := mustNew(t, Config{}, twoPools, 1)
	if _, ok := rt.(*Length); !ok {
		t.Fatalf("kind \"\" gave %T; want *Length", rt)
	}
	r := workload.Request{InputTokens: 4000, OutputTokens: 96, MaxOutputTokens: 96}
	if d := rt.Route(&r, nil); d.Pool != 0 {
		t.Fatalf("length router: %+v; want pool 0", d)
	}
}

func TestMissingBytesFallsBackToPromptLength(t *testing.T) {
	tb := mustNew(t, Config{Kind: "token-budget"}, twoPools, 1).(*TokenBudget)
	r := workload.Request{InputTokens: 3000, OutputTokens: 50}
	if got := tb.Estimate(&r); got != 3050 {
		t.Fatalf("estimate = %d; want L_in + L_out = 3050", got)
	}
}

// TestCRBandTopUsesUnbiasedEstimate: near γ·B_short the band test uses the
// unbiased ratio ĉ, the thresholds the conservative c* = ĉ − σ̂.
func TestCRBandTopUsesUnbiasedEstimate(t *testing.T) {
	tb := mustNew(t, Config{Kind: "cr", BShort: 4096, Gamma: 1.5, PC: 1}, twoPools, 1).(*TokenBudget)
	// Observations alternating 4 and 5 bytes/token: ĉ ≈ 4.5, σ̂ ≈ 0.5.
	for i := 0; i < 400; i++ {
		r := workload.Request{Category: workload.Prose, InputTokens: 1000, Bytes: 4000 + 1000*(i%2)}
		tb.Observe(&r, 1000)
	}
	e := tb.Estimator()
	mean := e.Ratio(workload.Prose)
	// A prompt whose unbiased estimate is 5,000 tokens (+ 1,000 output =
	// 6,000 ≤ 6,144) but whose conservative estimate is about 5,550.
	r := workload.Request{Category: workload.Prose, InputTokens: 5000, OutputTokens: 1000, MaxOutputTokens: 1000,
		Bytes: int(math.Floor(5000 * mean))}
	if c := tb.Estimate(&r); c <= 6144 {
		t.Fatalf("conservative estimate %d: the test needs one above the band's top 6144", c)
	}
	d := tb.Route(&r, nil)
	if !d.Compressed || d.Pool != 0 || d.InputTokens != 3096 {
		t.Fatalf("decision %+v; want compressed to 3096 tokens in pool 0", d)
	}
}

// TestCRGateConfigurable: CJK is compressed only when the gate lists it;
// code is never accepted (TestValidate).
func TestCRGateConfigurable(t *testing.T) {
	r := workload.Request{InputTokens: 4000, OutputTokens: 1000, MaxOutputTokens: 1000, Bytes: 8040, Category: workload.CJK}
	for _, tt := range []struct {
		gate []workload.Category
		want bool
	}{
		{nil, false}, // default: prose, RAG, mixed
		{[]workload.Category{workload.CJK}, true},
		{[]workload.Category{}, false}, // empty: nothing is compressible
	} {
		tb := calibrated(t, Config{Kind: "cr", PC: DefaultPC, Compressible: tt.gate}, twoPools, 50)
		if d := tb.Route(&r, nil); d.Compressed != tt.want {
			t.Errorf("gate %v: compressed = %v; want %v", tt.gate, d.Compressed, tt.want)
		}
	}
}
