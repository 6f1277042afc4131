package sweep

import (
	"fmt"
	"strconv"
	"strings"
)

// Shard selects a deterministic 1/N of a grid's points: those whose index
// modulo N is I. Taking every N-th point (rather than a contiguous block)
// spreads cheap and expensive points (low and high rates) over the shards.
// The zero Shard (N = 0) is the whole grid.
type Shard struct {
	I, N int // 0 <= I < N
}

// ParseShard parses "I/N" (0 <= I < N). It is one line on error.
func ParseShard(s string) (Shard, error) {
	a, b, ok := strings.Cut(strings.TrimSpace(s), "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil {
		return Shard{}, fmt.Errorf("--shard %q: want I/N, e.g. 0/4 (shard I of N, 0 <= I < N)", s)
	}
	if n < 1 || i < 0 || i >= n {
		return Shard{}, fmt.Errorf("--shard %q: want 0 <= I < N (shards are numbered 0 to N-1)", s)
	}
	return Shard{I: i, N: n}, nil
}

// String is "I/N", or "" for the whole grid.
func (s Shard) String() string {
	if s.N == 0 {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.I, s.N)
}

// Points returns the indices of the shard's points in a grid of size n,
// ascending.
func (s Shard) Points(n int) []int {
	var idx []int
	for i := range n {
		if s.N == 0 || i%s.N == s.I {
			idx = append(idx, i)
		}
	}
	return idx
}
