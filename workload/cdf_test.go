package workload

import (
	"math"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func mustCDF(t testing.TB, name string) *CDF {
	t.Helper()
	c, err := LoadCDF(name)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestBuiltinCDFs(t *testing.T) {
	for _, name := range BuiltinCDFs() {
		c := mustCDF(t, name)
		if c.Name != name || len(c.Points) != 18 || c.Max() != 65536 {
			t.Errorf("%s: name %q, %d points, max %d; want 18 points up to 65536", name, c.Name, len(c.Points), c.Max())
		}
	}
}

func TestCDFReferenceValues(t *testing.T) {
	// Reference values: ../shared/data/traces/SOURCES.md (recomputed there
	// from the Azure CSVs) and the breakpoint table in that file.
	tests := []struct {
		cdf  string
		x    float64
		want float64
	}{
		{"azure", 4096, 0.8982082668085861},
		{"azure", 512, 0.2886287032109278},
		{"azure", 0, 0},
		{"azure", -3, 0},
		{"azure", 1e9, 1},
		// Linear interpolation between breakpoints (fleet-sim cdf_eval):
		// halfway between 512 and 768.
		{"azure", 640, (0.2886287032109278 + 0.36427177576725206) / 2},
		// From (0, 0) to the first breakpoint.
		{"azure", 32, 0.00837324818165691 / 2},
		{"lmsys", 1024, 0.8306616774845409},
		{"agent-heavy", 4096, 0.53802},
		{"agent-heavy", 128, 0},
	}
	for _, tt := range tests {
		c := mustCDF(t, tt.cdf)
		if got := c.F(tt.x); math.Abs(got-tt.want) > 1e-15 {
			t.Errorf("%s F(%v) = %v, want %v", tt.cdf, tt.x, got, tt.want)
		}
	}
}

func TestTinyCDFMomentsAndQuantiles(t *testing.T) {
	// Hand computation: [[2, 0.5], [4, 1]] puts 0.25 on each of 1, 2, 3, 4:
	// mean 2.5, E[L^2] = (1+4+9+16)/4 = 7.5.
	c, err := ParseCDF("tiny", []byte(`[[2, 0.5], [4, 1.0]]`))
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Mean(); got != 2.5 {
		t.Errorf("Mean = %v, want 2.5", got)
	}
	if got := c.SecondMoment(); math.Abs(got-7.5) > 1e-12 {
		t.Errorf("SecondMoment = %v, want 7.5", got)
	}
	for _, tt := range []struct {
		q    float64
		want int
	}{{0, 1}, {0.1, 1}, {0.25, 1}, {0.26, 2}, {0.5, 2}, {0.5001, 3}, {0.75, 3}, {0.9, 4}, {1, 4}, {2, 4}, {-1, 1}} {
		if got := c.Quantile(tt.q); got != tt.want {
			t.Errorf("Quantile(%v) = %d, want %d", tt.q, got, tt.want)
		}
	}
	// A zero-probability first bucket: the support starts at 11.
	// Hand computation: uniform on {11, 12}, mean 11.5.
	z, err := ParseCDF("zero-first", []byte(`{"cdf": [[10, 0], [12, 1]], "note": "x"}`))
	if err != nil {
		t.Fatal(err)
	}
	if z.Quantile(0) != 11 || z.Quantile(0.5) != 11 || z.Quantile(0.51) != 12 || z.Mean() != 11.5 {
		t.Errorf("zero-first: Quantile(0)=%d Quantile(.5)=%d Quantile(.51)=%d Mean=%v; want 11, 11, 12, 11.5",
			z.Quantile(0), z.Quantile(0.5), z.Quantile(0.51), z.Mean())
	}
}

// bruteMoments sums over every integer length, P(L = l) = F(l) - F(l-1): an
// independent check of the bucket formulas.
func bruteMoments(c *CDF) (m1, m2 float64) {
	for l := 1; l <= c.Max(); l++ {
		p := c.F(float64(l)) - c.F(float64(l-1))
		m1 += p * float64(l)
		m2 += p * float64(l) * float64(l)
	}
	return m1, m2
}

func TestBuiltinMomentsMatchBruteForce(t *testing.T) {
	for _, name := range BuiltinCDFs() {
		c := mustCDF(t, name)
		m1, m2 := bruteMoments(c)
		if got := c.Mean(); math.Abs(got-m1) > 1e-9*m1 {
			t.Errorf("%s Mean = %v, brute force %v", name, got, m1)
		}
		if got := c.SecondMoment(); math.Abs(got-m2) > 1e-9*m2 {
			t.Errorf("%s SecondMoment = %v, brute force %v", name, got, m2)
		}
	}
}

func TestQuantileIsInverseOfF(t *testing.T) {
	for _, name := range BuiltinCDFs() {
		c := mustCDF(t, name)
		for _, q := range []float64{1e-6, 0.01, 0.1, 0.25, 0.5, 0.9, 0.95, 0.99, 0.999, 1} {
			l := c.Quantile(q)
			// Smallest L with F(L) >= q (tolerance for rounding in F).
			if c.F(float64(l)) < q-1e-12 || (l > 1 && c.F(float64(l-1)) >= q+1e-12) {
				t.Errorf("%s Quantile(%v) = %d: F(%d) = %v, F(%d) = %v", name, q, l, l, c.F(float64(l)), l-1, c.F(float64(l-1)))
			}
		}
	}
}

func TestSampleFrequencies(t *testing.T) {
	c, err := ParseCDF("tiny", []byte(`[[2, 0.5], [3, 0.5], [4, 1]]`))
	if err != nil {
		t.Fatal(err)
	}
	r := NewRand(1, StreamLengths)
	const n = 400000
	var counts [6]int
	for range n {
		l := c.Sample(r)
		if l < 1 || l > 4 {
			t.Fatalf("Sample = %d outside [1, 4]", l)
		}
		counts[l]++
	}
	// Hand computation for [[2,.5],[3,.5],[4,1]]: 1 and 2 have 0.25 each,
	// 3 is a zero-probability bucket, 4 has 0.5.
	want := [6]float64{0, 0.25, 0.25, 0, 0.5, 0}
	for l := 1; l <= 4; l++ {
		// 5 standard deviations of a binomial proportion.
		sd := math.Sqrt(want[l] * (1 - want[l]) / n)
		if got := float64(counts[l]) / n; math.Abs(got-want[l]) > 5*sd+1e-12 {
			t.Errorf("P(L=%d) = %v, want %v", l, got, want[l])
		}
	}
}

func TestSampleMeanAzure(t *testing.T) {
	c := mustCDF(t, "azure")
	r := NewRand(7, StreamLengths)
	const n = 200000
	sum, sum2 := 0.0, 0.0
	for range n {
		l := float64(c.Sample(r))
		sum += l
		sum2 += l * l
	}
	mean := sum / n
	sd := math.Sqrt(sum2/n - mean*mean)
	if want := c.Mean(); math.Abs(mean-want) > 5*sd/math.Sqrt(n) {
		t.Errorf("sample mean %v, exact mean %v (sd %v)", mean, want, sd)
	}
}

func TestRestrict(t *testing.T) {
	c := mustCDF(t, "azure")
	r, err := c.Restrict(512, 4096)
	if err != nil {
		t.Fatal(err)
	}
	if r.Quantile(0) != 513 || r.Max() != 4096 {
		t.Errorf("restricted support [%d, %d], want [513, 4096]", r.Quantile(0), r.Max())
	}
	// Exact conditional mean by brute force over the original CDF.
	mass := c.Prob(512, 4096)
	num := 0.0
	for l := 513; l <= 4096; l++ {
		num += float64(l) * (c.F(float64(l)) - c.F(float64(l-1)))
	}
	if got, want := r.Mean(), num/mass; math.Abs(got-want) > 1e-9*want {
		t.Errorf("restricted mean %v, want %v", got, want)
	}
	// A cut inside a bucket: (600, 700] lies inside (512, 768], uniform.
	in, err := c.Restrict(600, 700)
	if err != nil {
		t.Fatal(err)
	}
	if got := in.Mean(); got != 650.5 {
		t.Errorf("Restrict(600, 700).Mean = %v, want 650.5", got)
	}
	// Restrict(0, Max) is the CDF itself.
	all, err := c.Restrict(0, 1<<40)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(all.Mean()-c.Mean()) > 1e-9 {
		t.Errorf("Restrict(0, inf).Mean = %v, want %v", all.Mean(), c.Mean())
	}
	// No mass: azure has F = 0.9999645... at both 8192 and 12288.
	if _, err := c.Restrict(8192, 12288); err == nil || !strings.Contains(err.Error(), "no probability") {
		t.Errorf("Restrict(8192, 12288) error = %v, want no probability", err)
	}
	if _, err := c.Restrict(100, 100); err == nil {
		t.Error("Restrict(100, 100) succeeded, want an error")
	}
}

func TestBuckets(t *testing.T) {
	c := mustCDF(t, "lmsys")
	sum, n, lo := 0.0, 0, 0
	for b := range c.Buckets() {
		if b.Lo != lo || b.Hi <= b.Lo {
			t.Errorf("bucket %d = (%d, %d], want lo %d", n, b.Lo, b.Hi, lo)
		}
		sum += b.P
		lo = b.Hi
		n++
	}
	if n != len(c.Points) || math.Abs(sum-1) > 1e-12 {
		t.Errorf("%d buckets with total probability %v, want %d and 1", n, sum, len(c.Points))
	}
}

func TestLoadCDFFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "my.json")
	if err := os.WriteFile(p, []byte(`{"cdf": [[100, 0.4], [200.0, 0.9999999999]]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := LoadCDF(p)
	if err != nil {
		t.Fatal(err)
	}
	if c.Name != p || c.Points[1] != (Point{200, 1}) {
		t.Errorf("got %q %v, want last point {200 1}", c.Name, c.Points)
	}
	if _, err := LoadCDF(filepath.Join(dir, "missing.json")); err == nil || !strings.Contains(err.Error(), "not a built-in") {
		t.Errorf("missing file: error %v", err)
	}
}

func TestParseCDFErrors(t *testing.T) {
	tests := []struct {
		in   string
		want string // substring of the error
	}{
		{``, "empty document"},
		{`   `, "empty document"},
		{`hello`, `document starts with "h"`},
		{`[[1, 0.5]`, "invalid JSON"},
		{`{"points": []}`, `no "cdf" key`},
		{`{"cdf": 3}`, "invalid JSON"},
		{`[]`, "no points"},
		{`{"cdf": []}`, "no points"},
		{`[[1, 0.5, 3]]`, "point 0 is [1, 0.5, 3]"},
		{`[["a", 1]]`, `point 0 is ["a", 1]`},
		{`[[0, 1]]`, "point 0: tokens 0 must be an integer in [1, 1073741824]"},
		{`[[-5, 1]]`, "tokens -5 must be an integer"},
		{`[[1.5, 1]]`, "tokens 1.5 must be an integer"},
		{`[[2e9, 1]]`, "tokens 2e+09 must be an integer"},
		{`[[10, 0.5], [10, 1]]`, "point 1: tokens 10 must be greater than the previous point's 10"},
		{`[[10, 0.5], [5, 1]]`, "point 1: tokens 5 must be greater than the previous point's 10"},
		{`[[10, 0.6], [20, 0.5], [30, 1]]`, "point 1: F 0.5 is below the previous point's 0.6"},
		{`[[10, -0.1], [20, 1]]`, "point 0: F -0.1 must be in [0, 1]"},
		{`[[10, 1.5]]`, "point 0: F 1.5 must be in [0, 1]"},
		{`[[10, 0.5], [20, 0.9]]`, "last point (tokens 20) has F 0.9 (must be 1)"},
	}
	for _, tt := range tests {
		_, err := ParseCDF("x.json", []byte(tt.in))
		if err == nil {
			t.Errorf("ParseCDF(%q) succeeded, want error containing %q", tt.in, tt.want)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, tt.want) || !strings.Contains(msg, `cdf "x.json"`) || strings.Contains(msg, "\n") {
			t.Errorf("ParseCDF(%q) error %q, want one line naming the file and containing %q", tt.in, msg, tt.want)
		}
	}
}

func TestNewCDFValidates(t *testing.T) {
	if _, err := NewCDF("nan", []Point{{10, math.NaN()}, {20, 1}}); err == nil {
		t.Error("NaN F accepted")
	}
	pts := []Point{{10, 0.5}, {20, 1}}
	c, err := NewCDF("ok", pts)
	if err != nil {
		t.Fatal(err)
	}
	pts[0].F = 0.9 // NewCDF copied the points
	if c.Points[0].F != 0.5 {
		t.Error("NewCDF did not copy its points")
	}
}

// TestLengthSamplerMatchesSample checks the guide-table sampler against the
// binary search on every built-in CDF, at random draws and at the
// breakpoints (where ties are decided).
func TestLengthSamplerMatchesSample(t *testing.T) {
	r := NewRand(3, StreamLengths)
	for _, name := range BuiltinCDFs() {
		c := mustCDF(t, name)
		s := newLengthSampler(c)
		us := []float64{0, math.Nextafter(1, 0)}
		for _, p := range c.Points {
			if p.F < 1 {
				us = append(us, p.F, math.Nextafter(p.F, 0), math.Nextafter(p.F, 1))
			}
		}
		for range 100000 {
			us = append(us, r.Float64())
		}
		for _, u := range us {
			if a, b := c.sampleU(u), s.sampleU(u); a != b {
				t.Fatalf("%s: u = %v: binary search %d, guide table %d", name, u, a, b)
			}
		}
	}
}

// TestLengthSamplerRandomCDFs: the guide-table sampler against
// CDF.sampleU on 3,000 random CDFs (1 to 40 points, buckets of 1 to 2^24
// tokens, steps of F from none or one ulp to half of what is left), at
// every breakpoint and its neighbours, at draws that land on a length's
// edge inside a bucket (u = F[i-1] + (F[i]-F[i-1])·k/n and its neighbours)
// and at random draws. The length's edge is where inBucket's ceil turns on
// the last bit: computing (u-F[i-1])·n/width instead of (u-F[i-1])/width·n
// fails here, while TestLengthSamplerMatchesSample's built-in CDFs pass it.
func TestLengthSamplerRandomCDFs(t *testing.T) {
	r := NewRand(5, StreamLengths)
	for trial := range 3000 {
		pts := make([]Point, 1+r.IntN(40))
		tok, f := 0, 0.0
		for i := range pts {
			tok += 1 + r.IntN([]int{3, 1000, 1 << 24}[r.IntN(3)])
			switch r.IntN(4) {
			case 0:
				f = math.Nextafter(f, 1)
			case 1: // no step: an empty bucket
			default:
				f += r.Float64() * (1 - f) / 2
			}
			pts[i] = Point{Tokens: tok, F: f}
		}
		pts[len(pts)-1].F = 1
		c, err := NewCDF("random", pts)
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		s := newLengthSampler(c)
		us := []float64{0, math.Nextafter(1, 0)}
		for i, p := range c.Points {
			us = append(us, p.F, math.Nextafter(p.F, 0), math.Nextafter(p.F, 1))
			lo, prevF := 0, 0.0
			if i > 0 {
				lo, prevF = c.Points[i-1].Tokens, c.Points[i-1].F
			}
			for range 20 {
				n := p.Tokens - lo
				u := prevF + (p.F-prevF)*float64(1+r.IntN(n))/float64(n)
				us = append(us, u, math.Nextafter(u, 0), math.Nextafter(u, 1))
			}
		}
		for range 300 {
			us = append(us, r.Float64())
		}
		for _, u := range us {
			if u < 0 || u >= 1 {
				continue
			}
			if a, b := c.sampleU(u), s.sampleU(u); a != b {
				t.Fatalf("trial %d, u = %v: binary search %d, guide table %d (points %v)", trial, u, a, b, c.Points)
			}
		}
	}
}

// exactBucketM2 is E[L^2] of a bucket in exact integer arithmetic:
// (S(Hi) − S(Lo))/(Hi − Lo) with S(n) = Σ_{k<=n} k² = n(n+1)(2n+1)/6.
func exactBucketM2(b Bucket) float64 {
	s := func(n int) *big.Int {
		x := big.NewInt(int64(n))
		y := new(big.Int).Mul(x, big.NewInt(int64(n)+1))
		y.Mul(y, big.NewInt(2*int64(n)+1))
		return y.Quo(y, big.NewInt(6))
	}
	num := new(big.Int).Sub(s(b.Hi), s(b.Lo))
	f, _ := new(big.Rat).SetFrac(num, big.NewInt(int64(b.Hi-b.Lo))).Float64()
	return f
}

// TestBucketSecondMomentPrecision: buckets near 2^30 tokens against exact
// integer arithmetic. The former S(Hi) − S(Lo) form subtracted two ~2^91/3
// values and was off by ~1e-7 relative there (e.g. (2^30, 2^30+2]).
func TestBucketSecondMomentPrecision(t *testing.T) {
	const g = 1 << 30
	for _, b := range []Bucket{
		{Lo: g, Hi: g + 1, P: 1},
		{Lo: g, Hi: g + 2, P: 1},
		{Lo: g - 1, Hi: g + 2, P: 1},
		{Lo: g - 1000, Hi: g + 1000, P: 1},
		{Lo: 2*g - 7, Hi: 2 * g, P: 1},
		{Lo: 0, Hi: g, P: 1},
		{Lo: 0, Hi: 1, P: 1},
		{Lo: 3, Hi: 7, P: 1},
	} {
		want := exactBucketM2(b)
		if got := b.SecondMoment(); math.Abs(got-want) > 4e-16*want {
			t.Errorf("(%d, %d]: SecondMoment = %v, exact %v (relative error %.2g)", b.Lo, b.Hi, got, want, (got-want)/want)
		}
	}
}

// TestBucketSecondMomentUnchangedOnBuiltins: on every bucket of the
// built-in CDFs the closed form m² + (n²−1)/12 agrees with the former
// sum-of-squares difference to 1e-12 relative, and so do the CDF moments.
func TestBucketSecondMomentUnchangedOnBuiltins(t *testing.T) {
	old := func(b Bucket) float64 { // the former formula, kept as the reference
		s := func(n float64) float64 { return n * (n + 1) * (2*n + 1) / 6 }
		return (s(float64(b.Hi)) - s(float64(b.Lo))) / float64(b.Hi-b.Lo)
	}
	for _, name := range BuiltinCDFs() {
		c := mustCDF(t, name)
		m2 := 0.0
		for b := range c.Buckets() {
			got, want := b.SecondMoment(), old(b)
			if math.Abs(got-want) > 1e-12*want {
				t.Errorf("%s (%d, %d]: SecondMoment = %v, former %v", name, b.Lo, b.Hi, got, want)
			}
			if b.P > 0 {
				m2 += b.P * want
			}
		}
		if got := c.SecondMoment(); math.Abs(got-m2) > 1e-12*m2 {
			t.Errorf("%s: CDF SecondMoment = %v, former %v", name, got, m2)
		}
	}
}
