package compress

import (
	"embed"
	"math/rand/v2"
	"strings"
	"sync"
)

// corpusFS holds the two CC BY 4.0 papers the compressor is tested and
// measured on (testdata/README.md gives the attribution): real English
// technical prose, available offline.
//
//go:embed testdata/fleetopt-paper.txt testdata/token-budget-pool-routing-paper.txt
var corpusFS embed.FS

// corpusText is the corpus's paragraphs and their token counts.
type corpusText struct {
	paras  []string
	tokens []int
}

var corpus = sync.OnceValue(func() corpusText {
	var out []string
	for _, f := range []string{"testdata/fleetopt-paper.txt", "testdata/token-budget-pool-routing-paper.txt"} {
		b, err := corpusFS.ReadFile(f)
		if err != nil { // cannot happen: embedded
			panic(err)
		}
		for _, l := range strings.Split(string(b), "\n") {
			if l = strings.TrimSpace(l); len(l) >= 80 {
				out = append(out, l)
			}
		}
	}
	c := corpusText{paras: out, tokens: make([]int, len(out))}
	for i, p := range out {
		c.tokens[i] = CountTokens(p)
	}
	return c
})

// CorpusParagraphs returns the paragraphs (lines of at least 80 bytes) of
// the embedded CC BY 4.0 papers. The slice is shared: do not modify it.
func CorpusParagraphs() []string { return corpus().paras }

// ProsePrompt builds one prose prompt of at least target tokens (unless the
// corpus runs out) and at most max: the corpus paragraphs in a fresh
// random order from rng, joined by blank lines, skipping any paragraph
// that would pass max.
func ProsePrompt(rng *rand.Rand, target, max int) string {
	c := corpus()
	perm := rng.Perm(len(c.paras))
	var sb strings.Builder
	tokens := 0
	for _, p := range perm {
		pt := c.tokens[p]
		if tokens+pt > max {
			continue
		}
		if sb.Len() > 0 {
			sb.WriteString("\n\n")
		}
		sb.WriteString(c.paras[p])
		tokens += pt
		if tokens >= target {
			break
		}
	}
	return sb.String()
}
