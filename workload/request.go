// Package workload describes the requests a fleet serves: token-length
// distributions (CDFs), arrival processes, trace readers, input/output split
// models and content categories.
package workload

import "fmt"

// Category is a request's content category. Each category has a true
// bytes-per-token ratio that links a prompt's byte length to its token count.
type Category uint8

// The content categories of the token-budget paper (Table 4) plus RAG.
const (
	Prose         Category = iota // English prose, 4.48 bytes/token
	Code                          // source code, 3.52 bytes/token
	CJK                           // Chinese/Japanese/Korean text, 2.01 bytes/token
	RAG                           // retrieval-augmented prompts (mostly prose)
	Mixed                         // mixed or other content, 3.81 bytes/token
	NumCategories                 // number of categories; not a category
)

var categoryNames = [...]string{"prose", "code", "cjk", "rag", "mixed"}

// String returns the category's lower-case name ("prose", "code", ...).
func (c Category) String() string {
	if int(c) < len(categoryNames) {
		return categoryNames[c]
	}
	return fmt.Sprintf("category(%d)", uint8(c))
}

// ParseCategory returns the category with the given lower-case name.
func ParseCategory(s string) (Category, error) {
	for i, n := range categoryNames {
		if n == s {
			return Category(i), nil
		}
	}
	return 0, fmt.Errorf("unknown category %q (allowed: prose, code, cjk, rag, mixed)", s)
}

// Request is one inference request as the fleet sees it.
//
// InputTokens and OutputTokens are the true token counts (what the engine
// processes); Bytes and MaxOutputTokens are what a router can observe before
// the request runs.
type Request struct {
	ID              int64    // arrival order, 0-based
	Arrival         float64  // arrival time, seconds since the start of the run
	InputTokens     int      // true prompt length L_in, tokens
	OutputTokens    int      // tokens the request will generate L_out (>= 1)
	MaxOutputTokens int      // declared output cap, tokens (>= OutputTokens)
	Bytes           int      // prompt length in bytes
	Category        Category // content category
	// Prefix names the prompt's content for prefix caching (nil: none; see
	// Prefix). Requests may share one Prefix; nobody changes it.
	Prefix *Prefix
}

// Prefix describes a prompt's content as a hash chain: Hashes[k] names the
// prompt's tokens [k·Tokens, (k+1)·Tokens) given all tokens before them, so
// two prompts share their first k+1 units exactly when Hashes[0..k] are
// equal. A Mooncake trace gives its hash_ids with Tokens = 512; synthetic
// prefixes use Tokens = 16 (one hash per KV block). Its fields match
// engine.Prefix exactly, so a *Prefix converts to *engine.Prefix without a
// copy.
type Prefix struct {
	Hashes []uint64 // content hashes, one per Tokens tokens
	Tokens int      // tokens each hash covers
}

// TotalTokens returns L_in + L_out.
func (r *Request) TotalTokens() int { return r.InputTokens + r.OutputTokens }
