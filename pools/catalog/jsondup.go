package catalog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode"
)

// CheckDuplicateKeys returns an error naming the first key that appears
// twice in one JSON object of data; encoding/json would keep the last value
// without a word. Keys that differ only by case are the same key: the
// decoder matches a field without regard to case. Syntax errors are left to the decoder (nil here).
func CheckDuplicateKeys(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	// Each open object has its set of keys; arrays have nil. expectKey
	// says whether the next string in the current object is a key.
	type frame struct {
		keys      map[string]string // folded key → the key as written
		expectKey bool
	}
	var stack []frame
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) || err != nil {
			return nil
		}
		top := len(stack) - 1
		if d, ok := tok.(json.Delim); ok {
			if top >= 0 && stack[top].keys != nil {
				stack[top].expectKey = true // the value just opened ends with its delimiter
			}
			switch d {
			case '{':
				stack = append(stack, frame{keys: map[string]string{}, expectKey: true})
			case '[':
				stack = append(stack, frame{})
			default:
				stack = stack[:top]
				if n := len(stack) - 1; n >= 0 && stack[n].keys != nil {
					stack[n].expectKey = true
				}
			}
			continue
		}
		if top < 0 || stack[top].keys == nil {
			continue
		}
		if stack[top].expectKey {
			k, _ := tok.(string)
			fk := foldKey(k)
			if first, dup := stack[top].keys[fk]; dup {
				if first != k {
					return fmt.Errorf("key %q given twice in one object (as %q; keys match regardless of case)", k, first)
				}
				return fmt.Errorf("key %q given twice in one object", k)
			}
			stack[top].keys[fk] = k
			stack[top].expectKey = false
		} else {
			stack[top].expectKey = true
		}
	}
}

// foldKey maps each rune of k to the smallest rune of its simple case
// folding orbit, so that foldKey(a) == foldKey(b) exactly when
// bytes.EqualFold(a, b), encoding/json's rule for matching a field.
func foldKey(k string) string {
	return strings.Map(func(r rune) rune {
		least := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			least = min(least, f)
		}
		return least
	}, k)
}
