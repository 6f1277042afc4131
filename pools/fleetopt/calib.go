package fleetopt

import (
	"fmt"
	"math"
	"slices"

	"github.com/fleetsim/fleetsim/pools/catalog"
	"github.com/fleetsim/fleetsim/workload"
)

// This file calibrates a pool's service time from a slice of a token-length
// CDF (FleetOpt §3.1 eq. 3–4, token-budget App. A):
//
//	S = (ceil(L_in/C) + L_out) · t_iter
//
// with L_total = L drawn from the CDF restricted to lo < L <= hi and
// renormalized, L_in = floor(f·L) (the fixed split, workload.SplitFixed) and
// C the prefill chunk. The iteration time follows the timing preset:
//
//	paper: t_iter = W + H·n_slots                (the same for every request)
//	kv:    t_iter = W + H·(L/CalibCtx)·n_slots  (the request's own length)
//
// Three methods, named in every output: "exact" sums over every integer
// length of the piecewise-uniform CDF; "montecarlo" draws MCSamples lengths
// stratified in u (one uniform draw in each of n equal strata of [0, 1),
// mapped through the CDF's inverse); "montecarlo-iid" draws MCSamples
// independent lengths, as the papers do.

// Calibration methods.
const (
	CalibExact = "exact"
	// CalibMonteCarlo is stratified Monte Carlo: MCSamples lengths, the i-th
	// the inverse CDF at u = (i + v_i)/n with v_i uniform in [0, 1). Every
	// sample is still a draw of the slice's distribution (u is uniform on
	// [0, 1) marginally), so the mean estimates are unbiased, as with
	// i.i.d. sampling, but with a far smaller variance (docs/planner.md §2).
	CalibMonteCarlo = "montecarlo"
	// CalibMonteCarloIID is plain Monte Carlo: MCSamples independent draws
	// (the papers' method: a relative standard error on a pool's load of
	// sqrt(Cs²/n), 7.2% for LMSYS's long pool).
	CalibMonteCarloIID = "montecarlo-iid"
)

// CalibMethods lists the calibration methods.
func CalibMethods() []string { return []string{CalibExact, CalibMonteCarlo, CalibMonteCarloIID} }

// IsMonteCarlo reports whether method is a Monte Carlo method.
func IsMonteCarlo(method string) bool {
	return method == CalibMonteCarlo || method == CalibMonteCarloIID
}

// MCSamples is the Monte Carlo sample size of the papers' calibration.
const MCSamples = 3000

// DefaultSeed is the planner's default seed for Monte Carlo calibration.
const DefaultSeed = 42

// ServiceStats is the calibrated service time of one pool.
type ServiceStats struct {
	Method       string  // CalibExact, CalibMonteCarlo or CalibMonteCarloIID
	Mass         float64 // P(lo < L <= hi) in the full CDF
	MeanS        float64 // E[S], s
	VarS         float64 // Var[S], s²
	Cs2          float64 // Var[S]/E[S]²
	MuGPU        float64 // n_slots/E[S], requests/s per GPU
	MeanPrefill  float64 // E[ceil(L_in/C)·t_iter], s (t_iter of the preset at full slots)
	P99Prefill   float64 // 99th percentile of the same, s
	P99Len       int     // 99th percentile of L_total in the slice, tokens
	MeanLen      float64 // E[L_total] in the slice, tokens
	KVLen        float64 // E[S·L]/E[S]: mean context held by a busy slot, tokens
	P99Iters     int     // ceil(L_in/C) of the P99-length request
	IterAtP99Len float64 // t_iter of the preset at full slots for the P99 length, s
}

// PoolTiming is what calibration needs of a pool: the timing constants, the
// slot count and the preset.
type PoolTiming struct {
	W        float64 // fixed iteration cost, s
	H        float64 // per-sequence cost at CalibCtx tokens, s
	CalibCtx int     // tokens at which H holds (8,192)
	Slots    int     // n_slots of one GPU in the pool
	Preset   string  // TimingPaper or TimingKV
}

// PoolTimingOf returns the PoolTiming of a GPU profile at a max context.
func PoolTimingOf(g catalog.GPU, maxCtx int, preset string) (PoolTiming, error) {
	if preset == "" {
		preset = catalog.DefaultTiming
	}
	if preset != catalog.TimingPaper && preset != catalog.TimingKV {
		return PoolTiming{}, fmt.Errorf("timing preset %q: allowed paper, kv", preset)
	}
	n := g.Slots(maxCtx)
	if n < 1 {
		return PoolTiming{}, fmt.Errorf("max context %d tokens: exceeds the KV budget of one %s instance (%d blocks of %d tokens)", maxCtx, g.Name, g.KVBlocks, g.BlockTokens)
	}
	return PoolTiming{W: g.W, H: g.H, CalibCtx: g.CalibCtx, Slots: n, Preset: preset}, nil
}

// iterCoef returns (w, g) with t_iter(L) = w + g·L.
func (pt PoolTiming) iterCoef() (float64, float64) {
	if pt.Preset == catalog.TimingPaper {
		return pt.W + pt.H*float64(pt.Slots), 0
	}
	return pt.W, pt.H / float64(pt.CalibCtx) * float64(pt.Slots)
}

// Calibrator holds a CDF with per-length prefix sums of the service-time
// terms, so that the exact moments of any slice cost O(buckets) (the FleetOpt
// sweep calibrates hundreds of slices). Build one with NewCalibrator; it is
// read-only afterwards and safe for concurrent use.
type Calibrator struct {
	cdf    *workload.CDF
	frac   float64 // input fraction of the fixed split
	chunk  int     // prefill chunk C, tokens
	stride int     // checkpoint spacing of the prefix sums, tokens
	// cum[j] holds the sums over L = 1 .. j·stride of the terms below.
	cum []sums
	// bucket bounds and per-integer probabilities
	lo, hi []int
	p      []float64 // probability of one integer length in the bucket
	cumF   []float64 // F at each bucket's upper bound
	cumW   []sums    // cumW[i]: probability-weighted term sums of buckets 0 .. i-1
	// wTo[x] = weightedTo(x) for every x in 0 .. Max when stride == 1 (nil
	// otherwise): the mixtures of the mix model look up hundreds of
	// boundaries per sweep, and this table makes each one O(1).
	wTo []sums
}

// sums are the per-length terms whose sums give the moments: k = ceil(L_in/C)
// + L_out iterations, c = ceil(L_in/C) prefill iterations, o = L_out (for
// compressed requests, whose iterations depend on L only through L_out).
type sums struct {
	one, l, k, kl, kll, k2, k2l, k2ll, c, cl, o, o2 float64
}

func (s *sums) add(L int, frac float64, chunk int) {
	in, out := workload.SplitFixed(L, frac)
	c := float64((in + chunk - 1) / chunk)
	k := c + float64(out)
	l := float64(L)
	s.one++
	s.l += l
	s.k += k
	s.kl += k * l
	s.kll += k * l * l
	s.k2 += k * k
	s.k2l += k * k * l
	s.k2ll += k * k * l * l
	s.c += c
	s.cl += c * l
	s.o += float64(out)
	s.o2 += float64(out) * float64(out)
}

func (s sums) sub(o sums) sums {
	return sums{s.one - o.one, s.l - o.l, s.k - o.k, s.kl - o.kl, s.kll - o.kll,
		s.k2 - o.k2, s.k2l - o.k2l, s.k2ll - o.k2ll, s.c - o.c, s.cl - o.cl, s.o - o.o, s.o2 - o.o2}
}

func (s *sums) addScaled(o sums, w float64) {
	s.one += w * o.one
	s.l += w * o.l
	s.k += w * o.k
	s.kl += w * o.kl
	s.kll += w * o.kll
	s.k2 += w * o.k2
	s.k2l += w * o.k2l
	s.k2ll += w * o.k2ll
	s.c += w * o.c
	s.cl += w * o.cl
	s.o += w * o.o
	s.o2 += w * o.o2
}

// maxCheckpoints bounds the prefix-sum table; longer CDFs use a stride and
// sum the remainder directly.
const maxCheckpoints = 1 << 16

// NewCalibrator precomputes the prefix sums of a validated CDF for the fixed
// split with input fraction frac (in (0, 1)) and prefill chunk chunk tokens.
// The work is O(CDF max length) once.
func NewCalibrator(cdf *workload.CDF, frac float64, chunk int) (*Calibrator, error) {
	if cdf == nil {
		return nil, fmt.Errorf("cdf: missing")
	}
	if err := cdf.Validate(); err != nil {
		return nil, err
	}
	if !(frac > 0 && frac < 1) {
		return nil, fmt.Errorf("input fraction %v: must be in (0, 1)", frac)
	}
	if chunk < 1 {
		return nil, fmt.Errorf("prefill chunk %d tokens: must be >= 1", chunk)
	}
	maxT := cdf.Max()
	stride := max(1, (maxT+maxCheckpoints-1)/maxCheckpoints)
	cal := &Calibrator{cdf: cdf, frac: frac, chunk: chunk, stride: stride}
	cal.cum = make([]sums, maxT/stride+1)
	var run sums
	for L := 1; L <= maxT; L++ {
		run.add(L, frac, chunk)
		if L%stride == 0 {
			cal.cum[L/stride] = run
		}
	}
	lo, prevF := 0, 0.0
	for _, pt := range cdf.Points {
		cal.lo = append(cal.lo, lo)
		cal.hi = append(cal.hi, pt.Tokens)
		cal.p = append(cal.p, (pt.F-prevF)/float64(pt.Tokens-lo))
		cal.cumF = append(cal.cumF, pt.F)
		lo, prevF = pt.Tokens, pt.F
	}
	cal.cumW = make([]sums, len(cal.hi)+1)
	for i := range cal.hi {
		cal.cumW[i+1] = cal.cumW[i]
		if cal.p[i] > 0 {
			cal.cumW[i+1].addScaled(cal.prefix(cal.hi[i]).sub(cal.prefix(cal.lo[i])), cal.p[i])
		}
	}
	if stride == 1 {
		// The same expression weightedTo evaluates, so the values are
		// bit-identical.
		wTo := make([]sums, maxT+1)
		for x := 1; x <= maxT; x++ {
			wTo[x] = cal.weightedTo(x)
		}
		cal.wTo = wTo
	}
	return cal, nil
}

// CDF returns the calibrator's CDF.
func (cal *Calibrator) CDF() *workload.CDF { return cal.cdf }

// InputFraction returns the fixed split's input fraction.
func (cal *Calibrator) InputFraction() float64 { return cal.frac }

// prefix returns the term sums over L = 1 .. x.
func (cal *Calibrator) prefix(x int) sums {
	if x <= 0 {
		return sums{}
	}
	j := x / cal.stride
	s := cal.cum[j]
	for L := j*cal.stride + 1; L <= x; L++ {
		s.add(L, cal.frac, cal.chunk)
	}
	return s
}

// F returns P(L <= x) under the bucket semantics, for integer x.
func (cal *Calibrator) F(x int) float64 {
	if x <= 0 {
		return 0
	}
	i, found := slices.BinarySearch(cal.hi, x)
	if found {
		return cal.cumF[i]
	}
	if i == len(cal.hi) {
		return 1
	}
	prev := 0.0
	if i > 0 {
		prev = cal.cumF[i-1]
	}
	return prev + cal.p[i]*float64(x-cal.lo[i])
}

// bucketOf returns the index of the bucket holding length x (lo < x <= hi),
// or len(buckets) when x is beyond the last breakpoint.
func (cal *Calibrator) bucketOf(x int) int {
	i, _ := slices.BinarySearch(cal.hi, x)
	return i
}

// quantileIn returns the smallest integer L in (lo, hi] with
// P(lo < L' <= L)/P(lo < L' <= hi) >= q: the full distribution's quantile at
// u = F(lo) + q·(F(hi) − F(lo)), clamped to the slice.
func (cal *Calibrator) quantileIn(lo, hi int, q float64) int {
	flo, fhi := cal.F(lo), cal.F(hi)
	u := flo + q*(fhi-flo)
	// First bucket whose upper F reaches u (up to rounding); it has mass.
	i, _ := slices.BinarySearchFunc(cal.cumF, u, func(f, u float64) int {
		if f >= u*(1-1e-15) {
			return 1
		}
		return -1
	})
	for i < len(cal.p)-1 && cal.p[i] == 0 {
		i++
	}
	i = min(i, len(cal.p)-1)
	prev := 0.0
	if i > 0 {
		prev = cal.cumF[i-1]
	}
	n := cal.hi[i] - cal.lo[i]
	k := int(math.Ceil((u - prev) / cal.p[i] * (1 - 1e-15)))
	L := cal.lo[i] + min(max(k, 1), n)
	return min(max(L, lo+1), hi)
}

// weightedTo returns the probability-weighted term sums over 1 <= L <= x.
func (cal *Calibrator) weightedTo(x int) sums {
	if x <= 0 {
		return sums{}
	}
	if x < len(cal.wTo) {
		return cal.wTo[x]
	}
	i := cal.bucketOf(x)
	if i >= len(cal.hi) {
		return cal.cumW[len(cal.hi)]
	}
	s := cal.cumW[i]
	if cal.p[i] > 0 && x > cal.lo[i] {
		s.addScaled(cal.prefix(x).sub(cal.prefix(cal.lo[i])), cal.p[i])
	}
	return s
}

// sliceSums returns the probability-weighted term sums over lo < L <= hi,
// in O(log buckets).
func (cal *Calibrator) sliceSums(lo, hi int) sums {
	return cal.weightedTo(hi).sub(cal.weightedTo(lo))
}

// checkSlice validates a slice (lo, hi].
func (cal *Calibrator) checkSlice(lo, hi int) (float64, error) {
	if lo < 0 || hi <= lo {
		return 0, fmt.Errorf("CDF slice (%d, %d] tokens: want 0 <= lo < hi", lo, hi)
	}
	hi = min(hi, cal.cdf.Max())
	mass := cal.F(hi) - cal.F(lo)
	if !(mass > 0) {
		return 0, fmt.Errorf("CDF slice (%d, %d] tokens of %q is empty (no requests have lengths in it)", lo, hi, cal.cdf.Name)
	}
	return mass, nil
}

// Exact returns the exact service-time statistics of the pool serving the
// slice lo < L <= hi of the CDF (renormalized) with timing pt.
func (cal *Calibrator) Exact(lo, hi int, pt PoolTiming) (ServiceStats, error) {
	mass, err := cal.checkSlice(lo, hi)
	if err != nil {
		return ServiceStats{}, err
	}
	hi = min(hi, cal.cdf.Max())
	st := cal.sliceSums(lo, hi).exactStats(pt, mass)
	w, g := pt.iterCoef()
	cal.fillP99(&st, lo, hi, w, g)
	return st, nil
}

// exactStats returns the exact service-time moments of the lengths summed in
// s (normalized by the summed weight s.one, which equals the slice's mass up
// to rounding), without the P99 fields.
func (s sums) exactStats(pt PoolTiming, mass float64) ServiceStats {
	w, g := pt.iterCoef()
	m := s.one
	es := (w*s.k + g*s.kl) / m
	es2 := (w*w*s.k2 + 2*w*g*s.k2l + g*g*s.k2ll) / m
	st := ServiceStats{Method: CalibExact, Mass: mass, MeanS: es, VarS: max(es2-es*es, 0)}
	st.Cs2 = st.VarS / (es * es)
	st.MuGPU = float64(pt.Slots) / es
	st.MeanPrefill = (w*s.c + g*s.cl) / m
	st.MeanLen = s.l / m
	st.KVLen = (w*s.kl + g*s.kll) / m / es
	return st
}

// fillP99 sets the P99 length and prefill time: the prefill time is
// non-decreasing in L, so its P99 is the prefill time of the P99 length.
func (cal *Calibrator) fillP99(st *ServiceStats, lo, hi int, w, g float64) {
	L := cal.quantileIn(lo, hi, 0.99)
	in, _ := workload.SplitFixed(L, cal.frac)
	c := (in + cal.chunk - 1) / cal.chunk
	st.P99Len = L
	st.P99Iters = c
	st.IterAtP99Len = w + g*float64(L)
	st.P99Prefill = float64(c) * st.IterAtP99Len
}

// MonteCarlo returns the service-time statistics estimated from n lengths
// of the slice lo < L <= hi (renormalized) sampled by stratification in u:
// the i-th length is the slice's inverse CDF (CDF.Quantile, the sampler's
// inverse transform) at u = (i + v_i)/n, v_i uniform in [0, 1) from a fresh
// random source of stream workload.StreamPlanner seeded with seed. Each
// sample is marginally a draw of the slice's distribution, so the estimate
// of E[S] is unbiased, with the variance of the within-stratum spread only
// (docs/planner.md §2). The same slice and seed always give the same
// numbers, whichever pools were calibrated before. The variance is the
// sample variance with divisor n; the P99 prefill time is the nearest-rank
// 99th percentile.
func (cal *Calibrator) MonteCarlo(lo, hi int, pt PoolTiming, n int, seed uint64) (ServiceStats, error) {
	return cal.monteCarlo(lo, hi, pt, n, seed, true)
}

// MonteCarloIID is MonteCarlo with n independent draws (CDF.Sample), the
// papers' method: the same expectation, a relative standard error of
// sqrt(Cs²/n) on E[S].
func (cal *Calibrator) MonteCarloIID(lo, hi int, pt PoolTiming, n int, seed uint64) (ServiceStats, error) {
	return cal.monteCarlo(lo, hi, pt, n, seed, false)
}

func (cal *Calibrator) monteCarlo(lo, hi int, pt PoolTiming, n int, seed uint64, stratified bool) (ServiceStats, error) {
	mass, err := cal.checkSlice(lo, hi)
	if err != nil {
		return ServiceStats{}, err
	}
	if n < 2 {
		return ServiceStats{}, fmt.Errorf("Monte Carlo samples %d: must be >= 2", n)
	}
	hi = min(hi, cal.cdf.Max())
	sub, err := cal.cdf.Restrict(lo, hi)
	if err != nil {
		return ServiceStats{}, err
	}
	r := workload.NewRand(seed, workload.StreamPlanner)
	acc := newMCAcc(n, pt)
	fn := float64(n)
	for i := range n {
		var L int
		if stratified {
			L = sub.Quantile((float64(i) + r.Float64()) / fn)
		} else {
			L = sub.Sample(r)
		}
		in, out := workload.SplitFixed(L, cal.frac)
		acc.add(i, L, (in+cal.chunk-1)/cal.chunk, out)
	}
	return acc.stats(mcMethod(stratified), mass, pt.Slots), nil
}

// mcMethod names the Monte Carlo method in outputs.
func mcMethod(stratified bool) string {
	if stratified {
		return CalibMonteCarlo
	}
	return CalibMonteCarloIID
}

// mcAcc accumulates Monte Carlo samples of the service time
// S = (c + L_out)·t(sl) of requests of served length sl (tokens) that take c
// prefill iterations; t is the pool's iteration time at that length.
type mcAcc struct {
	w, g                             float64 // t(sl) = w + g·sl, s
	sumS, sumS2, sumPre, sumL, sumSL float64
	lens, its                        []int // per sample: served length, prefill iterations
}

func newMCAcc(n int, pt PoolTiming) *mcAcc {
	w, g := pt.iterCoef()
	return &mcAcc{w: w, g: g, lens: make([]int, n), its: make([]int, n)}
}

// add records sample i.
func (a *mcAcc) add(i, sl, c, out int) {
	a.lens[i], a.its[i] = sl, c
	t := a.w + a.g*float64(sl)
	s := float64(c+out) * t
	a.sumS += s
	a.sumS2 += s * s
	a.sumPre += float64(c) * t
	a.sumL += float64(sl)
	a.sumSL += s * float64(sl)
}

// stats returns the sample moments (variance with divisor n) and the
// nearest-rank 99th percentiles of the served length and of the prefill
// iterations. It sorts the recorded samples.
func (a *mcAcc) stats(method string, mass float64, slots int) ServiceStats {
	fn := float64(len(a.lens))
	es := a.sumS / fn
	st := ServiceStats{Method: method, Mass: mass, MeanS: es, VarS: max(a.sumS2/fn-es*es, 0)}
	st.Cs2 = st.VarS / (es * es)
	st.MuGPU = float64(slots) / es
	st.MeanPrefill = a.sumPre / fn
	st.MeanLen = a.sumL / fn
	st.KVLen = a.sumSL / a.sumS
	slices.Sort(a.lens)
	slices.Sort(a.its)
	rank := int(math.Ceil(0.99*fn)) - 1 // nearest rank
	st.P99Len = a.lens[rank]
	st.P99Iters = a.its[rank]
	st.IterAtP99Len = a.w + a.g*float64(st.P99Len)
	st.P99Prefill = float64(st.P99Iters) * st.IterAtP99Len
	return st
}

// Calibrate dispatches on method (CalibExact, CalibMonteCarlo or
// CalibMonteCarloIID; MCSamples samples).
func (cal *Calibrator) Calibrate(method string, lo, hi int, pt PoolTiming, seed uint64) (ServiceStats, error) {
	switch method {
	case CalibExact, "":
		return cal.Exact(lo, hi, pt)
	case CalibMonteCarlo:
		return cal.MonteCarlo(lo, hi, pt, MCSamples, seed)
	case CalibMonteCarloIID:
		return cal.MonteCarloIID(lo, hi, pt, MCSamples, seed)
	}
	return ServiceStats{}, errCalibMethod(method)
}

// errCalibMethod is the error for an unknown calibration method.
func errCalibMethod(method string) error {
	return fmt.Errorf("calibration %q: allowed exact, montecarlo, montecarlo-iid", method)
}
