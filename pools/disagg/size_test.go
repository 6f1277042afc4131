package disagg

import (
	"math"
	"testing"

	"github.com/fleetsim/fleetsim/pools/catalog"
	"github.com/fleetsim/fleetsim/pools/queueing"
)

func repeat(l Lengths, n int) []Lengths {
	s := make([]Lengths, n)
	for i := range s {
		s[i] = l
	}
	return s
}

// TestSizeByHand: every request has L_in = 1,024, L_out = 101; C = 512,
// t_p = 50 ms, t_d = 20 ms, a 10 ms transfer. A prefill slot is held for
// S_p = 2·0.05 + 0.01 = 0.11 s, a decode slot for S_d = 100·0.02 = 2 s,
// both deterministic (Cs² = 0). At λ = 10/s with ρ_max = 0.85 and no wait
// targets: prefill ceil(10·0.11/(0.85·4)) = ceil(0.32) = 1 instance of 4
// slots (utilization 0.275), decode ceil(10·2/(0.85·16)) = ceil(1.47) = 2
// instances of 16 slots (utilization 0.625).
func TestSizeByHand(t *testing.T) {
	in := Input{Lambda: 10, Sample: repeat(Lengths{1024, 101}, 10), Chunk: 512,
		PrefillSlots: 4, PrefillIter: 0.05, DecodeSlots: 16, DecodeIter: 0.02,
		TransferS: func(int) float64 { return 0.01 },
		TTFTP99:   math.Inf(1), DecodeWaitP99: math.Inf(1), RhoMax: 0.85}
	r, err := Size(in)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(r.Prefill.MeanS-0.11) > 1e-12 || r.Prefill.Cs2 > 1e-12 || r.Prefill.GPUs != 1 || math.Abs(r.Prefill.Utilization-0.275) > 1e-12 {
		t.Errorf("prefill %+v, want S 0.11 s, Cs2 0, 1 instance at 0.275", r.Prefill)
	}
	if math.Abs(r.Decode.MeanS-2) > 1e-12 || r.Decode.GPUs != 2 || math.Abs(r.Decode.Utilization-0.625) > 1e-12 {
		t.Errorf("decode %+v, want S 2 s, 2 instances at 0.625", r.Decode)
	}
	// Half the requests with L_out = 1 never reach the decode stage: it
	// sees 5/s, ceil(5·2/13.6) = 1 instance; the prefill stage is unchanged.
	in.Sample = append(repeat(Lengths{1024, 101}, 5), repeat(Lengths{1024, 1}, 5)...)
	if r, err = Size(in); err != nil || r.Decode.Lambda != 5 || r.Decode.GPUs != 1 || r.Prefill.GPUs != 1 {
		t.Errorf("half single-token: %+v, %v", r, err)
	}
}

// TestSizeTTFTBudget: at λ = 100/s the cap alone needs
// ceil(100·0.11/3.4) = 4 prefill instances; a P99 TTFT target of 0.101 s
// leaves a P99 wait budget of 0.101 − 0.1 = 1 ms (the prefill itself takes
// 0.1 s; the transfer is not part of TTFT), which needs more: the answer is
// the first count whose Kimura P99 wait fits the budget.
func TestSizeTTFTBudget(t *testing.T) {
	in := Input{Lambda: 100, Sample: repeat(Lengths{1024, 101}, 3), Chunk: 512,
		PrefillSlots: 4, PrefillIter: 0.05, DecodeSlots: 16, DecodeIter: 0.02,
		TransferS: func(int) float64 { return 0.01 },
		TTFTP99:   0.101, DecodeWaitP99: math.Inf(1), RhoMax: 0.85}
	r, err := Size(in)
	if err != nil {
		t.Fatal(err)
	}
	n := r.Prefill.GPUs
	w := func(n int) float64 { return queueing.KimuraP99Wait(4*n, 1/0.11, 100, 0) }
	if math.Abs(r.Prefill.WaitS-0.001) > 1e-12 || n <= 4 || w(n) > 0.001 || w(n-1) <= 0.001 {
		t.Errorf("prefill %+v: want the first count above 4 with P99 wait <= 1 ms (wait(n) %v, wait(n-1) %v)", r.Prefill, w(n), w(n-1))
	}
	t.Logf("prefill instances %d (cap alone 4), P99 wait %.3g s", n, r.Prefill.P99Wait)
}

// TestSizeTransferFromCatalog: the transfer time of a Llama-3-70B prompt
// over a 50 GB/s link enters the prefill service time: 10,000 tokens,
// 0.065536 s (catalog.TestKVTransferLlama70B) on top of ceil(10000/512) = 20
// iterations of 50 ms.
func TestSizeTransferFromCatalog(t *testing.T) {
	m, err := catalog.LookupModel("llama-3-70b")
	if err != nil {
		t.Fatal(err)
	}
	link := catalog.KVLink{GBs: 50}
	r, err := Size(Input{Lambda: 1, Sample: []Lengths{{10000, 10}}, Chunk: 512,
		PrefillSlots: 8, PrefillIter: 0.05, DecodeSlots: 64, DecodeIter: 0.02,
		TransferS: func(n int) float64 { return link.TransferS(m, n) },
		TTFTP99:   math.Inf(1), DecodeWaitP99: math.Inf(1), RhoMax: 0.85})
	if err != nil {
		t.Fatal(err)
	}
	if want := 20*0.05 + 0.065536; math.Abs(r.Prefill.MeanS-want) > 1e-12 {
		t.Errorf("prefill service %v s, want %v", r.Prefill.MeanS, want)
	}
}

func TestSizeBadInput(t *testing.T) {
	ok := Input{Lambda: 1, Sample: []Lengths{{10, 10}}, Chunk: 512, PrefillSlots: 1, PrefillIter: 0.01,
		DecodeSlots: 1, DecodeIter: 0.01, TTFTP99: 1, DecodeWaitP99: 1, RhoMax: 0.85}
	if _, err := Size(ok); err != nil {
		t.Fatal(err)
	}
	for name, f := range map[string]func(*Input){
		"no sample":    func(in *Input) { in.Sample = nil },
		"chunk":        func(in *Input) { in.Chunk = 0 },
		"slots":        func(in *Input) { in.DecodeSlots = 0 },
		"iter":         func(in *Input) { in.PrefillIter = math.NaN() },
		"ttft":         func(in *Input) { in.TTFTP99 = 0 },
		"lengths":      func(in *Input) { in.Sample = []Lengths{{0, 1}} },
		"transfer":     func(in *Input) { in.TransferS = func(int) float64 { return -1 } },
		"budget below": func(in *Input) { in.TTFTP99 = 0.001 }, // the prefill alone takes 0.01 s
		"rho":          func(in *Input) { in.RhoMax = 1 },
	} {
		in := ok
		f(&in)
		if _, err := Size(in); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
