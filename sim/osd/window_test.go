package osd

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestWindowSameAsFIFO: the ring buffer gives back the points pushed in
// order, whatever the pattern: 200 random streams of up to 40,000 points
// (windows of 0.5 to 120 s, rates of 10 to 5,000 points/s that step up and
// down), pops by age and at random (so the ring wraps at every size, grows
// while wrapped, and empties), times that repeat, go backwards or are NaN
// or ±Inf. After every
// operation the count and the front's time match a plain slice's; every
// popped point is the one expected, bit for bit.
func TestWindowSameAsFIFO(t *testing.T) {
	r := rand.New(rand.NewPCG(20, 5))
	for trial := range 200 {
		secs := []float64{0.5, 5, 120, 0}[r.IntN(4)]
		w := newWindow()
		var ref []point
		x := 0.0
		rate := []float64{10, 300, 1000, 5000}[r.IntN(4)]
		n := r.IntN(40000)
		for i := range n {
			if r.IntN(5000) == 0 {
				rate = []float64{10, 300, 1000, 5000}[r.IntN(4)]
			}
			switch k := r.IntN(1000); {
			case k < 2:
				x -= r.Float64() // backwards
			case k == 2:
				x = []float64{math.NaN(), math.Inf(1), math.Inf(-1)}[r.IntN(3)]
			case k < 10: // same time
			default:
				x += r.ExpFloat64() / rate
			}
			p := point{x, float64(i)}
			w.push(p, 1)
			ref = append(ref, p)
			if math.IsNaN(x) || math.IsInf(x, 0) {
				x = float64(i) / rate // the odd time for this point only
			}
			// pops: by age (as setDuration), sometimes at random
			for len(ref) > 0 && (x-w.frontX > secs || r.IntN(50) == 0) {
				got := w.pop()
				want := ref[0]
				ref = ref[1:]
				if math.Float64bits(got.x) != math.Float64bits(want.x) || got.y != want.y {
					t.Fatalf("trial %d push %d: popped %v, want %v", trial, i, got, want)
				}
			}
			if w.n != len(ref) || len(w.buf) < w.n {
				t.Fatalf("trial %d push %d: %d points (buffer %d), want %d", trial, i, w.n, len(w.buf), len(ref))
			}
			front := math.Inf(1)
			if len(ref) > 0 {
				front = ref[0].x
			}
			if math.Float64bits(w.frontX) != math.Float64bits(front) {
				t.Fatalf("trial %d push %d: front %v, want %v", trial, i, w.frontX, front)
			}
		}
	}
}

// TestWindowBufferBounded: a window's buffer stays under twice the most
// points the window ever held (it doubles when full), whatever the rate
// does. A buffer sized ahead from a window's recent rate (branch osd5's
// prediction, not merged) overshoots when the rate drops or the run ends
// before the window fills, and fails this test. Cases: a 30 s run at 1,400 points/s with 120 s windows (a sweep point:
// no more than doubling's 65,536), a burst of 8,192 points over 7.5 s then
// 1 point/s (osd5's prediction reserved 144,179 points for a window that
// never held 8,400), and random streams whose rate changes by up to 500
// times mid-run, with windows of 0.5 s to 2,050 s.
func TestWindowBufferBounded(t *testing.T) {
	feed := func(w *window, secs, x float64, most *int) {
		w.push(point{x, 1}, 1)
		for x-w.frontX > secs {
			w.pop()
		}
		*most = max(*most, w.n)
	}
	w, most := newWindow(), 0
	for i := range 42000 {
		feed(&w, 120, float64(i)/1400, &most)
	}
	if len(w.buf) > 65536 {
		t.Errorf("30 s at 1,400 points/s: buffer %d points for at most %d, doubling gave 65,536", len(w.buf), most)
	}
	w, most = newWindow(), 0
	x := 0.0
	for i := range 8193 {
		x = 7.5 * float64(i) / 8192
		feed(&w, 120, x, &most)
	}
	for range 200 {
		x++
		feed(&w, 120, x, &most)
	}
	if len(w.buf) > 2*most {
		t.Errorf("burst then 1 point/s: buffer %d points for at most %d", len(w.buf), most)
	}
	r := rand.New(rand.NewPCG(20, 7))
	for trial := range 100 {
		secs := []float64{0.5, 5, 120, 2050}[r.IntN(4)]
		w, most = newWindow(), 0
		rate, x := 1000.0, 0.0
		for range r.IntN(60000) {
			if r.IntN(3000) == 0 {
				rate = []float64{10, 100, 1000, 5000}[r.IntN(4)]
			}
			x += r.ExpFloat64() / rate
			feed(&w, secs, x, &most)
			if len(w.buf) > max(64, 2*most) {
				t.Fatalf("trial %d (window %g s): buffer %d points for at most %d", trial, secs, len(w.buf), most)
			}
		}
	}
}
