package router

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fleetsim/fleetsim/workload"
)

// trueRatio is the true bytes-per-token ratio of each category in the
// synthetic streams: token-budget paper Table 4 (prose 4.48, code 3.52, CJK
// 2.01, mixed 3.81); RAG is taken as prose.
var trueRatio = [workload.NumCategories]float64{
	workload.Prose: 4.48,
	workload.Code:  3.52,
	workload.CJK:   2.01,
	workload.RAG:   4.48,
	workload.Mixed: 3.81,
}

// testCDF is the Azure token-length CDF of the papers (the built-in
// "azure", workload/data/azure_cdf.json: byte for byte the fleet-sim CDF
// behind the 0.9758, see workload/data/SOURCES.md), read with
// workload.LoadCDF. It is embedded, so the tests never skip.
type testCDF struct{ c *workload.CDF }

func loadAzureCDF(t testing.TB) *testCDF {
	t.Helper()
	c, err := workload.LoadCDF("azure")
	if err != nil {
		t.Fatalf("LoadCDF(azure): %v", err)
	}
	return &testCDF{c}
}

// F returns P(L_total <= x).
func (c *testCDF) F(x int) float64 { return c.c.F(float64(x)) }

// sample draws L_total, tokens.
func (c *testCDF) sample(rng *rand.Rand) int { return c.c.Sample(rng) }

// makeRequest fills r with a request of total length total, split 80/20
// into prompt and output (MaxOutputTokens = OutputTokens), whose byte length
// is L_in times the category's true ratio times (1 + noise·N(0,1)).
func makeRequest(r *workload.Request, rng *rand.Rand, id int64, total int, k workload.Category, noise float64) {
	in := int(math.Floor(0.8 * float64(total)))
	if in < 1 {
		in = 1
	}
	out := total - in
	if out < 1 {
		out = 1
	}
	ratio := trueRatio[k]
	if noise > 0 {
		ratio *= 1 + noise*rng.NormFloat64()
		ratio = max(ratio, 0.5)
	}
	*r = workload.Request{
		ID: id, InputTokens: in, OutputTokens: out, MaxOutputTokens: out,
		Bytes: int(math.Round(float64(in) * ratio)), Category: k,
	}
}
