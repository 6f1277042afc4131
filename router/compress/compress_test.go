package compress

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/fleetsim/fleetsim/workload"
)

func TestCountTokens(t *testing.T) {
	// Expected values follow the rules documented on CountTokens.
	tests := []struct {
		text string
		want int
	}{
		{"", 0},
		{"   \n\t", 0},
		{"hello world", 2},
		{"internationalization", 3}, // 20 letters: 1 + 19/8
		{"abcdefgh abcdefghi", 3},   // 8 letters: 1; 9 letters: 2
		{"12345", 2},                // digit groups of 3
		{"3.5 ms", 4},               // 3 . 5 ms
		{"x), (y", 4},               // x ), ( y: runs of punctuation, a token per two
		{"...", 2},
		{"你好世界", 6},   // 4 CJK characters: ceil(3·4/2)
		{"你好。", 4},    // 2 CJK (3) + '。' (1)
		{"naïve", 3},  // "na" + "ï" (2 bytes: 1) + "ve"
		{"Привет", 4}, // 12 bytes of Cyrillic: ceil(12/3)
		{"a—b", 3},    // em dash is a symbol
	}
	for _, tt := range tests {
		if got := CountTokens(tt.text); got != tt.want {
			t.Errorf("CountTokens(%q) = %d; want %d", tt.text, got, tt.want)
		}
	}
}

// TestCountAdditive: the count of a text equals the sum of its sentences'
// counts (Compress relies on it for Result.Tokens and OriginalTokens).
func TestCountAdditive(t *testing.T) {
	texts := append(prompts(t, 5, 2000, 4000, 9),
		"你好。再见！「好」。最后 end. Next?! \"Quoted.\" (Paren.) 3.5 ms... x\n\ny",
		"Привет мир. Ещё раз… Да!")
	for _, p := range texts {
		sum := 0
		for _, s := range SplitSentences(p) {
			sum += CountTokens(s)
		}
		if got := CountTokens(p); got != sum {
			t.Errorf("CountTokens = %d; sum over sentences = %d for %.60q", got, sum, p)
		}
	}
}

// TestCountTokensCalibration checks the heuristic's bytes per token on the
// papers' English prose (paragraphs without LaTeX residue): about 4 bytes
// per token, the rule of thumb behind the token-budget paper's cold start
// (§2.1), below its 4.48 for plain prose (Table 4) because this text is dense
// in numbers and symbols; we accept 3.9–4.6.
func TestCountTokensCalibration(t *testing.T) {
	bytes, tokens := 0, 0
	for _, p := range paragraphs(t) {
		if strings.ContainsAny(p, "\\{}_") {
			continue
		}
		bytes += len(p) + 1
		tokens += CountTokens(p)
	}
	r := float64(bytes) / float64(tokens)
	t.Logf("clean prose: %d bytes, %d tokens, %.2f bytes/token", bytes, tokens, r)
	if r < 3.9 || r > 4.6 {
		t.Errorf("%.2f bytes/token; want 3.9–4.6", r)
	}
}

func TestSplitSentences(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []string
	}{
		{"simple", "One two. Three four! Five six?", []string{"One two.", "Three four!", "Five six?"}},
		{"decimal", "It takes 3.5 ms. Then more.", []string{"It takes 3.5 ms.", "Then more."}},
		{"abbreviation", "See Fig. 3 for details. Also e.g. This.", []string{"See Fig. 3 for details.", "Also e.g. This."}},
		{"et al", "Chen et al. Show it. Next.", []string{"Chen et al. Show it.", "Next."}},
		{"initial", "J. Smith wrote it. Done.", []string{"J. Smith wrote it.", "Done."}},
		{"lower-case continuation", "The value is approx. right. it continues. Yes.", []string{"The value is approx. right. it continues.", "Yes."}},
		{"quotes", `He said "Stop." Then he left.`, []string{`He said "Stop."`, "Then he left."}},
		{"ellipsis", "Wait… What now?", []string{"Wait…", "What now?"}},
		{"newlines", "Title\n\nFirst line\nsecond line. Third.", []string{"Title", "First line", "second line.", "Third."}},
		{"cjk", "你好。再见！「好」。最后", []string{"你好。", "再见！", "「好」。", "最后"}},
		{"trailing space", "  Hello.   World.  ", []string{"Hello.", "World."}},
		{"empty", " \n ", []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := SplitSentences(tt.text)
			if !slices.Equal(got, tt.want) {
				t.Fatalf("SplitSentences(%q) = %q; want %q", tt.text, got, tt.want)
			}
		})
	}
}

// sentenceBounds returns the byte offsets [start, end) of sentence k of
// text (sentences as SplitSentences returns them, in order).
func sentenceBounds(text string, sentences []string, k int) [2]int {
	pos := 0
	for i, s := range sentences {
		j := strings.Index(text[pos:], s)
		if i == k {
			return [2]int{pos + j, pos + j + len(s)}
		}
		pos += j + len(s)
	}
	return [2]int{-1, -1}
}

// keptInOrder walks out, matching the input sentences in order (each
// followed by whitespace), and returns the number matched, or -1 if out is
// not made of input sentences in their original order.
func keptInOrder(out string, in []string) int {
	pos, k := 0, 0
	for _, s := range in {
		if strings.HasPrefix(out[pos:], s) {
			pos += len(s)
			k++
			pos += len(out[pos:]) - len(strings.TrimLeftFunc(out[pos:], unicode.IsSpace))
		}
	}
	if pos != len(out) {
		return -1
	}
	return k
}

// TestCompressInvariants is issue #4's compressor acceptance on 8K–12K-token
// prose: the output never exceeds the budget, keeps the first 3 and last 2
// sentences, and is the input's sentences in their original order.
func TestCompressInvariants(t *testing.T) {
	var c Compressor
	ps := prompts(t, 40, 8000, 12000, 1)
	for i, p := range ps {
		orig := CountTokens(p)
		if orig < 8000 || orig > 12000 {
			t.Fatalf("prompt %d has %d tokens; the test wants 8K–12K", i, orig)
		}
		in := SplitSentences(p)
		// budgets from a 5% to a 50% cut, and the agent-heavy T_c = 8192 − L_out
		for _, budget := range []int{orig * 95 / 100, orig * 3 / 4, orig / 2, 8192 - 256 - 20*i} {
			res, err := c.Compress(p, budget)
			if err != nil {
				t.Fatalf("prompt %d budget %d: %v", i, budget, err)
			}
			if res.Tokens > budget || CountTokens(res.Text) != res.Tokens {
				t.Fatalf("prompt %d: %d tokens (counted %d) over budget %d", i, res.Tokens, CountTokens(res.Text), budget)
			}
			if res.Tokens < budget-300 {
				t.Errorf("prompt %d: %d tokens leave more than 300 of budget %d unused", i, res.Tokens, budget)
			}
			if !res.Compressed || res.OriginalTokens != orig || res.Sentences != len(in) {
				t.Fatalf("prompt %d: result fields inconsistent: %+v", i, res)
			}
			// the first 3 and last 2 sentences, with their original separators
			first, last := sentenceBounds(p, in, 2), sentenceBounds(p, in, len(in)-2)
			if !strings.HasPrefix(res.Text, p[:first[1]]) || !strings.HasSuffix(res.Text, p[last[0]:]) {
				t.Fatalf("prompt %d budget %d: first 3 / last 2 sentences not kept", i, budget)
			}
			if k := keptInOrder(res.Text, in); k != res.Kept {
				t.Fatalf("prompt %d budget %d: output is not %d of the input's sentences in order (matched %d)", i, budget, res.Kept, k)
			}
		}
	}
}

func TestCompressFitsUnchanged(t *testing.T) {
	text := "One sentence. Another one."
	res, err := Compress(text, 100)
	if err != nil || res.Text != text || res.Compressed || res.Tokens != CountTokens(text) {
		t.Fatalf("Compress = %+v, %v; want the text unchanged", res, err)
	}
}

func TestCompressBudgetErrors(t *testing.T) {
	text := strings.Repeat("This is a fairly long sentence about routing requests. ", 20)
	_, err := Compress(text, 20)
	var be *BudgetError
	if !errors.Is(err, ErrBudget) || !errors.As(err, &be) || be.Budget != 20 || be.Need != 5*CountTokens("This is a fairly long sentence about routing requests.") {
		t.Fatalf("budget 20: err = %v; want a BudgetError (ErrBudget) needing 5 sentences' tokens", err)
	}
	if _, err := Compress(text, 0); err == nil || !strings.Contains(err.Error(), "budget = 0") {
		t.Fatalf("budget 0: err = %v; want an error naming the budget", err)
	}
}

// TestCompressPrefersNovelEarlySentences: with identical middle sentences
// (equal TF-IDF and TextRank), the extra sentence chosen is the one with the
// best position and novelty: the first non-mandatory sentence.
func TestCompressPrefersNovelEarlySentences(t *testing.T) {
	var s []string
	s = append(s, "Alpha opens here.", "Beta follows.", "Gamma third.")
	for i := 0; i < 10; i++ {
		s = append(s, "Routing saves money.")
	}
	s = append(s, "Delta near end.", "Omega closes.")
	text := strings.Join(s, " ")
	need := 0
	for _, x := range []string{s[0], s[1], s[2], s[3], s[13], s[14]} {
		need += CountTokens(x)
	}
	res, err := Compress(text, need)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Join([]string{s[0], s[1], s[2], s[3], s[13], s[14]}, " ")
	if res.Text != want {
		t.Fatalf("Compress = %q; want %q", res.Text, want)
	}
}

func TestLCS(t *testing.T) {
	// CLRS §15.4: LCS(ABCBDAB, BDCABA) has length 4.
	a := []int32{'A', 'B', 'C', 'B', 'D', 'A', 'B'}
	b := []int32{'B', 'D', 'C', 'A', 'B', 'A'}
	if got := lcs(a, b); got != 4 {
		t.Fatalf("lcs = %d; want 4", got)
	}
	if got := lcs(a, nil); got != 0 {
		t.Fatalf("lcs with empty = %d", got)
	}
	// The bit-parallel LCS against the textbook dynamic programme on random
	// sequences over small alphabets (lengths across 64-bit word edges).
	rng := workload.NewRand(3, workload.StreamCompressor)
	for trial := 0; trial < 300; trial++ {
		x := make([]int32, rng.IntN(200))
		y := make([]int32, rng.IntN(200))
		sigma := 1 + rng.IntN(8)
		for i := range x {
			x[i] = int32(rng.IntN(sigma))
		}
		for i := range y {
			y[i] = int32(rng.IntN(sigma))
		}
		if got, want := lcs(x, y), lcsDP(x, y); got != want {
			t.Fatalf("lcs(%v, %v) = %d; DP gives %d", x, y, got, want)
		}
	}
}

// lcsDP is the O(|a|·|b|) dynamic programme, the oracle for lcs.
func lcsDP(a, b []int32) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for _, x := range a {
		for j, y := range b {
			if x == y {
				cur[j+1] = prev[j] + 1
			} else {
				cur[j+1] = max(prev[j+1], cur[j])
			}
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func TestMeasure(t *testing.T) {
	text := "Pool routing splits the fleet. Compression shifts the boundary. The router learns ratios."
	if f := Measure(text, text); f.ROUGELRecall != 1 || f.TFIDFCosine < 0.999999 {
		t.Fatalf("identical texts: %+v; want 1, 1", f)
	}
	if f := Measure(text, ""); f.ROUGELRecall != 0 || f.TFIDFCosine != 0 {
		t.Fatalf("empty compressed: %+v; want 0, 0", f)
	}
	// Dropping the middle sentence keeps 9 of 13 words.
	f := Measure(text, "Pool routing splits the fleet. The router learns ratios.")
	if want := 9.0 / 13; f.ROUGELRecall < want-1e-12 || f.ROUGELRecall > want+1e-12 {
		t.Fatalf("ROUGE-L recall = %g; want %g", f.ROUGELRecall, want)
	}
	if f.TFIDFCosine <= 0.3 || f.TFIDFCosine >= 1 {
		t.Fatalf("TF-IDF cosine = %g; want in (0.3, 1)", f.TFIDFCosine)
	}
}

// TestFidelityOnPapers reports fidelity at the FleetOpt study's operating
// point (agent-heavy band, T_c = 8192 − L_out, about 15% reduction) and
// checks it is in the range the paper reports (Appendix C, Table 7: ROUGE-L
// recall p10 0.783, TF-IDF cosine p10 0.963).
func TestFidelityOnPapers(t *testing.T) {
	var c Compressor
	for i, p := range prompts(t, 5, 8000, 9000, 2) {
		budget := CountTokens(p) * 85 / 100
		res, err := c.Compress(p, budget)
		if err != nil {
			t.Fatal(err)
		}
		f := Measure(p, res.Text)
		t.Logf("prompt %d: %d -> %d tokens, ROUGE-L recall %.3f, TF-IDF cosine %.3f", i, res.OriginalTokens, res.Tokens, f.ROUGELRecall, f.TFIDFCosine)
		if f.ROUGELRecall < 0.75 || f.TFIDFCosine < 0.9 {
			t.Errorf("prompt %d: fidelity %+v below ROUGE-L 0.75 / cosine 0.9", i, f)
		}
	}
}

func FuzzCompress(f *testing.F) {
	f.Add("Hello there. General Kenobi! You are a bold one. 你好。再见！ e.g. this. Fig. 2 shows it.\nNew line.", 10)
	f.Add("", 1)
	f.Add("a. b. c. d. e. f. g.", 3)
	f.Fuzz(func(t *testing.T, text string, budget int) {
		if budget <= 0 || budget > 1<<20 {
			return
		}
		res, err := Compress(text, budget)
		if err != nil {
			if !errors.Is(err, ErrBudget) {
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		if res.Tokens > budget && res.Compressed {
			t.Fatalf("over budget: %d > %d", res.Tokens, budget)
		}
		if res.Tokens != CountTokens(res.Text) || res.OriginalTokens != CountTokens(text) {
			t.Fatalf("token counts %d/%d; CountTokens gives %d/%d", res.Tokens, res.OriginalTokens, CountTokens(res.Text), CountTokens(text))
		}
		if utf8.ValidString(text) && !utf8.ValidString(res.Text) {
			t.Fatalf("invalid UTF-8 output")
		}
		_ = Measure(text, res.Text)
	})
}

// TestIndexMatchesWords: the compressor's hashed term index sees the same
// terms as forEachWord (which Measure uses).
func TestIndexMatchesWords(t *testing.T) {
	text := "Pool-routing at 4,096 tokens: the Router's CJK 你好 text, naïve ÉCOLE école; a b c x1 B_short."
	var want []uint64
	var buf []byte
	forEachWord(text, &buf, func(w []byte, cjk bool) {
		if !cjk && (utf8.RuneCount(w) < 2 || stopWords[string(w)]) {
			return
		}
		h := uint64(fnvOffset)
		for _, r := range string(w) {
			h = fnvAdd(h, r)
		}
		want = append(want, h)
	})
	var c Compressor
	c.spans = splitSpans(text, nil)
	c.indexTerms(text)
	var got []uint64
	byID := map[int32]uint64{}
	for h, g := range c.vocab {
		if g >= 0 && c.stamp[g] == c.epoch {
			byID[c.local[g]] = h
		}
	}
	for k, l := range c.terms {
		for n := 0; n < int(c.tf[k]); n++ {
			got = append(got, byID[l])
		}
	}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) || len(want) < 10 {
		t.Fatalf("indexed %d terms, forEachWord %d", len(got), len(want))
	}
}

// TestCompressManySimilarSentences: 30,000 sentences that share words
// (each of ten words in a fifth of them). Without the maxPostings cap the
// similarity graph would take 1.8·10⁷ pair updates per shared word and
// millions of edges; with it the call is linear in the prompt.
func TestCompressManySimilarSentences(t *testing.T) {
	var sb strings.Builder
	words := strings.Fields("alpha bravo charlie delta echo foxtrot golf hotel india juliet")
	for i := 0; i < 30000; i++ {
		fmt.Fprintf(&sb, "Item %s number%d %s. ", words[i%10], i, words[(i+3)%10])
	}
	res, err := Compress(sb.String(), 5000)
	if err != nil {
		t.Fatal(err)
	}
	if res.Tokens > 5000 || res.Sentences != 30000 {
		t.Fatalf("result %d tokens of %d sentences", res.Tokens, res.Sentences)
	}
}
