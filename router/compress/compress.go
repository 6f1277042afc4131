package compress

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The weights of a sentence's score (FleetOpt paper §5.2). Each component is
// scaled to [0, 1] before weighting.
const (
	WeightTextRank = 0.20 // TextRank centrality on the TF-IDF cosine graph
	WeightPosition = 0.40 // U-shaped position prior
	WeightTFIDF    = 0.35 // mean TF-IDF weight of the sentence's terms
	WeightNovelty  = 0.05 // 1 − the highest similarity to an earlier sentence
)

// Keep counts: the first KeepFirst and last KeepLast sentences are always
// kept (the primacy/recency invariant of FleetOpt §5.2).
const (
	KeepFirst = 3
	KeepLast  = 2
)

// TextRank parameters: damping factor (Mihalcea and Tarau, 2004), iteration
// cap and L1 convergence tolerance.
const (
	textRankDamping = 0.85
	textRankMaxIter = 30
	textRankTol     = 1e-3
)

// ErrBudget is returned (wrapped) when the sentences that are always kept
// do not fit the budget: the prompt cannot be compressed (a C&R failure).
var ErrBudget = errors.New("the always-kept sentences exceed the budget")

// BudgetError reports a budget below the always-kept sentences. It wraps
// ErrBudget (errors.Is(err, ErrBudget) holds).
type BudgetError struct {
	Budget int // the budget asked for, tokens
	Need   int // tokens of the first KeepFirst and last KeepLast sentences
}

func (e *BudgetError) Error() string {
	return fmt.Sprintf("compress: budget = %d tokens: the first %d and last %d sentences need %d: %v",
		e.Budget, KeepFirst, KeepLast, e.Need, ErrBudget)
}

// Unwrap returns ErrBudget.
func (e *BudgetError) Unwrap() error { return ErrBudget }

// Result is the outcome of one compression.
type Result struct {
	Text           string // the compressed prompt (the input itself when it already fits)
	OriginalTokens int    // CountTokens of the input, tokens
	Tokens         int    // CountTokens of Text, tokens (≤ the budget)
	Sentences      int    // sentences in the input
	Kept           int    // sentences in Text
	Compressed     bool   // false when the input already fit the budget
}

// Compressor compresses prompts. It keeps scratch buffers between calls, so
// reuse one per goroutine; it is not safe for concurrent use. The zero value
// is ready to use.
type Compressor struct {
	spans    []span
	tok      []int            // per-sentence token counts
	termOff  []int32          // sentence i's terms are terms[termOff[i]:termOff[i+1]]
	terms    []int32          // term ids, sorted and unique within a sentence
	tf       []float64        // term frequency, aligned with terms
	w        []float64        // normalized TF-IDF weight, aligned with terms
	lastSent []int32          // local id -> 1 + the last sentence it occurred in
	slot     []int32          // local id -> its index in terms for that sentence
	cur      int32            // 1 + the sentence being indexed
	vocab    map[uint64]int32 // word hash -> global id; stop words -> -1
	nglobal  int32
	local    []int32  // global id -> this call's id (valid when stamp == epoch)
	stamp    []uint32 // global id -> epoch of its last use
	epoch    uint32
	df       []int32
	idf      []float64
	postOff  []int32 // postings of term t: postSent/postW[postOff[t]:postOff[t+1]]
	postSent []int32
	postW    []float64
	cursor   []int32
	acc      []float64
	touched  []int32
	edges    []edge
	rowOff   []int32
	nbr      []int32
	coef     []float64
	outW     []float64
	novel    []float64
	tfidf    []float64
	pr       []float64
	iters    int // TextRank sweeps of the last call
	score    []float64
	order    []int32
	keep     []bool
}

type edge struct {
	i, j int32
	w    float64
}

// Compress compresses text to at most budget tokens with a fresh
// Compressor.
func Compress(text string, budget int) (Result, error) {
	var c Compressor
	return c.Compress(text, budget)
}

// Compress returns text reduced to at most budget tokens (CountTokens):
// it keeps the first KeepFirst and last KeepLast sentences, then adds the
// other sentences in decreasing score order whenever they still fit (a
// sentence too long for the remaining budget is skipped and smaller ones are
// tried), and emits the kept sentences in their original order, each
// followed by the whitespace that followed it in the input. A text that
// already fits is returned unchanged. If the always-kept sentences alone
// exceed the budget, it returns a *BudgetError (which wraps ErrBudget).
func (c *Compressor) Compress(text string, budget int) (Result, error) {
	if budget <= 0 {
		return Result{}, fmt.Errorf("compress: budget = %d: must be > 0 tokens", budget)
	}
	c.spans = splitSpans(text, c.spans[:0])
	n := len(c.spans)
	// Sentences are separated by whitespace only (or follow a CJK stop,
	// itself a one-token symbol), and CountTokens restarts its runs at such
	// boundaries, so the text's count is exactly the sum of its sentences'
	// (TestCountAdditive checks it).
	c.tok = grow(c.tok, n)
	total := 0
	for i, s := range c.spans {
		c.tok[i] = CountTokens(text[s.start:s.end])
		total += c.tok[i]
	}
	res := Result{Text: text, OriginalTokens: total, Tokens: total, Sentences: n, Kept: n}
	if total <= budget {
		return res, nil
	}
	c.keep = grow(c.keep, n)
	used := 0
	for i := 0; i < n; i++ {
		if i < KeepFirst || i >= n-KeepLast {
			c.keep[i] = true
			used += c.tok[i]
		}
	}
	if used > budget {
		return res, &BudgetError{Budget: budget, Need: used}
	}
	c.scoreSentences(text)
	c.order = c.order[:0]
	for i := 0; i < n; i++ {
		if !c.keep[i] {
			c.order = append(c.order, int32(i))
		}
	}
	slices.SortStableFunc(c.order, func(a, b int32) int {
		switch sa, sb := c.score[a], c.score[b]; {
		case sa > sb:
			return -1
		case sa < sb:
			return 1
		}
		return 0
	})
	for _, i := range c.order {
		if used+c.tok[i] <= budget {
			c.keep[i] = true
			used += c.tok[i]
		}
	}
	var sb strings.Builder
	sb.Grow(len(text))
	kept, last := 0, -1
	for i := 0; i < n; i++ {
		if !c.keep[i] {
			continue
		}
		if last >= 0 {
			// the whitespace that followed the previous kept sentence
			sb.WriteString(text[c.spans[last].end:c.spans[last+1].start])
		}
		sb.WriteString(text[c.spans[i].start:c.spans[i].end])
		kept, last = kept+1, i
	}
	res.Text = sb.String()
	res.Tokens = used
	res.Kept = kept
	res.Compressed = true
	return res, nil
}

func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	s = s[:n]
	clear(s)
	return s
}

// scoreSentences fills c.score for the sentences in c.spans.
func (c *Compressor) scoreSentences(text string) {
	n := len(c.spans)
	c.indexTerms(text)
	nt := len(c.df)
	// idf (smoothed) and the sentences' normalized TF-IDF vectors
	c.idf = grow(c.idf, nt)
	for t, d := range c.df {
		c.idf[t] = math.Log(float64(1+n)/float64(1+d)) + 1
	}
	c.w = grow(c.w, len(c.terms))
	c.tfidf = grow(c.tfidf, n)
	maxTFIDF := 0.0
	for i := 0; i < n; i++ {
		a, b := c.termOff[i], c.termOff[i+1]
		sum, sq, cnt := 0.0, 0.0, 0.0
		for k := a; k < b; k++ {
			x := c.tf[k] * c.idf[c.terms[k]]
			c.w[k] = x
			sum += x
			sq += x * x
			cnt += c.tf[k]
		}
		if cnt > 0 {
			c.tfidf[i] = sum / cnt
			maxTFIDF = max(maxTFIDF, c.tfidf[i])
			inv := 1 / math.Sqrt(sq)
			for k := a; k < b; k++ {
				c.w[k] *= inv
			}
		}
	}
	c.similarityGraph(n, nt)
	c.textRank(n)
	maxPR := 0.0
	for _, p := range c.pr[:n] {
		maxPR = max(maxPR, p)
	}
	c.score = grow(c.score, n)
	for i := 0; i < n; i++ {
		pos := 1.0
		if n > 1 {
			x := float64(i) / float64(n-1)
			pos = 1 - 4*x*(1-x)
		}
		s := WeightPosition*pos + WeightNovelty*(1-c.novel[i])
		if maxPR > 0 {
			s += WeightTextRank * c.pr[i] / maxPR
		}
		if maxTFIDF > 0 {
			s += WeightTFIDF * c.tfidf[i] / maxTFIDF
		}
		c.score[i] = s
	}
}

// indexTerms fills termOff, terms, tf and df from the sentences' words:
// lower-cased runs of letters and digits (at least two characters, English
// stop words removed) and single CJK characters.
func (c *Compressor) indexTerms(text string) {
	// The vocabulary (64-bit word hash -> global id, stop words -> -1)
	// persists across calls, so a repeated word costs one map lookup and no
	// allocation; it is rebuilt when it grows past maxVocab words. Global ids
	// map to this call's dense local ids through an epoch stamp. Two words
	// share a term only if their 64-bit FNV-1a hashes collide (probability
	// about n²/2⁶⁵ for n distinct words: 10⁻¹¹ for 20,000 words).
	if c.vocab == nil || len(c.vocab) > maxVocab {
		c.vocab = make(map[uint64]int32, 4096)
		for w := range stopWords {
			h := uint64(fnvOffset)
			for _, r := range w {
				h = fnvAdd(h, r)
			}
			c.vocab[h] = -1
		}
		c.nglobal = 0
		c.local = c.local[:0]
		c.stamp = c.stamp[:0]
	}
	c.epoch++
	c.df = c.df[:0]
	c.terms = c.terms[:0]
	c.tf = c.tf[:0]
	c.termOff = append(c.termOff[:0], 0)
	c.lastSent = c.lastSent[:0]
	c.slot = c.slot[:0]
	for i, sp := range c.spans {
		c.cur = int32(i + 1)
		c.indexSentence(text[sp.start:sp.end])
		c.termOff = append(c.termOff, int32(len(c.terms)))
	}
}

const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

// fnvAdd feeds one rune to a 64-bit FNV-1a hash.
func fnvAdd(h uint64, r rune) uint64 { return (h ^ uint64(r)) * fnvPrime }

// indexSentence adds the terms of sentence s, the same words as
// forEachWord gives (lower-cased runs of letters and digits, and single CJK
// characters), hashed on the fly instead of copied.
func (c *Compressor) indexSentence(s string) {
	i := 0
	for i < len(s) {
		ch := s[i]
		if ch < utf8.RuneSelf && !isASCIILetter(ch) && !(ch >= '0' && ch <= '9') {
			i++
			continue
		}
		if ch >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if isCJK(r) {
				c.addTerm(fnvAdd(fnvOffset, r))
				i += size
				continue
			}
			if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
				i += size
				continue
			}
		}
		// a word: ASCII letters and digits, and non-CJK letters and digits
		h, n := uint64(fnvOffset), 0
		for i < len(s) {
			ch = s[i]
			if ch < utf8.RuneSelf {
				if isASCIILetter(ch) {
					ch |= 0x20
				} else if !(ch >= '0' && ch <= '9') {
					break
				}
				h = fnvAdd(h, rune(ch))
				n++
				i++
				continue
			}
			r, size := utf8.DecodeRuneInString(s[i:])
			if isCJK(r) || !(unicode.IsLetter(r) || unicode.IsDigit(r)) {
				break
			}
			h = fnvAdd(h, unicode.ToLower(r))
			n++
			i += size
		}
		if n >= 2 {
			c.addTerm(h)
		}
	}
}

// addTerm counts the term with hash h in the current sentence c.cur (stop
// words are skipped): a new term of the sentence is appended to c.terms, a
// repeated one increments its tf.
func (c *Compressor) addTerm(h uint64) {
	g, ok := c.vocab[h]
	if !ok {
		g = c.nglobal
		c.nglobal++
		c.vocab[h] = g
		c.local = append(c.local, 0)
		c.stamp = append(c.stamp, 0)
	}
	if g < 0 {
		return
	}
	if c.stamp[g] != c.epoch {
		c.stamp[g] = c.epoch
		c.local[g] = int32(len(c.df))
		c.df = append(c.df, 0)
		c.lastSent = append(c.lastSent, 0)
		c.slot = append(c.slot, 0)
	}
	l := c.local[g]
	if c.lastSent[l] == c.cur {
		c.tf[c.slot[l]]++
		return
	}
	c.lastSent[l] = c.cur
	c.slot[l] = int32(len(c.terms))
	c.terms = append(c.terms, l)
	c.tf = append(c.tf, 1)
	c.df[l]++
}

// maxVocab bounds the persistent vocabulary, words.
const maxVocab = 1 << 17

// forEachWord calls f with each word of s lower-cased into *buf: runs of
// letters and digits, and each CJK character on its own (cjk = true).
func forEachWord(s string, buf *[]byte, f func(w []byte, cjk bool)) {
	i := 0
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			if isASCIILetter(c) || (c >= '0' && c <= '9') {
				b := (*buf)[:0]
				for i < len(s) {
					c = s[i]
					if c >= utf8.RuneSelf {
						r, size := utf8.DecodeRuneInString(s[i:])
						if isCJK(r) || !(unicode.IsLetter(r) || unicode.IsDigit(r)) {
							break
						}
						b = utf8.AppendRune(b, unicode.ToLower(r))
						i += size
						continue
					}
					if !isASCIILetter(c) && !(c >= '0' && c <= '9') {
						break
					}
					if c >= 'A' && c <= 'Z' {
						c += 'a' - 'A'
					}
					b = append(b, c)
					i++
				}
				*buf = b
				f(b, false)
				continue
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case isCJK(r):
			b := utf8.AppendRune((*buf)[:0], r)
			*buf = b
			f(b, true)
			i += size
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			b := (*buf)[:0]
			for i < len(s) {
				r, size = utf8.DecodeRuneInString(s[i:])
				if isCJK(r) || !(unicode.IsLetter(r) || unicode.IsDigit(r)) {
					break
				}
				b = utf8.AppendRune(b, unicode.ToLower(r))
				i += size
			}
			*buf = b
			f(b, false)
		default:
			i += size
		}
	}
}

// maxPostings caps the sentences a term may appear in and still link them in
// the similarity graph. With it the graph costs at most maxPostings times the
// number of term occurrences, linear in the prompt, even on adversarial text
// (thousands of sentences sharing a word); on ordinary prompts of up to 500
// sentences it never binds, because half the sentences is lower.
const maxPostings = 256

// similarityGraph builds the sentences' cosine-similarity graph from an
// inverted index (only pairs that share a term are visited; terms present in
// more than half of the sentences, or in more than maxPostings, carry little
// signal and are skipped, which bounds the work on long prompts) and fills
// the novelty of each sentence.
func (c *Compressor) similarityGraph(n, nt int) {
	// postings, in sentence order
	c.postOff = grow(c.postOff, nt+1)
	for t, d := range c.df {
		c.postOff[t+1] = c.postOff[t] + d
	}
	m := len(c.terms)
	c.postSent = grow(c.postSent, m)
	c.postW = grow(c.postW, m)
	c.cursor = grow(c.cursor, nt)
	copy(c.cursor, c.postOff[:nt])
	for i := 0; i < n; i++ {
		for k := c.termOff[i]; k < c.termOff[i+1]; k++ {
			t := c.terms[k]
			p := c.cursor[t]
			c.postSent[p] = int32(i)
			c.postW[p] = c.w[k]
			c.cursor[t]++
		}
	}
	copy(c.cursor, c.postOff[:nt])
	maxDF := int32(min(n/2, maxPostings))
	if maxDF < 2 {
		maxDF = 2
	}
	c.acc = grow(c.acc, n)
	c.novel = grow(c.novel, n) // holds the max similarity to an earlier sentence for now
	c.edges = c.edges[:0]
	for i := 0; i < n; i++ {
		c.touched = c.touched[:0]
		for k := c.termOff[i]; k < c.termOff[i+1]; k++ {
			t := c.terms[k]
			p := c.cursor[t] + 1 // postings after sentence i itself
			c.cursor[t] = p
			if c.df[t] > maxDF {
				continue
			}
			wi := c.w[k]
			end := c.postOff[t+1]
			for ; p < end; p++ {
				j := c.postSent[p]
				if c.acc[j] == 0 {
					c.touched = append(c.touched, j)
				}
				c.acc[j] += wi * c.postW[p]
			}
		}
		for _, j := range c.touched {
			s := c.acc[j]
			c.acc[j] = 0
			c.edges = append(c.edges, edge{int32(i), j, s})
			if s > c.novel[j] {
				c.novel[j] = s
			}
		}
	}
	for i := range c.novel[:n] {
		c.novel[i] = min(1, c.novel[i])
	}
	// symmetric CSR adjacency
	c.rowOff = grow(c.rowOff, n+1)
	for _, e := range c.edges {
		c.rowOff[e.i+1]++
		c.rowOff[e.j+1]++
	}
	for i := 0; i < n; i++ {
		c.rowOff[i+1] += c.rowOff[i]
	}
	ne := int(c.rowOff[n])
	c.nbr = grow(c.nbr, ne)
	c.coef = grow(c.coef, ne)
	c.outW = grow(c.outW, n)
	c.cursor = grow(c.cursor, n)
	copy(c.cursor, c.rowOff[:n])
	for _, e := range c.edges {
		c.nbr[c.cursor[e.i]], c.coef[c.cursor[e.i]] = e.j, e.w
		c.cursor[e.i]++
		c.nbr[c.cursor[e.j]], c.coef[c.cursor[e.j]] = e.i, e.w
		c.cursor[e.j]++
		c.outW[e.i] += e.w
		c.outW[e.j] += e.w
	}
	// coef[i←j] = w_ij / outW_j (outW becomes its inverse)
	for i, w := range c.outW {
		if w > 0 {
			c.outW[i] = 1 / w
		}
	}
	for k, j := range c.nbr {
		c.coef[k] *= c.outW[j]
	}
}

// textRank runs the weighted PageRank of TextRank on the CSR graph by
// Gauss–Seidel sweeps (each update uses the newest values, which converges in
// about half the sweeps of Jacobi iteration): at most textRankMaxIter sweeps,
// stopping when the L1 change of a sweep drops below textRankTol (the scores
// sum to about 1, so that is 0.1% of the total; only their order matters
// here).
func (c *Compressor) textRank(n int) {
	c.pr = grow(c.pr, n)
	for i := range c.pr {
		c.pr[i] = 1 / float64(n)
	}
	base := (1 - textRankDamping) / float64(n)
	pr, nbr, coef, off := c.pr, c.nbr, c.coef, c.rowOff
	for it := 0; it < textRankMaxIter; it++ {
		delta := 0.0
		for i := 0; i < n; i++ {
			s := 0.0
			for k := off[i]; k < off[i+1]; k++ {
				s += coef[k] * pr[nbr[k]]
			}
			v := base + textRankDamping*s
			delta += math.Abs(v - pr[i])
			pr[i] = v
		}
		c.iters = it + 1
		if delta < textRankTol {
			break
		}
	}
}

// stopWords are common English function words, excluded from the terms.
var stopWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a about above after again against all am an and any are as at be because been
before being below between both but by can could did do does doing down during each few for from further
had has have having he her here hers herself him himself his how i if in into is it its itself just me more
most my myself no nor not now of off on once only or other our ours ourselves out over own same she should so
some such than that the their theirs them themselves then there these they this those through to too under
until up very was we were what when where which while who whom why will with would you your yours yourself
yourselves also may might must shall us via per one two`) {
		stopWords[w] = true
	}
}
