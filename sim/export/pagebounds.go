package export

// doubleBounds are the smallest and largest of xs (not empty) as
// parquet-go's doublePage.Bounds finds them: NaN skipped, the first other
// value the start, then v < lo and v > hi in order, so that of equal
// values the first stays (which tells −0 from +0); xs[0] when all are NaN.
// It takes them four lanes at a time with min and max, which need no
// branch: they differ from that order only when a NaN is present (then the
// order is followed: orderedBounds) and on zeros, −0 being the smaller: a
// bound that is a zero is then the first zero of xs (every value before it
// lies on the other side of it).
func doubleBounds(xs []float64) (lo, hi float64) {
	l0, l1, l2, l3 := xs[0], xs[0], xs[0], xs[0]
	h0, h1, h2, h3 := l0, l1, l2, l3
	i := 0
	for ; i+4 <= len(xs); i += 4 {
		v := xs[i : i+4 : i+4]
		l0, h0 = min(l0, v[0]), max(h0, v[0])
		l1, h1 = min(l1, v[1]), max(h1, v[1])
		l2, h2 = min(l2, v[2]), max(h2, v[2])
		l3, h3 = min(l3, v[3]), max(h3, v[3])
	}
	for _, v := range xs[i:] {
		l0, h0 = min(l0, v), max(h0, v)
	}
	lo, hi = min(l0, l1, l2, l3), max(h0, h1, h2, h3)
	if lo != lo || hi != hi { // a NaN
		return orderedBounds(xs)
	}
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
