package sim

// siftUp restores the min-heap order of s (by less) after s[k] was placed
// at k: it rises while less than its parent.
func siftUp[E any](s []E, k int, less func(a, b *E) bool) {
	for k > 0 {
		p := (k - 1) / 2
		if !less(&s[k], &s[p]) {
			break
		}
		s[k], s[p] = s[p], s[k]
		k = p
	}
}

// siftDown restores the min-heap order of s (by less) after s[k] was
// replaced: it sinks below any smaller child (the smaller one, left on
// ties).
func siftDown[E any](s []E, k int, less func(a, b *E) bool) {
	n := len(s)
	for {
		c := 2*k + 1
		if c >= n {
			return
		}
		if c+1 < n && less(&s[c+1], &s[c]) {
			c++
		}
		if !less(&s[c], &s[k]) {
			return
		}
		s[k], s[c] = s[c], s[k]
		k = c
	}
}
