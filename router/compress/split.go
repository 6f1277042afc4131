package compress

import (
	"unicode"
	"unicode/utf8"
)

// span is one sentence: text[start:end], trimmed of surrounding whitespace.
type span struct{ start, end int }

// abbreviations that end in a period without ending a sentence (compared
// case-insensitively with the word before the period).
var abbreviations = map[string]bool{
	"e.g": true, "i.e": true, "al": true, "fig": true, "figs": true,
	"eq": true, "eqs": true, "sec": true, "vs": true, "cf": true,
	"dr": true, "mr": true, "mrs": true, "prof": true, "st": true,
	"approx": true, "ref": true, "refs": true, "vol": true, "pp": true, "ch": true,
	"jan": true, "feb": true, "mar": true, "apr": true, "jun": true, "jul": true,
	"aug": true, "sep": true, "sept": true, "oct": true, "nov": true, "dec": true,
	"inc": true, "ltd": true, "co": true, "corp": true, "jr": true, "sr": true,
}

// SplitSentences returns the sentences of text, trimmed of surrounding
// whitespace, in order. The rules (Unicode-aware):
//
//   - a line break ends a sentence (prompts put list items, headings and
//     paragraphs on their own lines);
//   - '.', '!', '?' and '…' (with any closing quotes or brackets after them)
//     end a sentence when whitespace follows and the next word does not
//     start with a lower-case letter, unless the period follows a known
//     abbreviation ("e.g.", "Fig.", "et al.", ...) or a single letter (an
//     initial);
//   - the CJK full stops '。', '！', '？', '．' (with closing brackets such as
//     '」') end a sentence immediately, with no whitespace needed.
func SplitSentences(text string) []string {
	spans := splitSpans(text, nil)
	out := make([]string, len(spans))
	for i, s := range spans {
		out[i] = text[s.start:s.end]
	}
	return out
}

func isCloser(r rune) bool {
	switch r {
	case '"', '\'', ')', ']', '}', '”', '’', '»', '」', '』', '）', '】', '〉', '》':
		return true
	}
	return false
}

func isCJKStop(r rune) bool { return r == '。' || r == '！' || r == '？' || r == '．' }

func isTerminal(r rune) bool { return r == '.' || r == '!' || r == '?' || r == '…' }

// splitSpans appends the sentence spans of text to dst.
func splitSpans(text string, dst []span) []span {
	start := -1 // start of the current sentence; -1 while in whitespace
	emit := func(end int) {
		if start < 0 {
			return
		}
		// trim trailing whitespace
		for end > start {
			r, size := utf8.DecodeLastRuneInString(text[start:end])
			if !unicode.IsSpace(r) {
				break
			}
			end -= size
		}
		if end > start {
			dst = append(dst, span{start, end})
		}
		start = -1
	}
	i := 0
	for i < len(text) {
		r, size := utf8.DecodeRuneInString(text[i:])
		if r == '\n' {
			emit(i)
			i += size
			continue
		}
		if start < 0 {
			if unicode.IsSpace(r) {
				i += size
				continue
			}
			start = i
		}
		switch {
		case isCJKStop(r):
			j := i + size
			for j < len(text) {
				r2, s2 := utf8.DecodeRuneInString(text[j:])
				if !isCloser(r2) && !isCJKStop(r2) {
					break
				}
				j += s2
			}
			emit(j)
			i = j
			continue
		case isTerminal(r):
			wordEnd := i
			j := i + size
			for j < len(text) {
				r2, s2 := utf8.DecodeRuneInString(text[j:])
				if !isCloser(r2) && !isTerminal(r2) {
					break
				}
				j += s2
			}
			if j >= len(text) {
				emit(j)
				i = j
				continue
			}
			r2, _ := utf8.DecodeRuneInString(text[j:])
			if !unicode.IsSpace(r2) || (r == '.' && isAbbreviation(text[start:wordEnd])) {
				i = j
				continue
			}
			// look at the next word
			k := j
			for k < len(text) {
				r3, s3 := utf8.DecodeRuneInString(text[k:])
				if r3 == '\n' || !unicode.IsSpace(r3) {
					break
				}
				k += s3
			}
			if k < len(text) {
				r3, _ := utf8.DecodeRuneInString(text[k:])
				if unicode.IsLower(r3) {
					i = j
					continue
				}
			}
			emit(j)
			i = j
			continue
		}
		i += size
	}
	emit(len(text))
	return dst
}

// isAbbreviation reports whether the sentence prefix s ends with an
// abbreviation or a single-letter initial (the period itself excluded).
func isAbbreviation(s string) bool {
	// the last word of s
	j := len(s)
	i := j
	for i > 0 {
		r, size := utf8.DecodeLastRuneInString(s[:i])
		if unicode.IsSpace(r) || r == '(' || r == '[' || r == '"' {
			break
		}
		i -= size
	}
	w := s[i:j]
	if w == "" {
		return false
	}
	if utf8.RuneCountInString(w) == 1 {
		r, _ := utf8.DecodeRuneInString(w)
		return unicode.IsLetter(r)
	}
	var buf [16]byte
	if len(w) > len(buf) {
		return false
	}
	for k := 0; k < len(w); k++ {
		c := w[k]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf[k] = c
	}
	return abbreviations[string(buf[:len(w)])]
}
