package fleetopt

import (
	"fmt"
	"math"

	"github.com/fleetsim/fleetsim/workload"
)

// This file calibrates a pool whose traffic is a mixture of CDF slices, some
// of them compressed by compress-and-route (FleetOpt §5): the post-C&R
// traffic the pools of a retrofit or FleetOpt fleet really receive. The
// paper's Algorithm 1 calibrates the short pool on (0, B] only; a compressed
// band request keeps its whole output L_out and has its prompt cut to
// T_c = B − L_out tokens, so its service time (ceil(L_in'/C) + L_out)·t_iter
// is several times a plain short request's (docs/planner.md §4).

// Short-pool calibration models (Config.ShortCalibration).
const (
	// ShortCalibPaper is FleetOpt Algorithm 1: the short pool is calibrated
	// on (0, B] and the long pool on (γB, ∞), whatever C&R does to the band.
	ShortCalibPaper = "paper"
	// ShortCalibMix calibrates each pool on the traffic it receives after
	// C&R: the short pool on (0, B] (weight α) mixed with the compressed
	// band (B, γB] (weight β·p_c, prompt cut to B − L_out); the long pool on
	// (γB, ∞) mixed with the uncompressed band (weight β·(1 − p_c)).
	ShortCalibMix = "mix"
)

// DefaultShortCalibration is the model a zero Config.ShortCalibration
// takes: the paper's, so library callers reproducing the papers keep their
// numbers. The fleetsim plan command defaults to ShortCalibMix instead
// (docs/planner.md §4 gives the reasons).
const DefaultShortCalibration = ShortCalibPaper

// SlicePart is one component of a pool's traffic: the requests with total
// length L in (Lo, Hi] of the CDF, each with its CDF probability times
// Scale. With CompressTo > 0 the requests are compressed as C&R does: the
// output L_out is kept and the prompt is cut to T_c = CompressTo − L_out
// tokens, L_in' = min(L_in, T_c), so the request is served with
// L_in' + L_out tokens (= CompressTo for L > CompressTo). A compressed part
// needs Lo >= CompressTo and T_c >= 1 for every length in it.
type SlicePart struct {
	Lo, Hi     int     // length slice (Lo, Hi], tokens
	Scale      float64 // weight per unit of CDF probability, in (0, 1] (p_c, 1 − p_c or 1)
	CompressTo int     // 0: served as is; > 0: C&R budget B (T_c = B − L_out)
}

// MixPart is a SlicePart as reported in a plan, with its share of the
// pool's traffic.
type MixPart struct {
	Lo         int     `json:"lo"`                    // slice (lo, hi], tokens
	Hi         int     `json:"hi"`                    //
	Share      float64 `json:"share"`                 // fraction of the pool's requests
	CompressTo int     `json:"compress_to,omitempty"` // C&R budget B: prompt cut to B − L_out
}

// served returns L_in', L_out and the prefill iterations of length L in
// part p.
func (cal *Calibrator) served(L int, p SlicePart) (in, out, c int) {
	in, out = workload.SplitFixed(L, cal.frac)
	if p.CompressTo > 0 {
		in = min(in, p.CompressTo-out)
	}
	c = (in + cal.chunk - 1) / cal.chunk
	return in, out, c
}

// maxCompressible returns the largest L whose output leaves a prompt budget
// T_c = b − L_out >= 1 (L_out is non-decreasing in L), capped at hi.
func (cal *Calibrator) maxCompressible(b, hi int) int {
	ok := func(L int) bool { _, out := workload.SplitFixed(L, cal.frac); return b-out >= 1 }
	// Largest L in [b, hi] with ok(L); ok(b) holds for b >= 2.
	n := sortSearch(b, hi+1, func(L int) bool { return !ok(L) })
	return n - 1
}

// sortSearch returns the smallest x in [lo, hi) with f(x) true (f monotone
// false → true), or hi.
func sortSearch(lo, hi int, f func(int) bool) int {
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if f(m) {
			hi = m
		} else {
			lo = m + 1
		}
	}
	return lo
}

// normalizeParts clips parts to the CDF, drops those without mass, merges
// adjacent uncompressed parts of equal scale and checks them. It returns the
// parts and each one's mass (Scale·P(Lo < L <= Hi)), appended to buf's
// slices when buf is not nil (the sweep reuses them; nil allocates).
func (cal *Calibrator) normalizeParts(parts []SlicePart, buf *mixBuf) ([]SlicePart, []float64, error) {
	var out []SlicePart
	var mass []float64
	if buf != nil {
		out, mass = buf.parts[:0], buf.mass[:0]
		defer func() { buf.parts, buf.mass = out[:0], mass[:0] }()
	}
	maxT := cal.cdf.Max()
	for _, p := range parts {
		if p.Lo < 0 || p.Hi <= p.Lo {
			return nil, nil, fmt.Errorf("CDF slice (%d, %d] tokens: want 0 <= lo < hi", p.Lo, p.Hi)
		}
		if !(p.Scale >= 0 && p.Scale <= 1) {
			return nil, nil, fmt.Errorf("slice (%d, %d] scale %v: must be in [0, 1]", p.Lo, p.Hi, p.Scale)
		}
		p.Hi = min(p.Hi, maxT)
		if p.Hi <= p.Lo || p.Scale == 0 {
			continue
		}
		pm := cal.F(p.Hi) - cal.F(p.Lo)
		if !(pm > 0) {
			continue
		}
		if p.CompressTo > 0 {
			if p.Lo < p.CompressTo {
				return nil, nil, fmt.Errorf("compressed slice (%d, %d]: starts below its budget %d tokens", p.Lo, p.Hi, p.CompressTo)
			}
			// L_out is non-decreasing in L: the part is compressible iff its
			// longest request is.
			if _, o := workload.SplitFixed(p.Hi, cal.frac); p.CompressTo-o < 1 {
				top := cal.maxCompressible(p.CompressTo, p.Hi)
				return nil, nil, fmt.Errorf("compressed slice (%d, %d]: a request of %d tokens keeps an output of %d or more, leaving no prompt budget under %d tokens",
					p.Lo, p.Hi, top+1, p.CompressTo, p.CompressTo)
			}
		}
		if n := len(out); n > 0 && p.CompressTo == 0 && out[n-1].CompressTo == 0 && out[n-1].Scale == p.Scale && out[n-1].Hi == p.Lo {
			out[n-1].Hi = p.Hi
			mass[n-1] = p.Scale * (cal.F(out[n-1].Hi) - cal.F(out[n-1].Lo))
			continue
		}
		out = append(out, p)
		mass = append(mass, p.Scale*pm)
	}
	if len(out) == 0 {
		return nil, nil, fmt.Errorf("pool traffic of %q is empty (no requests in its slices)", cal.cdf.Name)
	}
	return out, mass, nil
}

// mixBuf holds reusable slices for normalizeParts (a Planner's sweep).
type mixBuf struct {
	parts []SlicePart
	mass  []float64
}

// plainOne reports whether parts are one uncompressed slice: such a pool is
// calibrated by Exact / MonteCarlo themselves, so a mixture that reduces to
// one slice gives bit-identical numbers.
func plainOne(parts []SlicePart) bool { return len(parts) == 1 && parts[0].CompressTo == 0 }

// compressedSums returns the probability-weighted term sums of compressed
// part p (each length's own probability, not scaled). Every compressed
// request is served with B = CompressTo tokens, in k = c + L_out iterations
// with c = ceil((B − L_out)/C) non-increasing in L: on each run of lengths
// with the same c the sums of k and k² follow from the prefix sums of 1,
// L_out and L_out² (sliceSums), so the cost is O(runs · log) with
// ~(Hi − Lo)/(5C) runs, not O(Hi − Lo).
func (cal *Calibrator) compressedSums(p SlicePart, wc *wcache) sums {
	var s sums
	B := float64(p.CompressTo)
	iters := func(L int) int { _, _, c := cal.served(L, p); return c }
	for L := p.Lo + 1; L <= p.Hi; {
		j := iters(L)
		// last length of the run: first L' with iters < j, minus one (most
		// parts of the noise zone are one run: check the end first)
		end := p.Hi
		if iters(p.Hi) != j {
			end = sortSearch(L, p.Hi+1, func(x int) bool { return iters(x) < j }) - 1
		}
		r := wc.slice(cal, L-1, end)
		jf := float64(j)
		k := jf*r.one + r.o
		k2 := jf*jf*r.one + 2*jf*r.o + r.o2
		s.one += r.one
		s.l += B * r.one
		s.k += k
		s.kl += B * k
		s.kll += B * B * k
		s.k2 += k2
		s.k2l += B * k2
		s.k2ll += B * B * k2
		s.c += jf * r.one
		s.cl += B * jf * r.one
		s.o += r.o
		s.o2 += r.o2
		L = end + 1
	}
	return s
}

// wcache remembers the last two weightedTo values: a mixture's slices and
// runs are mostly contiguous, so each boundary is looked up once.
type wcache struct {
	x    [2]int
	s    [2]sums
	n    int // entries filled
	next int // entry to overwrite
}

func (c *wcache) to(cal *Calibrator, x int) sums {
	for i := range c.n {
		if c.x[i] == x {
			return c.s[i]
		}
	}
	v := cal.weightedTo(x)
	c.x[c.next], c.s[c.next] = x, v
	c.next = 1 - c.next
	c.n = min(c.n+1, 2)
	return v
}

// slice is sliceSums(lo, hi) through the cache.
func (c *wcache) slice(cal *Calibrator, lo, hi int) sums {
	return c.to(cal, hi).sub(c.to(cal, lo))
}

// ExactMix returns the exact service-time statistics of a pool serving the
// mixture of parts with timing pt. MeanLen, KVLen and P99Len are served
// lengths (L_in' + L_out). P99Len and P99Iters are the 99th percentiles of
// the served length and of the prefill iterations, each over the whole
// mixture (they may belong to different requests; the P99 prefill time
// P99Iters·t_iter(P99Len) bounds the true one from above). A mixture of one
// uncompressed slice gives exactly Exact's numbers (Mass scaled).
func (cal *Calibrator) ExactMix(parts []SlicePart, pt PoolTiming) (ServiceStats, error) {
	return cal.exactMix(parts, pt, true, nil)
}

// exactMix is ExactMix; without p99 it leaves the P99 fields zero (the
// planner's sweep needs them only with a TTFT target). buf, if not nil,
// provides reusable scratch slices.
func (cal *Calibrator) exactMix(parts []SlicePart, pt PoolTiming, p99 bool, buf *mixBuf) (ServiceStats, error) {
	parts, mass, err := cal.normalizeParts(parts, buf)
	if err != nil {
		return ServiceStats{}, err
	}
	if plainOne(parts) {
		st, err := cal.Exact(parts[0].Lo, parts[0].Hi, pt)
		st.Mass *= parts[0].Scale
		return st, err
	}
	var s sums
	var wc wcache
	total := 0.0
	for i, p := range parts {
		total += mass[i]
		if p.CompressTo == 0 {
			s.addScaled(wc.slice(cal, p.Lo, p.Hi), p.Scale)
		} else {
			s.addScaled(cal.compressedSums(p, &wc), p.Scale)
		}
	}
	st := s.exactStats(pt, total)
	if p99 {
		w, g := pt.iterCoef()
		st.P99Len = cal.mixQuantileLen(parts, mass, total, 0.99)
		st.P99Iters = cal.mixQuantileIters(parts, total, 0.99)
		st.IterAtP99Len = w + g*float64(st.P99Len)
		st.P99Prefill = float64(st.P99Iters) * st.IterAtP99Len
	}
	return st, nil
}

// momentSums are the probability-weighted sums over a mixture of 1, k,
// k·L, k², k²·L and k²·L² (k = iterations, L = served length).
type momentSums struct{ one, k, kl, k2, k2l, k2ll float64 }

// mixSums returns the moment sums of the mixture of parts straight from the
// per-length table wTo (which the caller checks is not nil): each part's
// sums are its scale times the weighted prefix differences at its bounds,
// so parts without mass add exactly 0 and merging adjacent slices changes
// nothing but rounding. Compressed parts are summed run by run of equal
// prefill iterations, as compressedSums does.
func (cal *Calibrator) mixSums(parts []SlicePart) (momentSums, error) {
	var m momentSums
	maxT := cal.cdf.Max()
	for _, p := range parts {
		if p.Lo < 0 || p.Hi <= p.Lo || !(p.Scale >= 0 && p.Scale <= 1) {
			return m, fmt.Errorf("CDF slice (%d, %d] scale %v: want 0 <= lo < hi and scale in [0, 1]", p.Lo, p.Hi, p.Scale)
		}
		hi := min(p.Hi, maxT)
		if hi <= p.Lo || p.Scale == 0 {
			continue
		}
		sc := p.Scale
		if p.CompressTo == 0 {
			a, b := &cal.wTo[p.Lo], &cal.wTo[hi]
			m.one += sc * (b.one - a.one)
			m.k += sc * (b.k - a.k)
			m.kl += sc * (b.kl - a.kl)
			m.k2 += sc * (b.k2 - a.k2)
			m.k2l += sc * (b.k2l - a.k2l)
			m.k2ll += sc * (b.k2ll - a.k2ll)
			continue
		}
		if p.Lo < p.CompressTo {
			return m, fmt.Errorf("compressed slice (%d, %d]: starts below its budget %d tokens", p.Lo, hi, p.CompressTo)
		}
		if _, o := workload.SplitFixed(hi, cal.frac); p.CompressTo-o < 1 {
			return m, fmt.Errorf("compressed slice (%d, %d]: its longest requests leave no prompt budget under %d tokens", p.Lo, hi, p.CompressTo)
		}
		// Every request is served at B tokens in j + L_out iterations, j
		// constant on runs (compressedSums).
		B := float64(p.CompressTo)
		q := SlicePart{Lo: p.Lo, Hi: hi, CompressTo: p.CompressTo}
		iters := func(L int) int { _, _, c := cal.served(L, q); return c }
		for L := p.Lo + 1; L <= hi; {
			j := iters(L)
			end := hi
			if iters(hi) != j {
				end = sortSearch(L, hi+1, func(x int) bool { return iters(x) < j }) - 1
			}
			a, b := &cal.wTo[L-1], &cal.wTo[end]
			r1, ro, ro2 := b.one-a.one, b.o-a.o, b.o2-a.o2
			jf := float64(j)
			kk := jf*r1 + ro
			kk2 := jf*jf*r1 + 2*jf*ro + ro2
			m.one += sc * r1
			m.k += sc * kk
			m.kl += sc * B * kk
			m.k2 += sc * kk2
			m.k2l += sc * B * kk2
			m.k2ll += sc * B * B * kk2
			L = end + 1
		}
	}
	return m, nil
}

// mixMoments returns E[S] and Var[S] of the mixture of parts with timing pt:
// exactMix's moments without its bookkeeping, for the sweep's count-only
// path (no P99 fields, no Mass or prefill means). It needs the per-length
// table wTo (ok = false without it; the caller then uses exactMix). It
// equals exactMix's MeanS and VarS up to rounding (the golden sweep test
// pins every cell to 1e-9).
func (cal *Calibrator) mixMoments(parts []SlicePart, pt PoolTiming) (es, vs float64, ok bool, err error) {
	if cal.wTo == nil {
		return 0, 0, false, nil
	}
	m, err := cal.mixSums(parts)
	if err != nil {
		return 0, 0, true, err
	}
	if !(m.one > 0) {
		return 0, 0, true, fmt.Errorf("pool traffic of %q is empty (no requests in its slices)", cal.cdf.Name)
	}
	w, g := pt.iterCoef()
	es = (w*m.k + g*m.kl) / m.one
	es2 := (w*w*m.k2 + 2*w*g*m.k2l + g*g*m.k2ll) / m.one
	return es, max(es2-es*es, 0), true, nil
}

// mixQuantileLen returns the smallest served length x with
// P(served <= x) >= q over the mixture. Served lengths are non-decreasing
// in L: L itself in a plain part, CompressTo in a compressed one.
func (cal *Calibrator) mixQuantileLen(parts []SlicePart, mass []float64, total, q float64) int {
	cdfAt := func(x int) float64 {
		f := 0.0
		for i, p := range parts {
			switch {
			case p.CompressTo > 0:
				if x >= p.CompressTo {
					f += mass[i]
				}
			case x > p.Lo:
				f += p.Scale * (cal.F(min(x, p.Hi)) - cal.F(p.Lo))
			}
		}
		return f
	}
	target := q * total * (1 - 1e-12)
	return sortSearch(1, cal.cdf.Max()+1, func(x int) bool { return cdfAt(x) >= target })
}

// mixQuantileIters returns the smallest j with P(prefill iterations <= j)
// >= q over the mixture. The iterations ceil(L_in/C) are non-decreasing in
// L in a plain part and ceil((B − L_out)/C) non-increasing in a compressed
// one, so each part's mass below j is one binary search.
func (cal *Calibrator) mixQuantileIters(parts []SlicePart, total, q float64) int {
	iters := func(L int, p SlicePart) int { _, _, c := cal.served(L, p); return c }
	// Most parts (the noise zone's runs) have one iteration count c
	// throughout: their mass is then below j all or nothing.
	first := make([]int, len(parts))
	last := make([]int, len(parts))
	for i, p := range parts {
		first[i], last[i] = iters(p.Lo+1, p), iters(p.Hi, p)
	}
	cdfAt := func(j int) float64 {
		f := 0.0
		for i, p := range parts {
			if first[i] == last[i] {
				if first[i] <= j {
					f += p.Scale * (cal.F(p.Hi) - cal.F(p.Lo))
				}
				continue
			}
			if p.CompressTo == 0 {
				// first L in (Lo, Hi] with iters > j
				x := sortSearch(p.Lo+1, p.Hi+1, func(L int) bool { return iters(L, p) > j })
				f += p.Scale * (cal.F(x-1) - cal.F(p.Lo))
			} else {
				// first L in (Lo, Hi] with iters <= j
				x := sortSearch(p.Lo+1, p.Hi+1, func(L int) bool { return iters(L, p) <= j })
				if x <= p.Hi {
					f += p.Scale * (cal.F(p.Hi) - cal.F(x-1))
				}
			}
		}
		return f
	}
	target := q * total * (1 - 1e-12)
	top := 0
	for _, p := range parts {
		top = max(top, p.Hi)
	}
	maxJ := (top + cal.chunk - 1) / cal.chunk
	return sortSearch(0, maxJ+1, func(j int) bool { return cdfAt(j) >= target })
}

// MonteCarloMix estimates the statistics of the mixture of parts from n
// samples stratified in u, with a fresh random source of stream
// workload.StreamPlanner seeded with seed: the i-th sample takes
// u = (i + v_i)/n of the mixture's total mass (v_i uniform in [0, 1)),
// picks the part whose cumulative mass holds u and maps the rest of u
// through that part's inverse CDF (CDF.Quantile). Variance divides by n;
// P99Len and P99Iters are nearest-rank percentiles of the served length and
// of the prefill iterations. A mixture of one uncompressed slice gives
// exactly MonteCarlo's numbers.
func (cal *Calibrator) MonteCarloMix(parts []SlicePart, pt PoolTiming, n int, seed uint64) (ServiceStats, error) {
	return cal.monteCarloMix(parts, pt, n, seed, true)
}

// MonteCarloMixIID is MonteCarloMix with n independent draws: each picks a
// part with probability proportional to its mass (one Float64), then a
// length from the part's slice (CDF.Sample). A mixture of one uncompressed
// slice gives exactly MonteCarloIID's numbers.
func (cal *Calibrator) MonteCarloMixIID(parts []SlicePart, pt PoolTiming, n int, seed uint64) (ServiceStats, error) {
	return cal.monteCarloMix(parts, pt, n, seed, false)
}

func (cal *Calibrator) monteCarloMix(parts []SlicePart, pt PoolTiming, n int, seed uint64, stratified bool) (ServiceStats, error) {
	parts, mass, err := cal.normalizeParts(parts, nil)
	if err != nil {
		return ServiceStats{}, err
	}
	if plainOne(parts) {
		st, err := cal.monteCarlo(parts[0].Lo, parts[0].Hi, pt, n, seed, stratified)
		st.Mass *= parts[0].Scale
		return st, err
	}
	if n < 2 {
		return ServiceStats{}, fmt.Errorf("Monte Carlo samples %d: must be >= 2", n)
	}
	subs := make([]*workload.CDF, len(parts))
	cum := make([]float64, len(parts))
	total := 0.0
	for i, p := range parts {
		if subs[i], err = cal.cdf.Restrict(p.Lo, p.Hi); err != nil {
			return ServiceStats{}, err
		}
		total += mass[i]
		cum[i] = total
	}
	r := workload.NewRand(seed, workload.StreamPlanner)
	acc := newMCAcc(n, pt)
	fn := float64(n)
	for i := range n {
		var L, k int
		if stratified {
			u := (float64(i) + r.Float64()) / fn * total
			k = min(sort1(cum, u), len(parts)-1)
			prev := 0.0
			if k > 0 {
				prev = cum[k-1]
			}
			L = subs[k].Quantile(min(max((u-prev)/mass[k], 0), 1))
		} else {
			u := r.Float64() * total
			k = min(sort1(cum, u), len(parts)-1)
			L = subs[k].Sample(r)
		}
		in, out, c := cal.served(L, parts[k])
		acc.add(i, in+out, c, out)
	}
	return acc.stats(mcMethod(stratified), total, pt.Slots), nil
}

// sort1 returns the first index i with u < cum[i].
func sort1(cum []float64, u float64) int {
	return sortSearch(0, len(cum), func(i int) bool { return u < cum[i] })
}

// CalibrateMix dispatches on method (CalibExact, CalibMonteCarlo or
// CalibMonteCarloIID; MCSamples samples) for a mixture of slices.
func (cal *Calibrator) CalibrateMix(method string, parts []SlicePart, pt PoolTiming, seed uint64) (ServiceStats, error) {
	switch method {
	case CalibExact, "":
		return cal.ExactMix(parts, pt)
	case CalibMonteCarlo:
		return cal.MonteCarloMix(parts, pt, MCSamples, seed)
	case CalibMonteCarloIID:
		return cal.MonteCarloMixIID(parts, pt, MCSamples, seed)
	}
	return ServiceStats{}, errCalibMethod(method)
}

// compressProb is the probability Φ((gb − L)/(σ·f·L)) that the router's
// estimate of a request of length L (prompt ≈ f·L) is at most gb.
func compressProb(L float64, gb int, sigma, f float64) float64 {
	return 0.5 * math.Erfc(-(float64(gb)-L)/(sigma*f*L)/math.Sqrt2)
}

// noiseZ is how many standard deviations of the router's estimate the edge
// zone around γB spans on each side; beyond it the compression probability
// is taken as exactly 1 (below) or 0 (above): Φ(−5) = 2.9e-7.
const noiseZ = 5

// noiseZone returns the edge zone (zlo, zhi] around ⌊γb⌋ = gb in which
// the router's estimate noise makes compression uncertain:
// gb/(1 ± noiseZ·σ·f), within (b, gbc]; zlo = zhi = gbc without noise.
func (pl *Planner) noiseZone(b, gb, gbc int) (zlo, zhi int) {
	sigma, f := pl.cfg.EstimateNoise, pl.cal.frac
	zlo, zhi = gbc, gbc
	if sigma > 0 {
		d := noiseZ * sigma * f
		if d < 1 {
			zhi = min(gbc, int(math.Ceil(float64(gb)/(1-d))))
		}
		zlo = min(max(b, int(math.Floor(float64(gb)/(1+d)))), zhi)
	}
	return zlo, zhi
}

// mixTraffic returns the short and long pools' traffic of C&R cell
// (b, γb) under ShortCalibMix: the short pool serves (0, b] plain and each
// compressible band length L with weight p_c·q(L), compressed; the long
// pool serves the rest of every length above b. q(L) = 1 on (b, gbc]
// without estimate noise; with noise σ the router compares an estimate
// L_in·(1 + σz) + L_out with ⌊γb⌋, so q(L) = Φ((⌊γb⌋ − L)/(σ·L_in)), taken
// as its Simpson average over runs of max(16, σ·f·⌊γb⌋/4) lengths (cut at
// the CDF breakpoints, L_in ≈ f·L) inside the zone ⌊γb⌋/(1 ± noiseZ·σ·f),
// and 1 or 0 outside it. gbc is the last length the
// router can compress at all (T_c = b − L_out >= 1).
//
// With reuse the parts are appended to the planner's scratch slices (the
// sweep's count-only path; the lists are dead before the next cell).
func (pl *Planner) mixTraffic(b, gb, gbc int, pc float64, reuse bool) (short, long partList) {
	short = plain(0, b)
	if reuse {
		short.parts, long.parts = pl.scratch.short[:0], pl.scratch.long[:0]
	}
	defer func() {
		key := trafficKey{b: b, gb: gb, pc: pc}
		if len(short.parts) > 0 {
			short.key = key
		}
		long.key = key
		if reuse {
			pl.scratch.short, pl.scratch.long = short.parts[:0], long.parts[:0]
		}
	}()
	sigma, f := pl.cfg.EstimateNoise, pl.cal.frac
	zlo, zhi := pl.noiseZone(b, gb, gbc)
	if zlo > b {
		short.add(SlicePart{Lo: b, Hi: zlo, Scale: pc, CompressTo: b})
		if pc < 1 {
			long.add(SlicePart{Lo: b, Hi: zlo, Scale: 1 - pc})
		}
	}
	if zhi > zlo {
		w := max(16, int(sigma*f*float64(gb)/4))
		i := pl.cal.bucketOf(zlo + 1)
		for lo := zlo; lo < zhi; {
			hi := min(lo+w, zhi)
			for i < len(pl.cal.hi) && pl.cal.hi[i] < lo+1 {
				i++ // the bucket of lo+1 (bucketOf, as lo grows)
			}
			if i < len(pl.cal.hi) {
				hi = min(hi, pl.cal.hi[i]) // a run never straddles a CDF breakpoint
			}
			// Simpson's rule over the run (lengths lo+1 .. hi).
			a, z := float64(lo+1), float64(hi)
			q := (compressProb(a, gb, sigma, f) + 4*compressProb((a+z)/2, gb, sigma, f) + compressProb(z, gb, sigma, f)) / 6
			if s := pc * q; s > 0 {
				short.add(SlicePart{Lo: lo, Hi: hi, Scale: s, CompressTo: b})
			}
			if s := 1 - pc*q; s > 0 {
				long.add(SlicePart{Lo: lo, Hi: hi, Scale: s})
			}
			lo = hi
		}
	}
	if zhi < pl.cal.CDF().Max() {
		long.add(SlicePart{Lo: zhi, Hi: pl.cfg.LongCtx, Scale: 1})
	}
	return short, long
}
