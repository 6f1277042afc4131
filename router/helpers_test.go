package router

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"sort"
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

// testCDF is a token-length CDF read from a fleet-sim CDF JSON file
// ([[tokens, F], ...]). It stands in for workload.LoadCDF in these tests so
// that the router's tests do not depend on the workload package's progress.
type testCDF struct {
	tokens []int
	f      []float64
}

func loadAzureCDF(t testing.TB) *testCDF {
	t.Helper()
	const path = "../../shared/data/traces/fleet-sim-cdfs/azure_cdf.json"
	b, err := os.ReadFile(path)
	if err != nil {
		t.Skipf("Azure CDF not available: %v", err)
	}
	var pts [][2]float64
	if err := json.Unmarshal(b, &pts); err != nil {
		t.Fatalf("parse %s: %v", path, err)
	}
	c := &testCDF{}
	for _, p := range pts {
		c.tokens = append(c.tokens, int(p[0]))
		c.f = append(c.f, p[1])
	}
	return c
}

// F returns the CDF at x tokens (exact at breakpoints, linear between them,
// which is what uniform integers within a bucket give).
func (c *testCDF) F(x int) float64 {
	i := sort.SearchInts(c.tokens, x)
	if i == len(c.tokens) {
		return 1
	}
	if c.tokens[i] == x {
		return c.f[i]
	}
	lo, flo := 0, 0.0
	if i > 0 {
		lo, flo = c.tokens[i-1], c.f[i-1]
	}
	return flo + (c.f[i]-flo)*float64(x-lo)/float64(c.tokens[i]-lo)
}

// sample draws L_total: bucket i with probability F_i − F_{i−1}, then a
// uniform integer in (T_{i−1}, T_i] (the first bucket is [1, T_0]).
func (c *testCDF) sample(rng *rand.Rand) int {
	u := rng.Float64()
	i := sort.SearchFloat64s(c.f, u) // first i with F_i >= u
	lo := 0
	if i > 0 {
		lo = c.tokens[i-1]
	}
	return lo + 1 + rng.IntN(c.tokens[i]-lo)
}

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
