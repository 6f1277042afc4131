package occupancy

import (
	"math"
	"strings"
	"testing"

	"github.com/fleetsim/fleetsim/engine"
	"github.com/fleetsim/fleetsim/pools/catalog"
	"github.com/fleetsim/fleetsim/pools/queueing"
	"github.com/fleetsim/fleetsim/workload"
)

func azureTraffic(t *testing.T, lo, hi int) (*workload.CDF, *Traffic) {
	t.Helper()
	cdf, err := workload.LoadCDF("azure")
	if err != nil {
		t.Fatal(err)
	}
	tr, err := NewTraffic(cdf, workload.DefaultInputFraction, 512, []Part{{Lo: lo, Hi: hi, Share: 1}})
	if err != nil {
		t.Fatal(err)
	}
	return cdf, tr
}

// One request of L = 1000 tokens by hand: L_in 800, L_out 200, C 512:
// m = 2 prefill iterations holding 512 and 800 tokens, then 199 decode
// iterations holding 801..999: k = 201, A = 1312 + Σ_{801}^{999} = 1312 +
// 199·900 = 180,412.
func TestTrafficHandComputed(t *testing.T) {
	cdf := &workload.CDF{Name: "one", Points: []workload.Point{{Tokens: 999, F: 0}, {Tokens: 1000, F: 1}}}
	if err := cdf.Validate(); err != nil {
		t.Skip("a one-length CDF is not valid here:", err)
	}
	tr, err := NewTraffic(cdf, 0.8, 512, []Part{{Lo: 0, Hi: 1000, Share: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if tr.EK != 201 || tr.EA != 180412 {
		t.Errorf("k %v A %v, want 201 and 180412", tr.EK, tr.EA)
	}
}

// With a constant iteration time (H = 0) the chain is M/M/c over G·N slots:
// P(wait) is Erlang C and the utilization λ·E[k]·W/(G·N).
func TestPredictConstantIterationIsErlangC(t *testing.T) {
	_, tr := azureTraffic(t, 0, 4096)
	for _, rho := range []float64{0.5, 0.9} {
		G, N := 3, 32
		W := 0.01
		svc := tr.EK * W
		rate := rho * float64(G*N) / svc
		pr, err := Pool{Timing: engine.Timing{W: W}, Slots: N, GPUs: G, Rate: rate, Traffic: tr}.Predict()
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(pr.Utilization-rho) > 1e-9 {
			t.Errorf("ρ %g: utilization %v", rho, pr.Utilization)
		}
		if want := queueing.ErlangC(G*N, rate*svc); math.Abs(pr.PWait-want) > 1e-9 {
			t.Errorf("ρ %g: P(wait) %v, Erlang C %v", rho, pr.PWait, want)
		}
		if math.Abs(pr.Occupancy-rho*float64(N)) > 1e-9 {
			t.Errorf("ρ %g: fixed point %v, want %v", rho, pr.Occupancy, rho*float64(N))
		}
	}
}

func TestSizeIsSmallest(t *testing.T) {
	_, tr := azureTraffic(t, 4096, 65536)
	g, _ := catalog.LookupGPU("a100")
	tm, _ := g.Timing(catalog.TimingKV)
	p := Pool{Timing: tm, Slots: g.Slots(65536), Rate: 100, Traffic: tr}
	for _, tg := range []Targets{{RhoMax: 0.85}, {RhoMax: 0.85, P99TTFTS: 0.25}, {RhoMax: 0.5, P99TPOTS: 0.02}} {
		n, pr, err := Size(p, tg)
		if err != nil {
			t.Fatal(err)
		}
		if !tg.met(pr) {
			t.Errorf("%+v: %d GPUs do not meet the targets: %+v", tg, n, pr)
		}
		q := p
		q.GPUs = n - 1
		if pr1, err := q.Predict(); err == nil && tg.met(pr1) {
			t.Errorf("%+v: %d GPUs also meet the targets", tg, n-1)
		}
	}
	if _, _, err := Size(p, Targets{RhoMax: 0.85, P99TTFTS: 0.05}); err == nil || !strings.Contains(err.Error(), "unreachable") {
		t.Errorf("a 50 ms TTFT target for 4k–64k prompts: err %v, want unreachable", err)
	}
}

func TestPredictUnstable(t *testing.T) {
	_, tr := azureTraffic(t, 4096, 65536)
	g, _ := catalog.LookupGPU("a100")
	tm, _ := g.Timing(catalog.TimingKV)
	pr, err := Pool{Timing: tm, Slots: 16, GPUs: 1, Rate: 5, Traffic: tr}.Predict()
	if err != ErrUnstable || pr.Utilization != 1 || !math.IsInf(pr.P99WaitS, 1) {
		t.Errorf("overloaded pool: %+v, %v", pr, err)
	}
}

func TestTails(t *testing.T) {
	// EMG with sd → 0 is the shifted exponential; U + Y with sd → 0 the
	// shifted uniform; both tails are 1 far left and 0 far right.
	if got, want := emgTail(2, 1.5, 1, 1e-9), math.Exp(-1.5); math.Abs(got-want) > 1e-6 {
		t.Errorf("emg %v want %v", got, want)
	}
	if got := uniNormTail(1.25, 1, 0.5, 1e-15); math.Abs(got-0.25) > 1e-9 {
		t.Errorf("uniform %v want 0.25", got)
	}
	// U(0,1) + N(0, 0.1²) at its mean 0.5: symmetric, so 1/2.
	if got := uniNormTail(0.5, 1, 0, 0.1); math.Abs(got-0.5) > 1e-12 {
		t.Errorf("uniform+normal at the mean %v", got)
	}
	if got := emgTail(-100, 1, 0, 1); got != 1 {
		t.Errorf("emg far left %v", got)
	}
	if got := emgTail(1000, 1, 0, 30); !(got > 0 && got < 1e-100) && got != 0 {
		t.Errorf("emg far right %v", got)
	}
}

// waitFactor: M/M/c (C_s² = 1) is 1; M/D/1 (C_s² = 0, c = 1) is exactly ½
// (Pollaczek–Khinchine: W_q(M/D/1) = ½·W_q(M/M/1)); Kimura above 1.
func TestWaitFactor(t *testing.T) {
	for _, tc := range []struct {
		cs2  float64
		c    int
		rho  float64
		want float64
	}{
		{1, 16, 0.7, 1},
		{0, 1, 0.5, 0.5},
		{0, 1, 0.9, 0.5},
		{3, 64, 0.9, 2},
		{0.5, 1, 0.8, 0.75}, // M/G/1 is exact too: (1 + C_s²)/2
	} {
		if got := waitFactor(tc.cs2, tc.c, tc.rho); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("waitFactor(%g, %d, %g) = %v, want %v", tc.cs2, tc.c, tc.rho, got, tc.want)
		}
	}
	// Cosmetatos' correction grows with c and stays below M/M/c.
	if a, b := waitFactor(0, 16, 0.7), waitFactor(0, 64, 0.7); !(a > 0.5 && b > a && b <= 1) {
		t.Errorf("M/D/c factor at c = 16, 64: %v, %v", a, b)
	}
}

// One GPU of one slot: an arrival that finds the slot free finds the GPU
// idle, so only the blocked share P(wait) = ρ waits at all. At ρ = 0.0099
// fewer than 1% wait, so the P99 wait is 0 (hand computation). Before
// review7 the idle share was taken unconditionally, so
// (1 − P(wait))·(1 − P(J < G)) = ρ(1 − ρ) of the arrivals were charged a
// residual iteration they never wait, and the P99 came out > 0.
func TestWaitTailIdleIsConditionalOnAFreeSlot(t *testing.T) {
	_, tr := azureTraffic(t, 4096, 65536)
	tm := engine.Timing{W: 0.01}
	mu := 1 / (tr.EK * tm.W) // μ(1), 1/s
	p := Pool{Timing: tm, Slots: 1, GPUs: 1, Rate: 0.0099 * mu, Traffic: tr}
	pr, err := p.Predict()
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(pr.PWait-0.0099) > 1e-9 {
		t.Fatalf("P(wait) %v, want 0.0099", pr.PWait)
	}
	if pr.P99WaitS != 0 {
		t.Errorf("P99 wait %v s, want 0: 99.01%% of arrivals find the GPU idle", pr.P99WaitS)
	}
}
