package osd

import (
	"math"
	"math/rand/v2"
	"testing"
)

// sameBits reports whether two states are equal with their floats compared
// bit for bit.
func sameBits(a, b State) bool {
	fl := func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) }
	return fl(a.DurationS, b.DurationS) && a.ConcurrencyN == b.ConcurrencyN && a.TTFTN == b.TTFTN &&
		a.TTFTViolations == b.TTFTViolations &&
		fl(a.ConcurrencySlope, b.ConcurrencySlope) && fl(a.ConcurrencyMOE, b.ConcurrencyMOE) &&
		a.ConcurrencyEstimated == b.ConcurrencyEstimated &&
		fl(a.TTFTSlope, b.TTFTSlope) && fl(a.TTFTMOE, b.TTFTMOE) && a.TTFTEstimated == b.TTFTEstimated &&
		a.Alert == b.Alert && a.Evaluations == b.Evaluations
}

// pick returns one of vs or, one time in four, a uniform draw in [lo, hi).
func pick(r *rand.Rand, lo, hi float64, vs ...float64) float64 {
	if r.IntN(4) == 0 {
		return lo + (hi-lo)*r.Float64()
	}
	return vs[r.IntN(len(vs))]
}

// adversarialConfig draws a configuration with the edge values of every
// parameter: windows of 0 seconds and ratio 0 (every point dropped at
// once), ratio 1, minimum sizes 0 and 1, zero eps, confidence near 0 and 1.
func adversarialConfig(r *rand.Rand) Config {
	return Config{
		MinimumDuration:      pick(r, 0, 40, 0, 1, 30),
		MinimumTTFT:          pick(r, 0, 3, 0, 0.5, 2.5),
		MaximumWindowSeconds: pick(r, 0, 200, 0, 0.5, 5, 120),
		MOEThreshold:         pick(r, 0, 10, 0, 0.5, 2, 100),
		MaximumWindowRatio:   pick(r, 0, 1, 0, 0.3, 0.75, 1),
		MinimumWindowSize:    []int{0, 1, 3, 5, 50}[r.IntN(5)],
		Confidence:           pick(r, 0.01, 0.99, 0.5, 0.95, 0.999),
		Eps:                  pick(r, 0, 1e-6, 0, 1e-12, 1),
	}
}

// TestDetectorSameAsReference: the detector's fast paths (the age check
// against a front of +Inf when a window is empty, the early return before
// the slopes, the push without a call) leave every result as the detector
// of e0b03de (refDetector) computes it, bit for bit: after every event of
// 3,000 random streams the returned alert, the state (floats compared by
// their bits), Fired and the in-flight count are the same. The streams
// are adversarial: configurations with zero windows, ratios 0 and 1,
// minimum sizes 0 and 1, zero eps; times that repeat, jump ahead past the
// window, go backwards and sit before the origin; concurrencies that ramp
// up (so the alert fires and clears), go negative or come from Start;
// TTFTs equal to the violation threshold.
func TestDetectorSameAsReference(t *testing.T) {
	r := rand.New(rand.NewPCG(20, 1))
	events := 0
	fires := 0
	for range 3000 {
		cfg := adversarialConfig(r)
		origin := pick(r, -50, 50, 0, 100, 1e9)
		d, ref := New(cfg, origin), newRef(cfg, origin)
		x := origin + pick(r, -5, 5, 0, -1)
		ramp := r.Float64() < 0.5
		n := 1 + r.IntN(3000)
		for i := range n {
			switch u := r.Float64(); {
			case u < 0.6: // forward, often by nothing
				x += []float64{0, 0, 0.001, 0.01, 0.1, 1}[r.IntN(6)]
			case u < 0.97:
				x += r.ExpFloat64() * 0.05
			case u < 0.99:
				x += cfg.MaximumWindowSeconds * (0.5 + r.Float64()) // past the window
			default:
				x -= r.Float64() * 3 // backwards
			}
			y := pick(r, 0, 6, cfg.MinimumTTFT, 0, 1, 3)
			if ramp {
				y += float64(i) * 0.01
			}
			k, c := r.IntN(5), 0
			if k == 1 {
				c = r.IntN(50) - 5
				if ramp {
					c += i / 10
				}
			}
			events++
			if stepBoth(t, d, ref, k, x, y, c) {
				fires++
			}
		}
	}
	if fires == 0 {
		t.Fatal("no stream raised the alert")
	}
	t.Logf("%d events, %d in alert", events, fires)
}

// stepBoth feeds one event to d and to ref: kind 0 Start, 1 StartWith(x,
// c), 2 FirstToken(x, y), 3 End, else Observe. It fails t unless both give
// the same alert, state (floats by their bits), Fired and in-flight count,
// and returns the alert.
func stepBoth(t *testing.T, d *Detector, ref *refDetector, kind int, x, y float64, c int) bool {
	t.Helper()
	var a, b bool
	switch kind {
	case 0:
		a, b = d.Start(x), ref.start(x)
	case 1:
		a, b = d.StartWith(x, c), ref.startWith(x, c)
	case 2:
		a, b = d.FirstToken(x, y), ref.firstToken(x, y)
	case 3:
		a, b = d.End(x), ref.end(x)
	default:
		a, b = d.Observe(x), ref.observe(x)
	}
	fa, ta := d.Fired()
	if a != b || !sameBits(d.State(), ref.state()) || fa != ref.fired || math.Float64bits(ta) != math.Float64bits(ref.firedAt) || d.InFlight() != ref.inFlight {
		t.Fatalf("config %+v, origin %v: event %d at %v (y %v, c %d): alert %v, state %+v, fired %v at %v; reference %v, %+v, %v at %v",
			d.cfg, d.origin, kind, x, y, c, a, d.State(), fa, ta, b, ref.state(), ref.fired, ref.firedAt)
	}
	return a
}

// TestDetectorSameAsReferenceNonFinite: the fast paths rely on IEEE
// comparisons (an empty window's front is +Inf; dur - x > w is false for
// NaN), so the same comparison with the reference is made on streams whose
// times, origins and TTFTs are, one time in ten, NaN, ±Inf, ±0 or ±1e308
// (a library caller can pass them; the fleet never does).
func TestDetectorSameAsReferenceNonFinite(t *testing.T) {
	r := rand.New(rand.NewPCG(20, 3))
	specials := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1), 1e308, -1e308}
	special := func(v float64) float64 {
		if r.IntN(10) == 0 {
			return specials[r.IntN(len(specials))]
		}
		return v
	}
	for range 3000 {
		cfg := adversarialConfig(r)
		origin := special(pick(r, -50, 50, 0, 100))
		d, ref := New(cfg, origin), newRef(cfg, origin)
		x := origin
		for i := range 200 {
			x += r.ExpFloat64() * 0.3
			stepBoth(t, d, ref, r.IntN(5), special(x), special(pick(r, 0, 6, cfg.MinimumTTFT, 0, 1, 3)), i)
		}
	}
}
