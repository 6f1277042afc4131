package osd

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
)

// TestWindowSameAsFIFO: the ring buffer, whose size after a prediction is
// no power of two, gives back the points pushed in order, whatever the
// pattern: 200 random streams of up to 40,000 points (so predictions are
// made: windows of 0.5 to 120 s, rates of 10 to 5,000 points/s that step
// up and down), pops by age and at random (so the ring wraps at every
// size, grows while wrapped, and empties), times that repeat, go backwards
// or are NaN or ±Inf (no prediction may come from those). After every
// operation the count and the front's time match a plain slice's; every
// popped point is the one expected, bit for bit.
func TestWindowSameAsFIFO(t *testing.T) {
	r := rand.New(rand.NewPCG(20, 5))
	predicted := 0
	for trial := range 200 {
		secs := []float64{0.5, 5, 120, 0}[r.IntN(4)]
		w := newWindow(secs)
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
			prev := len(w.buf)
			w.push(p, 1)
			if len(w.buf) > 2*prev && prev > 0 {
				predicted++
			}
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
	if predicted < 25 {
		t.Errorf("%d growths by a prediction in 200 streams: the test does not reach them", predicted)
	}
	t.Logf("%d growths by a prediction", predicted)
}

// TestWindowGrowsOnceToFull: at a steady 1,000 points/s with guidellm's
// 120 s, a window holds ~120,000 points; the buffer is sized for them from
// the first thousands (a prediction), so all the buffers allocated on the
// way add up to less than 1.2 times the final one's points (doubling all
// the way to 131,072 allocates twice the final size: 262,080 points), and
// the final one holds at most 1.25 times the largest window.
func TestWindowGrowsOnceToFull(t *testing.T) {
	r := rand.New(rand.NewPCG(20, 6))
	w := newWindow(120)
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	x, most := 0.0, 0
	for range 200000 {
		x += r.ExpFloat64() / 1000
		w.push(point{x, 1}, 1)
		for x-w.frontX > 120 {
			w.pop()
		}
		most = max(most, w.n)
	}
	runtime.ReadMemStats(&ms1)
	const size = 16 // bytes per point
	allocated := float64(ms1.TotalAlloc-ms0.TotalAlloc) / size
	if allocated > 1.2*float64(len(w.buf)) || float64(len(w.buf)) > 1.25*float64(most) {
		t.Errorf("%.0f points allocated, final buffer %d points, largest window %d", allocated, len(w.buf), most)
	}
}
