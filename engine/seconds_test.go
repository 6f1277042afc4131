package engine

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// TestSecondsDecimalExact: a time written in decimal with at most 12
// fractional digits of a second (a trace's millisecond or microsecond
// timestamp) converts to exactly its picoseconds anywhere in the range, so
// that it ties exactly with an iteration start at that time (issue 7, bug
// 2). Multiplying by 10^12 and rounding gets 4,128,065.55 ms (hand-picked:
// a Mooncake-style timestamp 69 minutes into a trace, 4128.06555 s) one
// picosecond late, and the request waited one more iteration.
func TestSecondsDecimalExact(t *testing.T) {
	check := func(text string, want Time) {
		t.Helper()
		s, err := strconv.ParseFloat(text, 64)
		if err != nil {
			t.Fatal(err)
		}
		if got := Seconds(s); got != want {
			t.Errorf("Seconds(%s) = %d ps, want %d", text, got, want)
		}
	}
	check("4128.06555", 4_128_065_550_000_000)
	check("0.06055", 60_550_000_000)
	// The trace reader's path: milliseconds divided by 1000.
	if got, want := Seconds(4128065.55/1000), Time(4_128_065_550_000_000); got != want {
		t.Errorf("Seconds(4128065.55 ms / 1000) = %d ps, want %d", got, want)
	}
	rng := rand.New(rand.NewPCG(7, 7))
	bad := 0
	for i := 0; i < 100_000; i++ {
		var v int64 // picoseconds
		var text string
		switch i % 3 {
		case 0: // milliseconds, up to MaxArrival
			ms := rng.Int64N(int64(MaxArrival / 1_000_000_000))
			v, text = ms*1_000_000_000, strconv.FormatInt(ms, 10)+"e-3"
		case 1: // microseconds
			us := rng.Int64N(int64(MaxArrival / 1_000_000))
			v, text = us*1_000_000, strconv.FormatInt(us, 10)+"e-6"
		default: // milliseconds with two decimals below 2^53 ps
			x := rng.Int64N(1 << 53 / 10_000_000)
			v, text = x*10_000_000, strconv.FormatInt(x, 10)+"e-5"
		}
		s, _ := strconv.ParseFloat(text, 64)
		if got := Seconds(s); got != Time(v) {
			if bad++; bad <= 5 {
				t.Errorf("Seconds(%s) = %d ps, want %d", text, got, v)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of 100000 decimal times off", bad)
	}
}

// TestSecondsMonotone: a later time in seconds is never an earlier time in
// picoseconds (arrivals in order stay in order), and the conversion stays
// within a picosecond of s·10^12 wherever a double resolves picoseconds.
func TestSecondsMonotone(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 200_000; i++ {
		s := rng.Float64() * math.Pow(10, float64(rng.IntN(7)))
		n := math.Nextafter(s, math.Inf(1))
		if a, b := Seconds(s), Seconds(n); a > b {
			t.Fatalf("Seconds(%v) = %d > Seconds(%v) = %d", s, a, n, b)
		}
		if s < 1000 {
			if d := math.Abs(float64(Seconds(s)) - s*1e12); d > 1 {
				t.Fatalf("Seconds(%v) = %d, %v ps from s·10^12", s, Seconds(s), d)
			}
		}
	}
	if Seconds(math.Inf(1)) != Never || Seconds(math.NaN()) != 0 || Seconds(-1) != -Second {
		t.Error("saturation, NaN or sign")
	}
}

// TestSecondsBack: a time goes back to seconds as the double nearest to
// ps/10^12, so a decimal time reads back as that decimal: 4,000,000.0285 s
// (a result an arrival at the end of a 4·10^6 s trace gets) printed as
// 4000000.0284999995 when float64(ps) was rounded before the division.
func TestSecondsBack(t *testing.T) {
	if got := Time(4_000_000_028_500_000_000).Seconds(); got != 4000000.0285 {
		t.Errorf("4000000028500000000 ps = %v s, want 4000000.0285", got)
	}
	rng := rand.New(rand.NewPCG(9, 9))
	bad := 0
	for i := 0; i < 100_000; i++ {
		us := rng.Int64N(int64(MaxArrival / 1_000_000))
		want, _ := strconv.ParseFloat(strconv.FormatInt(us, 10)+"e-6", 64)
		if got := Time(us * 1_000_000).Seconds(); got != want {
			if bad++; bad <= 3 {
				t.Errorf("%d µs = %v s, want %v", us, got, want)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of 100000 off", bad)
	}
}

// roundestPSRef is roundestPS as of commit c9db118 (every power of ten
// tried from the largest down): the reference for its bisection.
func roundestPSRef(s float64) Time {
	hi := s * 1e12
	lo := math.FMA(s, 1e12, -hi)
	fh := math.Floor(hi)
	fl, fr := int64(fh), hi-fh
	below := (s - math.Nextafter(s, 0)) * 1e12 / 2
	above := (math.Nextafter(s, math.Inf(1)) - s) * 1e12 / 2
	in := func(q int64) bool {
		d := float64(fl-q) + fr + lo
		return d > -above && d < below
	}
	c := fl + int64(math.Round(fr+lo))
	first, last := c-int64(below)-2, c+int64(above)+2
	for k := len(pow10) - 1; k >= 0; k-- {
		m := pow10[k]
		for q := (first + m - 1) / m * m; q <= last; q += m {
			if in(q) {
				return Time(q)
			}
		}
	}
	return Time(math.Round(hi))
}

// TestRoundestPSBisection: the bisection over powers of ten gives the same
// picoseconds as trying every power (issue 20: Seconds past 4,096 s was
// 7.2% of a 10M-request run's CPU), on random doubles, decimal times and
// values next to them, from 4,096 s to 9.2e6 s.
func TestRoundestPSBisection(t *testing.T) {
	r := rand.New(rand.NewPCG(20, 1))
	check := func(s float64) {
		if got, want := roundestPS(s), roundestPSRef(s); got != want {
			t.Fatalf("roundestPS(%v) = %d, want %d", s, got, want)
		}
	}
	for range 200000 {
		s := 4096 + r.Float64()*math.Pow(10, 3+3*r.Float64())
		check(s)
		d := math.Round(s*1e3) / 1e3 // a millisecond timestamp
		check(d)
		check(math.Nextafter(d, 0))
		check(math.Nextafter(d, math.Inf(1)))
		check(float64(int64(s)))
	}
}
