package workload

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"math"
	"math/rand/v2"
	"strings"
)

// CONTRACT (agreed interface; parsing, embedding and sampling are
// implemented by the workload work).

// Point is one breakpoint of a token-length CDF: F is the fraction of
// requests with L_total <= Tokens.
type Point struct {
	Tokens int
	F      float64
}

// CDF is a validated token-length distribution of L_total = L_in + L_out.
// Between breakpoints the lengths are uniform integers: bucket i holds the
// integers in (Points[i-1].Tokens, Points[i].Tokens] with probability
// Points[i].F - Points[i-1].F, and the first bucket holds [1, Points[0].Tokens]
// with probability Points[0].F.
//
// A CDF is immutable once built: its methods never change it, and callers must
// not change Points of a CDF returned by LoadCDF, ParseCDF or NewCDF.
type CDF struct {
	Name   string  // built-in name or file path
	Points []Point // Tokens strictly increasing, F non-decreasing in [0,1], last F = 1
}

// MaxCDFTokens is the largest token length a CDF breakpoint may hold.
const MaxCDFTokens = 1 << 30

// lastFTolerance is how far the last breakpoint's F may be from 1 in a file;
// the value is then set to exactly 1.
const lastFTolerance = 1e-9

//go:embed data/azure_cdf.json data/lmsys_cdf.json data/agent_heavy_cdf.json
var builtinFS embed.FS

// builtinFiles maps the built-in CDF names to their embedded files
// (provenance and licence: data/SOURCES.md).
var builtinFiles = map[string]string{
	"azure":       "data/azure_cdf.json",
	"lmsys":       "data/lmsys_cdf.json",
	"agent-heavy": "data/agent_heavy_cdf.json",
}

// BuiltinCDFs lists the names of the built-in CDFs, in documentation order.
func BuiltinCDFs() []string { return []string{"azure", "lmsys", "agent-heavy"} }

// LoadCDF returns a built-in CDF ("azure", "lmsys", "agent-heavy") or reads a
// CDF JSON file (either [[tokens, F], ...] or {"cdf": [...]}).
//
// The built-ins are the vLLM Semantic Router fleet simulator's CDFs (Apache
// 2.0), embedded in the binary; azure is the empirical CDF of the Azure LLM
// Inference Trace 2023 (CC BY 4.0, Patel et al., Splitwise, ISCA 2024). See
// workload/data/SOURCES.md.
func LoadCDF(nameOrPath string) (*CDF, error) {
	if f, ok := builtinFiles[nameOrPath]; ok {
		data, err := builtinFS.ReadFile(f)
		if err != nil { // cannot happen: the files are embedded
			return nil, fmt.Errorf("workload: built-in cdf %q: %v", nameOrPath, err)
		}
		return ParseCDF(nameOrPath, data)
	}
	if nameOrPath == "" {
		return nil, errors.New(`workload: cdf "": empty name (allowed: azure, lmsys, agent-heavy or a CDF JSON file)`)
	}
	data, err := ReadFileLimit(nameOrPath, MaxCDFBytes)
	var le *LimitError
	if errors.As(err, &le) {
		return nil, fmt.Errorf("workload: cdf: %w", le)
	}
	if err != nil {
		return nil, fmt.Errorf("workload: cdf %q: not a built-in (azure, lmsys, agent-heavy) and not a readable file: %v", nameOrPath, err)
	}
	return ParseCDF(nameOrPath, data)
}

// ParseCDF parses a CDF JSON document, either a list of [tokens, F] pairs or an
// object whose "cdf" key holds that list (other keys are ignored), and
// validates it (see NewCDF). name becomes the CDF's Name and appears in errors.
//
// Tokens must be integers (64 and 64.0 are both accepted). A last F within
// 1e-9 of 1 is set to exactly 1.
func ParseCDF(name string, data []byte) (*CDF, error) {
	var raw []json.RawMessage
	trimmed := bytes.TrimSpace(data)
	switch {
	case len(trimmed) == 0:
		return nil, fmt.Errorf("workload: cdf %q: empty document (want [[tokens, F], ...] or {\"cdf\": [...]})", name)
	case trimmed[0] == '{':
		var obj struct {
			CDF *[]json.RawMessage `json:"cdf"`
		}
		if err := json.Unmarshal(trimmed, &obj); err != nil {
			return nil, fmt.Errorf("workload: cdf %q: invalid JSON: %v", name, err)
		}
		if obj.CDF == nil {
			return nil, fmt.Errorf("workload: cdf %q: object has no \"cdf\" key (want {\"cdf\": [[tokens, F], ...]})", name)
		}
		raw = *obj.CDF
	case trimmed[0] == '[':
		if err := json.Unmarshal(trimmed, &raw); err != nil {
			return nil, fmt.Errorf("workload: cdf %q: invalid JSON: %v", name, err)
		}
	default:
		return nil, fmt.Errorf("workload: cdf %q: document starts with %q (want [[tokens, F], ...] or {\"cdf\": [...]})", name, firstRune(trimmed))
	}
	pts := make([]Point, len(raw))
	for i, r := range raw {
		var pair []float64
		if err := json.Unmarshal(r, &pair); err != nil || len(pair) != 2 {
			return nil, fmt.Errorf("workload: cdf %q: point %d is %s (want a pair [tokens, F] of numbers)", name, i, clip(string(r), 40))
		}
		t := pair[0]
		if t != math.Trunc(t) || t < 1 || t > MaxCDFTokens {
			return nil, fmt.Errorf("workload: cdf %q: point %d: tokens %v must be an integer in [1, %d]", name, i, t, MaxCDFTokens)
		}
		pts[i] = Point{Tokens: int(t), F: pair[1]}
	}
	if n := len(pts); n > 0 && pts[n-1].F != 1 && math.Abs(pts[n-1].F-1) <= lastFTolerance {
		pts[n-1].F = 1
	}
	c := &CDF{Name: name, Points: pts}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return c, nil
}

// NewCDF returns a validated CDF holding a copy of points.
func NewCDF(name string, points []Point) (*CDF, error) {
	c := &CDF{Name: name, Points: append([]Point(nil), points...)}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return c, nil
}

// Validate checks the CDF invariants: at least one point; Tokens integers in
// [1, MaxCDFTokens], strictly increasing; F finite, in [0, 1], non-decreasing;
// last F exactly 1. The error names the CDF, the point and the value.
func (c *CDF) Validate() error {
	if len(c.Points) == 0 {
		return fmt.Errorf("workload: cdf %q: no points (want at least one [tokens, F] pair, the last with F = 1)", c.Name)
	}
	prevT, prevF := 0, 0.0
	for i, p := range c.Points {
		if p.Tokens < 1 || p.Tokens > MaxCDFTokens {
			return fmt.Errorf("workload: cdf %q: point %d: tokens %d must be in [1, %d]", c.Name, i, p.Tokens, MaxCDFTokens)
		}
		if i > 0 && p.Tokens <= prevT {
			return fmt.Errorf("workload: cdf %q: point %d: tokens %d must be greater than the previous point's %d (tokens strictly increasing)", c.Name, i, p.Tokens, prevT)
		}
		if math.IsNaN(p.F) || p.F < 0 || p.F > 1 {
			return fmt.Errorf("workload: cdf %q: point %d: F %v must be in [0, 1]", c.Name, i, p.F)
		}
		if p.F < prevF {
			return fmt.Errorf("workload: cdf %q: point %d: F %v is below the previous point's %v (F must be non-decreasing)", c.Name, i, p.F, prevF)
		}
		prevT, prevF = p.Tokens, p.F
	}
	if last := c.Points[len(c.Points)-1]; last.F != 1 {
		return fmt.Errorf("workload: cdf %q: last point (tokens %d) has F %v (must be 1)", c.Name, last.Tokens, last.F)
	}
	return nil
}

// Bucket is one bucket of a CDF: the integer lengths in (Lo, Hi], each with
// probability P/(Hi-Lo).
type Bucket struct {
	Lo, Hi int     // tokens; the bucket holds the integers Lo+1 .. Hi
	P      float64 // probability of the whole bucket
}

// Mean returns the mean length of the bucket, tokens: (Lo+1+Hi)/2.
func (b Bucket) Mean() float64 { return (float64(b.Lo) + 1 + float64(b.Hi)) / 2 }

// SecondMoment returns E[L^2] within the bucket, tokens^2 (uniform integers
// Lo+1 .. Hi).
func (b Bucket) SecondMoment() float64 {
	// E[L²] = m² + Var[L]; a discrete uniform on n consecutive integers has
	// variance (n²−1)/12. Unlike the difference of the two sums of squares
	// Σ_{k<=Hi} k² − Σ_{k<=Lo} k² (each ~Hi³/3), nothing here cancels, so
	// the result is within a few ulps even for buckets near 2^30 tokens.
	m, n := b.Mean(), float64(b.Hi-b.Lo)
	return m*m + (n*n-1)/12
}

// Buckets iterates over the CDF's buckets in increasing length order,
// including those with zero probability.
func (c *CDF) Buckets() iter.Seq[Bucket] {
	return func(yield func(Bucket) bool) {
		lo, prevF := 0, 0.0
		for _, p := range c.Points {
			if !yield(Bucket{Lo: lo, Hi: p.Tokens, P: p.F - prevF}) {
				return
			}
			lo, prevF = p.Tokens, p.F
		}
	}
}

// Mean returns the exact mean of L_total under the bucket semantics, tokens.
func (c *CDF) Mean() float64 {
	m := 0.0
	for b := range c.Buckets() {
		m += b.P * b.Mean()
	}
	return m
}

// SecondMoment returns the exact E[L_total^2] under the bucket semantics,
// tokens^2.
func (c *CDF) SecondMoment() float64 {
	m := 0.0
	for b := range c.Buckets() {
		if b.P > 0 {
			m += b.P * b.SecondMoment()
		}
	}
	return m
}

// Max returns the largest length the CDF can produce (its last breakpoint),
// tokens.
func (c *CDF) Max() int { return c.Points[len(c.Points)-1].Tokens }

// F returns the CDF at x tokens, interpolating linearly between breakpoints as
// the fleet simulator's cdf_eval does, with F(0) = 0 (so F rises linearly from
// (0, 0) to the first breakpoint) and F(x) = 1 beyond the last breakpoint.
// At integer x this is exactly P(L_total <= x) under the bucket semantics.
func (c *CDF) F(x float64) float64 {
	if !(x > 0) { // also NaN
		return 0
	}
	lo, prevF := 0.0, 0.0
	for _, p := range c.Points {
		hi := float64(p.Tokens)
		if x < hi {
			return prevF + (p.F-prevF)*(x-lo)/(hi-lo)
		}
		if x == hi { // exact at breakpoints
			return p.F
		}
		lo, prevF = hi, p.F
	}
	return 1
}

// Prob returns P(lo < L_total <= hi) for integer token bounds.
func (c *CDF) Prob(lo, hi int) float64 {
	if hi <= lo {
		return 0
	}
	return math.Max(0, c.F(float64(hi))-c.F(float64(lo)))
}

// Quantile returns the smallest integer length L with P(L_total <= L) >= q,
// tokens, under the bucket semantics. q is clamped to [0, 1]; Quantile(0) is
// the smallest length with positive probability.
func (c *CDF) Quantile(q float64) int {
	if !(q > 0) { // q <= 0 or NaN
		q = 0
	}
	if q > 1 {
		q = 1
	}
	lo, prevF := 0, 0.0
	for _, p := range c.Points {
		// q == 0: the first bucket with mass; otherwise the first bucket with
		// F >= q, so that prevF < q <= p.F and the bucket has mass.
		if (q == 0 && p.F > prevF) || (q > 0 && p.F >= q) {
			n := p.Tokens - lo
			k := int(math.Ceil((q - prevF) / (p.F - prevF) * float64(n)))
			return lo + min(max(k, 1), n)
		}
		lo, prevF = p.Tokens, p.F
	}
	return c.Max()
}

// Sample draws one length from the CDF, tokens (>= 1): a bucket with its
// probability, then a uniform integer inside it. It uses one Float64 draw of
// r (inverse transform, the same map as Quantile up to ties at breakpoints).
func (c *CDF) Sample(r *rand.Rand) int {
	return c.sampleU(r.Float64())
}

// sampleU maps u in [0, 1) to a length by inverse transform: the bucket i with
// F[i-1] <= u < F[i], then lo + ceil((u - F[i-1]) / p * n), clamped to the
// bucket. Binary search keeps it O(log points).
func (c *CDF) sampleU(u float64) int {
	pts := c.Points
	i, j := 0, len(pts)-1 // the last point has F = 1 > u
	for i < j {
		h := int(uint(i+j) >> 1)
		if pts[h].F > u {
			j = h
		} else {
			i = h + 1
		}
	}
	return inBucket(pts, i, u)
}

// Restrict returns the distribution of L_total conditional on
// lo < L_total <= hi (token bounds; hi is clipped to Max), renormalized, as a
// new CDF: its breakpoints are lo (F = 0, when lo > 0), the original
// breakpoints strictly inside (lo, hi), and hi (F = 1). Bucket semantics make
// this exact: a bucket cut by lo or hi keeps uniform integers on the part
// kept. It fails when the slice holds no probability.
func (c *CDF) Restrict(lo, hi int) (*CDF, error) {
	if lo < 0 {
		lo = 0
	}
	if hi > c.Max() {
		hi = c.Max()
	}
	if hi <= lo {
		return nil, fmt.Errorf("workload: cdf %q: restrict to (%d, %d]: empty length range (want 0 <= lo < hi, lo < %d)", c.Name, lo, hi, c.Max())
	}
	flo, fhi := c.F(float64(lo)), c.F(float64(hi))
	mass := fhi - flo
	if !(mass > 0) {
		return nil, fmt.Errorf("workload: cdf %q: restrict to (%d, %d]: no probability in that length range", c.Name, lo, hi)
	}
	pts := make([]Point, 0, len(c.Points)+2)
	if lo > 0 {
		pts = append(pts, Point{Tokens: lo, F: 0})
	}
	for _, p := range c.Points {
		if p.Tokens > lo && p.Tokens < hi {
			f := (p.F - flo) / mass
			pts = append(pts, Point{Tokens: p.Tokens, F: min(max(f, 0), 1)})
		}
	}
	pts = append(pts, Point{Tokens: hi, F: 1})
	name := fmt.Sprintf("%s(%d,%d]", c.Name, lo, hi)
	return NewCDF(name, pts)
}

func firstRune(b []byte) string {
	s := string(b)
	for _, r := range s {
		return string(r)
	}
	return ""
}

// clip returns s on one line (white space runs become one space), cut to n
// bytes.
func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}

// lengthSampler is a CDF sampler with a guide table (Chen and Asau's
// method): guide[j] is the first bucket whose F exceeds j/len(guide), so a
// draw u starts at guide[floor(u·len(guide))] and scans forward, about one
// step on average. It gives exactly CDF.Sample's result for the same draw:
// its buckets hold inBucket's operands, computed by the same operations,
// side by side in one slice, so a draw reads one or two 40-byte entries.
type lengthSampler struct {
	guide []int32
	b     []sampleBucket // one per point of the CDF
}

// sampleBucket is bucket i of a lengthSampler: inBucket's operands for
// points[i], lengths in tokens.
type sampleBucket struct {
	f     float64 // F[i]
	prevF float64 // F[i-1], 0 for the first bucket
	width float64 // F[i] - F[i-1]
	n     float64 // lengths in the bucket, Tokens[i] - Tokens[i-1]
	lo    int     // Tokens[i-1], 0 for the first bucket
}

func newLengthSampler(c *CDF) *lengthSampler {
	k := max(64, 4*len(c.Points))
	s := &lengthSampler{guide: make([]int32, k), b: make([]sampleBucket, len(c.Points))}
	i := 0
	for j := range s.guide {
		u := float64(j) / float64(k)
		for c.Points[i].F <= u {
			i++
		}
		s.guide[j] = int32(i)
	}
	for i, p := range c.Points {
		lo, prevF := 0, 0.0
		if i > 0 {
			lo, prevF = c.Points[i-1].Tokens, c.Points[i-1].F
		}
		s.b[i] = sampleBucket{f: p.F, prevF: prevF, width: p.F - prevF, n: float64(p.Tokens - lo), lo: lo}
	}
	return s
}

// sampleU maps a draw u in [0, 1) to a length, as CDF.sampleU (inBucket,
// with the operands read from the bucket).
func (s *lengthSampler) sampleU(u float64) int {
	i := int(s.guide[min(int(u*float64(len(s.guide))), len(s.guide)-1)])
	for s.b[i].f <= u {
		i++
	}
	b := &s.b[i]
	k := int(math.Ceil((u - b.prevF) / b.width * b.n))
	if k < 1 {
		k = 1
	} else if n := int(b.n); k > n {
		k = n
	}
	return b.lo + k
}

// inBucket maps u, with F[i-1] <= u < F[i], to the integer length
// lo + ceil((u - F[i-1]) / p * n) of bucket i, clamped to the bucket.
func inBucket(pts []Point, i int, u float64) int {
	lo, prevF := 0, 0.0
	if i > 0 {
		lo, prevF = pts[i-1].Tokens, pts[i-1].F
	}
	n := pts[i].Tokens - lo
	k := int(math.Ceil((u - prevF) / (pts[i].F - prevF) * float64(n)))
	if k < 1 {
		k = 1
	} else if k > n {
		k = n
	}
	return lo + k
}
