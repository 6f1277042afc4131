package pyrand

import "testing"

// TestFloat64Seed42: the first values of CPython's random.Random(42).random()
// — 0.6394267984578837 is the widely quoted first value of random.seed(42);
// all three checked with CPython 3.11.7 (`python3 -c "import random;
// r = random.Random(42); print([r.random() for _ in range(3)])"`).
func TestFloat64Seed42(t *testing.T) {
	r := New(42)
	for i, want := range []float64{0.6394267984578837, 0.025010755222666936, 0.27502931836911926} {
		if got := r.Float64(); got != want {
			t.Errorf("random() #%d = %v, want %v", i+1, got, want)
		}
	}
}

// TestUint32Seed42: the first MT19937 outputs of random.Random(42), i.e.
// getrandbits(32) (CPython 3.11.7). TestFloat64Seed42's first value follows
// from the first two by hand: (2746317213>>5 = 85822412)·2^26 +
// (478163327>>6 = 7471301), divided by 2^53, is 0.6394267984578837.
func TestUint32Seed42(t *testing.T) {
	r := New(42)
	for i, want := range []uint32{2746317213, 478163327, 107420369} {
		if got := r.Uint32(); got != want {
			t.Errorf("output #%d = %d, want %d", i+1, got, want)
		}
	}
	if got := (float64(2746317213>>5)*67108864 + float64(478163327>>6)) / 9007199254740992; got != 0.6394267984578837 {
		t.Errorf("hand derivation gives %v", got)
	}
}

// TestRandIntSeed42: randint(1, 100) draws getrandbits(7) (the width 100
// has 7 bits), i.e. the top 7 bits of each output, until one is below 100:
// 2746317213>>25 = 81, 478163327>>25 = 14, 107420369>>25 = 3, so the first
// three are 82, 15 and 4. CPython 3.11.7 prints [82, 15, 4, 95, 36] for
// five; and, continuing the same stream, randint(4097, 6144) (width 2048,
// 12 bits, rejection when ≥ 2048) gives 5100, 5011, 4668.
func TestRandIntSeed42(t *testing.T) {
	r := New(42)
	for i, want := range []int{82, 15, 4, 95, 36, 5100, 5011, 4668} {
		a, b := 1, 100
		if i >= 5 {
			a, b = 4097, 6144
		}
		if got := r.RandInt(a, b); got != want {
			t.Errorf("randint #%d = %d, want %d", i+1, got, want)
		}
	}
}

// TestSeeds: seeds above 2^32 use two key words, negative seeds |seed|,
// and seed 0 the key [0] (values from CPython 3.11.7); getrandbits above
// 32 bits fills the low word first.
func TestSeeds(t *testing.T) {
	for _, c := range []struct {
		seed int64
		want float64
	}{{1<<40 + 5, 0.5043802970418443}, {-7, 0.32383276483316237}, {0, 0.8444218515250481}} {
		if got := New(c.seed).Float64(); got != c.want {
			t.Errorf("Random(%d).random() = %v, want %v", c.seed, got, c.want)
		}
	}
	r := New(42)
	if got := r.GetRandBits(40); got != 123005401501 {
		t.Errorf("getrandbits(40) = %d, want 123005401501", got)
	}
	if got := r.GetRandBits(64); got != 13679192365072849617 {
		t.Errorf("getrandbits(64) = %d, want 13679192365072849617", got)
	}
}
