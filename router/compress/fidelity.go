package compress

import (
	"maps"
	"math"
	"math/bits"
	"slices"
	"unicode/utf8"
)

// Fidelity compares a compressed prompt with its original (FleetOpt paper
// Appendix C, Table 7).
type Fidelity struct {
	// ROUGELRecall is the length of the longest common subsequence of the
	// two texts' words divided by the original's word count, in [0, 1].
	// Words are lower-cased runs of letters and digits and single CJK
	// characters, stop words included.
	ROUGELRecall float64
	// TFIDFCosine is the cosine similarity of the two texts' TF-IDF vectors,
	// in [0, 1]. Terms are those of the compressor's scoring (stop words
	// removed); the IDF is computed over the original's sentences, so it is
	// the same weighting the compressor scores with.
	TFIDFCosine float64
}

// Measure returns the fidelity of compressed with respect to original. It
// costs O(|original|·|compressed|/64) word operations (the LCS), so it is
// meant for reports, not for the routing path.
func Measure(original, compressed string) Fidelity {
	var f Fidelity
	// ROUGE-L recall over all words
	vocab := map[string]int32{}
	var buf []byte
	ids := func(s string) []int32 {
		var out []int32
		forEachWord(s, &buf, func(w []byte, _ bool) {
			id, ok := vocab[string(w)]
			if !ok {
				id = int32(len(vocab))
				vocab[string(w)] = id
			}
			out = append(out, id)
		})
		return out
	}
	a, b := ids(original), ids(compressed)
	if len(a) > 0 {
		f.ROUGELRecall = float64(lcs(a, b)) / float64(len(a))
	}
	// TF-IDF cosine with the original's sentence-level IDF
	spans := splitSpans(original, nil)
	df := map[string]int{}
	seen := map[string]bool{}
	for _, s := range spans {
		clear(seen)
		forEachWord(original[s.start:s.end], &buf, func(w []byte, cjk bool) {
			if !cjk && (utf8.RuneCount(w) < 2 || stopWords[string(w)]) {
				return
			}
			if !seen[string(w)] {
				seen[string(w)] = true
				df[string(w)]++
			}
		})
	}
	n := float64(len(spans))
	tf := func(s string) map[string]float64 {
		m := map[string]float64{}
		forEachWord(s, &buf, func(w []byte, cjk bool) {
			if !cjk && (utf8.RuneCount(w) < 2 || stopWords[string(w)]) {
				return
			}
			m[string(w)]++
		})
		return m
	}
	ta, tb := tf(original), tf(compressed)
	// Sum in a fixed (sorted) order: map order would change the last bits
	// from run to run, and reports must be byte-identical.
	var dot, na, nb float64
	for _, w := range slices.Sorted(maps.Keys(ta)) {
		x := ta[w]
		idf := math.Log((1+n)/float64(1+df[w])) + 1
		x *= idf
		na += x * x
		if y, ok := tb[w]; ok {
			dot += x * y * idf
		}
	}
	for _, w := range slices.Sorted(maps.Keys(tb)) {
		y := tb[w]
		idf := math.Log((1+n)/float64(1+df[w])) + 1
		y *= idf
		nb += y * y
	}
	if na > 0 && nb > 0 {
		f.TFIDFCosine = min(1, dot/math.Sqrt(na*nb))
	}
	return f
}

// lcs returns the length of the longest common subsequence of a and b with
// the bit-parallel algorithm of Allison and Dix (1986) in Hyyrö's form
// (2004): one bit per element of a, V ← (V + (V ∧ M_y)) ∨ (V ∧ ¬M_y) for each
// y of b, where M_y marks the positions of y in a; the LCS length is the
// number of zero bits of V. Cost O(|a|·|b|/64) word operations.
func lcs(a, b []int32) int {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	m := len(a)
	w := (m + 63) / 64
	idx := make(map[int32]int, 256)
	var masks []uint64
	for i, x := range a {
		k, ok := idx[x]
		if !ok {
			k = len(masks) / w
			idx[x] = k
			masks = append(masks, make([]uint64, w)...)
		}
		masks[k*w+i/64] |= 1 << (i % 64)
	}
	v := make([]uint64, w)
	for i := range v {
		v[i] = ^uint64(0)
	}
	for _, y := range b {
		k, ok := idx[y]
		if !ok {
			continue
		}
		mk := masks[k*w : (k+1)*w]
		var carry uint64
		for i := range v {
			u := v[i] & mk[i]
			sum, c := bits.Add64(v[i], u, carry)
			v[i] = sum | (v[i] &^ mk[i])
			carry = c
		}
	}
	zeros := 0
	for i, x := range v {
		if i == w-1 && m%64 != 0 {
			x |= ^uint64(0) << (m % 64)
		}
		zeros += 64 - bits.OnesCount64(x)
	}
	return zeros
}
