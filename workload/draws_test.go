package workload

import (
	"encoding/binary"
	"hash/fnv"
	"math"
	"testing"
)

// TestSourceDrawsPinned pins the requests a CDF source generates: an FNV-1a
// hash of every field of the first 200,000 requests of four specs that use
// every draw (length, fixed and normal split, one, two and five
// categories, Poisson, bursty and profile arrivals, session prefixes). The
// hashes were printed by this test at 233ad42, before the generator was
// made faster: a change of one draw anywhere changes them.
func TestSourceDrawsPinned(t *testing.T) {
	five := map[string]float64{"prose": 0.3, "code": 0.25, "cjk": 0.2, "rag": 0.15, "mixed": 0.1}
	cases := []struct {
		name string
		spec Spec
		want uint64
	}{
		{"azure-poisson-fixed", Spec{CDF: "azure", Rate: 1000}, 0x125f441497678083},
		{"agent-heavy-bursty-normal-5cat", Spec{CDF: "agent-heavy", Rate: 700, Arrival: "bursty", Split: "normal", Categories: five}, 0x1a556ddbb4f51c33},
		{"lmsys-sin-day-2cat", Spec{CDF: "lmsys", RateProfile: "sin:mean=500,ratio=3,period=24h,peak=14h",
			Categories: map[string]float64{"code": 0.5, "cjk": 0.5}}, 0x72ef74d1f61889e5},
		{"azure-sessions", Spec{CDF: "azure", Rate: 1000, SystemPromptTokens: 300, SessionTurns: 3}, 0x57c13bf4a8359a67},
	}
	for _, c := range cases {
		c.spec.Requests = 200_000
		src, err := NewSource(c.spec, 42)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		h := fnv.New64a()
		var b [8]byte
		put := func(v uint64) { binary.LittleEndian.PutUint64(b[:], v); h.Write(b[:]) }
		var r Request
		n := 0
		for src.Next(&r) {
			put(uint64(r.ID))
			put(math.Float64bits(r.Arrival))
			put(uint64(r.InputTokens))
			put(uint64(r.OutputTokens))
			put(uint64(r.MaxOutputTokens))
			put(uint64(r.Bytes))
			put(uint64(r.Category))
			if r.Prefix != nil {
				put(uint64(r.Prefix.Tokens))
				for _, x := range r.Prefix.Hashes {
					put(x)
				}
			}
			n++
		}
		if n != c.spec.Requests {
			t.Errorf("%s: %d requests, want %d", c.name, n, c.spec.Requests)
		}
		if got := h.Sum64(); got != c.want {
			t.Errorf("%s: draws hash %#x, want %#x", c.name, got, c.want)
		}
	}
}

// TestUnitFloatSameAsRand: unitFloat on a PCG gives rand.Rand.Float64's
// draws on the same PCG, bit for bit (1M draws of two seeds).
func TestUnitFloatSameAsRand(t *testing.T) {
	for _, seed := range []uint64{1, 0xdeadbeef} {
		p, r := newPCG(seed, StreamLengths), NewRand(seed, StreamLengths)
		for i := range 1_000_000 {
			if a, b := unitFloat(p), r.Float64(); math.Float64bits(a) != math.Float64bits(b) {
				t.Fatalf("seed %d draw %d: unitFloat %v, rand.Float64 %v", seed, i, a, b)
			}
		}
	}
}
