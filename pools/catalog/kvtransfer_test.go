package catalog

import (
	"math"
	"testing"
)

// TestKVTransferLlama70B: issue 18's case. Llama-3-70B keeps
// 2·80·8·128·2 = 327,680 B of KV per token, so 10,000 tokens over 50 GB/s
// take 10,000 · 327,680 / 50e9 = 0.065536 s, plus the link's latency.
func TestKVTransferLlama70B(t *testing.T) {
	m, err := LookupModel("llama-3-70b")
	if err != nil {
		t.Fatal(err)
	}
	for _, lat := range []float64{0, 0.0005} {
		l := KVLink{GBs: 50, LatencyS: lat}
		if err := l.Validate(); err != nil {
			t.Fatal(err)
		}
		want := 10000*327680/50e9 + lat
		if got := l.TransferS(m, 10000); math.Abs(got-want) > 1e-15 {
			t.Errorf("latency %v: %v s, want %v s", lat, got, want)
		}
	}
	if got := (KVLink{GBs: 50}).TransferS(m, 10000); math.Abs(got-0.065536) > 1e-15 {
		t.Errorf("got %v s, want 0.065536 s", got)
	}
}

func TestKVLinkValidate(t *testing.T) {
	for _, tc := range []struct {
		l    KVLink
		want string
	}{
		{KVLink{GBs: -1}, "kv link: gb_s = -1, must be a finite number > 0 (bandwidth, GB/s)"},
		{KVLink{GBs: 0}, "kv link: gb_s = 0, must be a finite number > 0 (bandwidth, GB/s)"},
		{KVLink{GBs: math.NaN()}, "kv link: gb_s = NaN, must be a finite number > 0 (bandwidth, GB/s)"},
		{KVLink{GBs: 50, LatencyS: -0.1}, "kv link: latency_s = -0.1, must be a finite number >= 0 (seconds)"},
		{KVLink{GBs: 50, LatencyS: math.Inf(1)}, "kv link: latency_s = +Inf, must be a finite number >= 0 (seconds)"},
	} {
		if err := tc.l.Validate(); err == nil || err.Error() != tc.want {
			t.Errorf("%+v: got %v, want %q", tc.l, err, tc.want)
		}
	}
}
