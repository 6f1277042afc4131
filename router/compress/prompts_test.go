package compress

import (
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/fleetsim/fleetsim/workload"
)

// paragraphs returns the paragraphs (lines of at least 80 bytes) of the
// CC BY 4.0 papers in testdata (see testdata/README.md).
func paragraphs(t testing.TB) []string {
	t.Helper()
	var out []string
	for _, f := range []string{"testdata/fleetopt-paper.txt", "testdata/token-budget-pool-routing-paper.txt"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(string(b), "\n") {
			if l = strings.TrimSpace(l); len(l) >= 80 {
				out = append(out, l)
			}
		}
	}
	return out
}

// prompts builds n prose prompts of lo to hi tokens: the papers' paragraphs
// shuffled (a fresh permutation per prompt) and joined with blank lines
// until the prompt's drawn length is reached.
func prompts(t testing.TB, n, lo, hi int, seed uint64) []string {
	paras := paragraphs(t)
	rng := workload.NewRand(seed, workload.StreamCompressor)
	out := make([]string, 0, n)
	for len(out) < n {
		target := lo + rng.IntN(hi-lo)
		out = append(out, buildPrompt(paras, rng, target, hi))
	}
	return out
}

func buildPrompt(paras []string, rng *rand.Rand, target, hi int) string {
	perm := rng.Perm(len(paras))
	var sb strings.Builder
	tokens := 0
	for _, p := range perm {
		pt := CountTokens(paras[p])
		if tokens+pt > hi {
			continue
		}
		if sb.Len() > 0 {
			sb.WriteString("\n\n")
		}
		sb.WriteString(paras[p])
		tokens += pt
		if tokens >= target {
			break
		}
	}
	return sb.String()
}
