// Package pyrand reproduces the number stream of CPython's random.Random
// for an integer seed, so that fleetsim can repeat, draw for draw, the
// Monte Carlo calibration of the papers' simulator (vllm-sr-sim's
// fleet_sim, which seeds random.Random(42); docs/planner.md §9).
//
// It exists only for that paper-compatible mode (--compat papers). Every
// other random number in fleetsim comes from math/rand/v2 PCG streams
// derived from the run seed (workload.NewRand).
//
// The generator is the Mersenne Twister MT19937 (Matsumoto and Nishimura,
// 1998) as CPython's Modules/_randommodule.c uses it: seeded from an
// integer by init_by_array with the 32-bit words of |seed|, least
// significant first; Float64 is random() (53 bits from two outputs);
// RandInt is randint(a, b) via randrange and _randbelow_with_getrandbits
// (Lib/random.py): k = bit length of the width, draw getrandbits(k) until
// it is below the width.
package pyrand

const (
	n         = 624
	m         = 397
	matrixA   = 0x9908b0df
	upperMask = 0x80000000
	lowerMask = 0x7fffffff
)

// Random is one Python random.Random stream. The zero value is not
// usable; call New. Not safe for concurrent use.
type Random struct {
	mt  [n]uint32
	mti int
}

// New returns the stream of Python's random.Random(seed) for the integer
// seed (negative seeds use |seed|, as CPython does).
func New(seed int64) *Random {
	u := uint64(seed)
	if seed < 0 {
		u = uint64(-seed) // -MinInt64 wraps to 2^63, which is |MinInt64|
	}
	key := []uint32{uint32(u)}
	if hi := uint32(u >> 32); hi != 0 {
		key = append(key, hi)
	}
	r := &Random{}
	r.initByArray(key)
	return r
}

func (r *Random) initGenrand(s uint32) {
	r.mt[0] = s
	for i := 1; i < n; i++ {
		r.mt[i] = 1812433253*(r.mt[i-1]^(r.mt[i-1]>>30)) + uint32(i)
	}
	r.mti = n
}

func (r *Random) initByArray(key []uint32) {
	r.initGenrand(19650218)
	i, j := 1, 0
	k := max(n, len(key))
	for ; k > 0; k-- {
		r.mt[i] = (r.mt[i] ^ ((r.mt[i-1] ^ (r.mt[i-1] >> 30)) * 1664525)) + key[j] + uint32(j)
		i++
		j++
		if i >= n {
			r.mt[0] = r.mt[n-1]
			i = 1
		}
		if j >= len(key) {
			j = 0
		}
	}
	for k = n - 1; k > 0; k-- {
		r.mt[i] = (r.mt[i] ^ ((r.mt[i-1] ^ (r.mt[i-1] >> 30)) * 1566083941)) - uint32(i)
		i++
		if i >= n {
			r.mt[0] = r.mt[n-1]
			i = 1
		}
	}
	r.mt[0] = 0x80000000 // MSB is 1, assuring a non-zero initial array
}

// Uint32 returns the next 32-bit output of MT19937 (genrand_uint32).
func (r *Random) Uint32() uint32 {
	if r.mti >= n {
		mag := [2]uint32{0, matrixA}
		var kk int
		for kk = 0; kk < n-m; kk++ {
			y := (r.mt[kk] & upperMask) | (r.mt[kk+1] & lowerMask)
			r.mt[kk] = r.mt[kk+m] ^ (y >> 1) ^ mag[y&1]
		}
		for ; kk < n-1; kk++ {
			y := (r.mt[kk] & upperMask) | (r.mt[kk+1] & lowerMask)
			r.mt[kk] = r.mt[kk+(m-n)] ^ (y >> 1) ^ mag[y&1]
		}
		y := (r.mt[n-1] & upperMask) | (r.mt[0] & lowerMask)
		r.mt[n-1] = r.mt[m-1] ^ (y >> 1) ^ mag[y&1]
		r.mti = 0
	}
	y := r.mt[r.mti]
	r.mti++
	y ^= y >> 11
	y ^= (y << 7) & 0x9d2c5680
	y ^= (y << 15) & 0xefc60000
	y ^= y >> 18
	return y
}

// Float64 is Python's random(): a uniform float in [0, 1) with 53 random
// bits, (a·2^26 + b)/2^53 with a = first output >> 5, b = second >> 6.
func (r *Random) Float64() float64 {
	a := r.Uint32() >> 5
	b := r.Uint32() >> 6
	return (float64(a)*67108864.0 + float64(b)) * (1.0 / 9007199254740992.0)
}

// GetRandBits is Python's getrandbits(k) for 0 ≤ k ≤ 64: k ≤ 32 takes the
// top k bits of one output; k > 32 fills 32-bit words least significant
// first, the last word keeping its top k mod 32 bits. It panics outside
// [0, 64] (a programming error).
func (r *Random) GetRandBits(k int) uint64 {
	switch {
	case k < 0 || k > 64:
		panic("pyrand: GetRandBits needs 0 <= k <= 64")
	case k == 0:
		return 0
	case k <= 32:
		return uint64(r.Uint32() >> (32 - k))
	}
	lo := uint64(r.Uint32())
	hi := uint64(r.Uint32() >> (64 - k))
	return lo | hi<<32
}

// randBelow is _randbelow_with_getrandbits(n) for n ≥ 1: a uniform integer
// in [0, n) by rejection on getrandbits(bit length of n).
func (r *Random) randBelow(w uint64) uint64 {
	k := 0
	for v := w; v != 0; v >>= 1 {
		k++
	}
	x := r.GetRandBits(k)
	for x >= w {
		x = r.GetRandBits(k)
	}
	return x
}

// RandInt is Python's randint(a, b): a uniform integer in [a, b], drawn as
// a + randbelow(b − a + 1). It panics when b < a (Python raises
// ValueError) — callers check the range first, as the papers' code does.
func (r *Random) RandInt(a, b int) int {
	if b < a {
		panic("pyrand: RandInt needs a <= b")
	}
	return a + int(r.randBelow(uint64(b-a)+1))
}
