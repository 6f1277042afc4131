package compress

import (
	"testing"

	"github.com/fleetsim/fleetsim/workload"
)

// paragraphs returns the paragraphs of the CC BY 4.0 papers in testdata
// (see testdata/README.md).
func paragraphs(testing.TB) []string { return CorpusParagraphs() }

// prompts builds n prose prompts of lo to hi tokens: the papers' paragraphs
// shuffled (a fresh permutation per prompt) and joined with blank lines
// until the prompt's drawn length is reached.
func prompts(_ testing.TB, n, lo, hi int, seed uint64) []string {
	rng := workload.NewRand(seed, workload.StreamCompressor)
	out := make([]string, 0, n)
	for len(out) < n {
		target := lo + rng.IntN(hi-lo)
		out = append(out, ProsePrompt(rng, target, hi))
	}
	return out
}
