package workload

import (
	"math"
	"math/rand/v2"
	"sort"
	"strings"
)

// trueBytesPerToken holds each category's true bytes-per-token ratio, bytes
// per token. Prose, code, CJK and mixed are the "True c_k" column of Table 4
// of the token-budget pool-routing paper. RAG is our choice, 4.20: retrieved
// passages are mostly English prose (4.48) with some markup, tables and
// identifiers that tokenize less efficiently, so a little below prose.
var trueBytesPerToken = [NumCategories]float64{
	Prose: 4.48,
	Code:  3.52,
	CJK:   2.01,
	RAG:   4.20,
	Mixed: 3.81,
}

// BytesPerToken returns the category's true bytes-per-token ratio, bytes per
// token (prose 4.48, code 3.52, CJK 2.01, RAG 4.20, mixed 3.81), or NaN for
// an unknown category.
func (c Category) BytesPerToken() float64 {
	if c < NumCategories {
		return trueBytesPerToken[c]
	}
	return math.NaN()
}

// BytesJitter is the relative standard deviation of a request's own
// bytes-per-token ratio around its category's true ratio: a request of
// category k with L_in prompt tokens has
// Bytes = max(1, round(L_in * c_k * (1 + BytesJitter*z))), z ~ N(0, 1)
// clipped to [-3, 3], so the mean ratio over many requests is exactly c_k.
const BytesJitter = 0.05

// categoryShareTolerance is how far the shares of a category mix may sum from 1.
const categoryShareTolerance = 1e-9

// categoryMix draws categories and byte lengths (stream StreamCategories).
type categoryMix struct {
	cum  [NumCategories]float64 // cumulative shares in category order
	last Category               // the last category with a positive share
	only bool                   // a single category: no category draw
	r    *rand.Rand
}

// validateCategories checks a category mix: known names, finite shares in
// [0, 1], summing to 1 within 1e-9.
func validateCategories(m map[string]float64) error {
	if len(m) == 0 {
		return nil
	}
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names) // deterministic error order
	sum := 0.0
	for _, n := range names {
		if _, err := ParseCategory(n); err != nil {
			return fieldErr("categories", n, "unknown category (allowed: prose, code, cjk, rag, mixed)")
		}
		v := m[n]
		if math.IsNaN(v) || v < 0 || v > 1 {
			return fieldErr("categories."+n, v, "a share must be in [0, 1]")
		}
		sum += v
	}
	if math.Abs(sum-1) > categoryShareTolerance {
		return fieldErr("categories", sum, "the shares (%s) must sum to 1", strings.Join(names, ", "))
	}
	return nil
}

// newCategoryMix builds a validated mix; empty means all prose.
func newCategoryMix(m map[string]float64, r *rand.Rand) (*categoryMix, error) {
	if err := validateCategories(m); err != nil {
		return nil, err
	}
	cm := &categoryMix{r: r}
	if len(m) == 0 {
		m = map[string]float64{"prose": 1}
	}
	var share [NumCategories]float64
	for n, v := range m {
		c, _ := ParseCategory(n)
		share[c] = v
	}
	acc, nonzero := 0.0, 0
	for c := range NumCategories {
		acc += share[c]
		cm.cum[c] = acc
		if share[c] > 0 {
			cm.last = c
			nonzero++
		}
	}
	cm.only = nonzero == 1
	return cm, nil
}

// draw returns a category and the prompt's byte length for in prompt tokens.
func (cm *categoryMix) draw(in int) (Category, int) {
	c := cm.last
	if !cm.only {
		u := cm.r.Float64() * cm.cum[NumCategories-1] // shares may sum to 1±1e-9
		for k := range NumCategories {
			if u < cm.cum[k] {
				c = k
				break
			}
		}
	}
	return c, cm.bytes(c, in)
}

// bytes returns the byte length of a prompt of in tokens of category c.
func (cm *categoryMix) bytes(c Category, in int) int {
	z := cm.r.NormFloat64()
	z = min(max(z, -3), 3)
	b := math.Round(float64(in) * trueBytesPerToken[c] * (1 + BytesJitter*z))
	return max(1, int(b))
}
