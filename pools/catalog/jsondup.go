package catalog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// CheckDuplicateKeys returns an error naming the first key that appears
// twice in one JSON object of data; encoding/json would keep the last value
// without a word. Syntax errors are left to the decoder (nil here).
func CheckDuplicateKeys(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	// Each open object has its set of keys; arrays have nil. expectKey
	// says whether the next string in the current object is a key.
	type frame struct {
		keys      map[string]bool
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
				stack = append(stack, frame{keys: map[string]bool{}, expectKey: true})
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
			if stack[top].keys[k] {
				return fmt.Errorf("key %q given twice in one object", k)
			}
			stack[top].keys[k] = true
			stack[top].expectKey = false
		} else {
			stack[top].expectKey = true
		}
	}
}
