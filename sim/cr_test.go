package sim

import (
	"math"
	"testing"

	"github.com/fleetsim/fleetsim/router"
	"github.com/fleetsim/fleetsim/workload"
)

// Simulator-level acceptance tests of compress-and-route (issue #4): the
// cr router inside sim.Run, on requests from workload.NewSource.

// crRecords keeps the records of a run (only the fields these tests read).
type crRecords struct{ recs []Record }

func (s *crRecords) Write(r *Record) error {
	s.recs = append(s.recs, *r)
	return nil
}

// crPoolCount counts, without keeping them, the records of a run per pool.
type crPoolCount struct {
	total  int
	byPool map[string]int
}

func (s *crPoolCount) Write(r *Record) error {
	s.total++
	s.byPool[r.Pool]++
	return nil
}

// runWorkload runs cfg on the requests of cfg.Workload (workload.NewSource
// with cfg.Seed) and fails the test on any error.
func runWorkload(t testing.TB, cfg Config, sink Sink) *Summary {
	t.Helper()
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	src, err := workload.NewSource(cfg.Workload, cfg.Seed)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Run(cfg, src, sink, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := src.Err(); err != nil {
		t.Fatal(err)
	}
	return s
}

// azureCR is the C&R scenario: the Azure CDF, the cr router with
// B_short = 4,096 (the short pool's max context), γ = 1.5, p_c = 1, a
// 65,536-token long pool.
func azureCR(n int, rate float64, short, long int, cats map[string]float64) Config {
	return Config{
		Seed:     11,
		Workload: workload.Spec{CDF: "azure", Rate: rate, Requests: n, Categories: cats},
		Pools: []PoolConfig{
			{Name: "short", GPU: "a100", Count: short, MaxContext: 4096},
			{Name: "long", GPU: "a100", Count: long, MaxContext: 65536},
		},
		Timing:         "kv",
		Router:         RouterConfig{Config: router.Config{Kind: RouterCR, BShort: 4096, Gamma: 1.5, PC: 1}},
		WarmupFraction: 0.2,
		SLO:            SLO{TTFTS: 0.5, TPOTS: 0.08},
	}
}

// TestCRNoShortPoolOverflow: an Azure run with C&R on (B_short = 4,096,
// γ = 1.5, p_c = 1) and a category mix with code, on a fleet where no pool
// is overloaded. No request served by the short pool holds more than 4,096
// tokens (served prompt + output), every compressed request is served by
// the short pool, and no code request is ever compressed, although code
// requests in the C&R band exist.
func TestCRNoShortPoolOverflow(t *testing.T) {
	const n = 100_000
	// 200 req/s: the short pool gets about 0.93·200 = 186 req/s at ~24 req/s
	// per A100 (pools' exact calibration of the Azure (0, 4096] slice), the
	// long pool about 14 req/s at ~0.64 req/s per A100: 12 and 40 GPUs keep
	// both well below saturation.
	cats := map[string]float64{"prose": 0.45, "code": 0.25, "rag": 0.15, "mixed": 0.1, "cjk": 0.05}
	cfg := azureCR(n, 200, 12, 40, cats)
	sink := &crRecords{}
	sum := runWorkload(t, cfg, sink)
	for _, p := range sum.Pools {
		if p.Overloaded {
			t.Fatalf("pool %s is overloaded (backlog growth %.2f req/s): the test needs a fleet that keeps up", p.Name, p.BacklogGrowth)
		}
	}
	if len(sink.recs) != n {
		t.Fatalf("%d records, want %d", len(sink.recs), n)
	}
	var compressed, codeInBand, shortServed int
	perCat, rejected := map[string]int{}, map[string]int{}
	for _, r := range sink.recs {
		total := int(r.InputTokens + r.OutputTokens)
		orig := int(r.OriginalInputTokens + r.OutputTokens)
		if r.Category == "code" && orig > 4096 && orig <= 6144 {
			codeInBand++
		}
		if r.Rejected {
			rejected[r.Pool]++
			if r.Compressed {
				t.Errorf("request %d was compressed and still rejected by %s: %s", r.ID, r.Pool, r.RejectedReason)
			}
			continue
		}
		if r.Pool == "short" {
			shortServed++
			if total > 4096 {
				t.Errorf("request %d (%s) served by the short pool with %d + %d = %d tokens > 4096",
					r.ID, r.Category, r.InputTokens, r.OutputTokens, total)
			}
		}
		if r.Compressed {
			compressed++
			perCat[r.Category]++
			if r.Category == "code" {
				t.Errorf("code request %d was compressed (%d -> %d prompt tokens)", r.ID, r.OriginalInputTokens, r.InputTokens)
			}
			if r.Pool != "short" {
				t.Errorf("compressed request %d served by pool %s, want short", r.ID, r.Pool)
			}
		} else if r.InputTokens != r.OriginalInputTokens {
			t.Errorf("request %d not compressed but served %d of its %d prompt tokens", r.ID, r.InputTokens, r.OriginalInputTokens)
		}
	}
	// The test must be able to fail: C&R fired on every compressible
	// category, and code requests did fall in the band.
	for _, c := range []string{"prose", "rag", "mixed"} {
		if perCat[c] == 0 {
			t.Errorf("no %s request was compressed: C&R not exercised", c)
		}
	}
	if perCat["cjk"] != 0 {
		t.Errorf("%d CJK requests compressed; CJK is outside the default content gate", perCat["cjk"])
	}
	if codeInBand == 0 {
		t.Error("no code request in the C&R band (4096, 6144]: the code check tested nothing")
	}
	t.Logf("%d requests: %d served by the short pool, %d compressed %v, %d code requests in the band (none compressed), rejected (misrouted, never admitted) by pool %v",
		n, shortServed, compressed, perCat, codeInBand, rejected)
}

// TestCRShortPoolFractionSim: the short pool's share of arrivals in a
// simulated Azure run matches FleetOpt's α′ = F(B) + p_c·(1 − s)·(F(γB) −
// F(B)) within 1 percentage point (issue #4 acceptance): with prose only
// (s = 0), 0.9758, and with a code share s = 0.25, 0.9564. F is the built-in
// Azure CDF; F(4096) = 0.8982 and F(6144) = 0.9758 are the values of
// docs/router.md and of `fleetsim plan --method retrofit` (alpha,
// alpha_prime).
//
// 100,000 requests per case, as the issue asks (about 0.2 s each; the
// binomial standard error of the fraction is then 0.05 pp).
func TestCRShortPoolFractionSim(t *testing.T) {
	const n = 100_000
	cdf, err := workload.LoadCDF("azure")
	if err != nil {
		t.Fatal(err)
	}
	const b, gamma, pc = 4096, 1.5, 1.0
	fb, fgb := cdf.F(b), cdf.F(gamma*b)
	if math.Abs(fb-0.8982) > 5e-5 || math.Abs(fgb-0.9758) > 5e-5 {
		t.Fatalf("Azure CDF: F(4096) = %.5f, F(6144) = %.5f; docs/router.md says 0.8982, 0.9758", fb, fgb)
	}
	tests := []struct {
		name string
		cats map[string]float64
		s    float64 // code share
		want float64 // α′ from the issue / docs/router.md
	}{
		{"prose=1", map[string]float64{"prose": 1}, 0, 0.9758},
		{"prose=0.75,code=0.25", map[string]float64{"prose": 0.75, "code": 0.25}, 0.25, 0.9564},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			alpha := fb + pc*(1-tt.s)*(fgb-fb)
			if math.Abs(alpha-tt.want) > 1e-4 {
				t.Fatalf("formula gives %.4f, want %.4f", alpha, tt.want)
			}
			// 1,000 req/s; 60 + 100 A100s keep both pools below
			// saturation (C&R puts ~976 req/s on the short pool, 24 req/s
			// per GPU; with code ~44 req/s reach the long pool, 0.64 per GPU).
			cfg := azureCR(n, 1000, 60, 100, tt.cats)
			cfg.WarmupFraction = 0
			sink := &crPoolCount{byPool: map[string]int{}}
			sum := runWorkload(t, cfg, sink)
			if sink.total != n {
				t.Fatalf("%d records, want %d", sink.total, n)
			}
			// Every request appears once (no retries), under the pool it
			// arrived at (served there, or rejected there as misrouted).
			got := float64(sink.byPool["short"]) / float64(n)
			if a := float64(sum.Pools[0].Arrived) / float64(n); math.Abs(a-got) > 1e-12 {
				t.Errorf("summary: short pool arrivals %.5f, records %.5f", a, got)
			}
			t.Logf("%s, %d requests: short-pool fraction %.4f, formula F(B) + p_c(1-s)(F(γB) - F(B)) = %.4f (%+.2f pp); %d rejected",
				tt.name, n, got, alpha, 100*(got-alpha), sum.Fleet.Rejected)
			if math.Abs(got-alpha) > 0.01 {
				t.Errorf("short-pool fraction %.4f, want %.4f ± 0.01", got, alpha)
			}
		})
	}
}
