package disagg

import (
	"math"
	"testing"

	"github.com/fleetsim/fleetsim/pools/catalog"
	"github.com/fleetsim/fleetsim/workload"
)

// TestSizePoolByHand: every request is L = 1,000 tokens (a one-bucket
// CDF), split 0.8 → L_in = 800, L_out = 200, on A100s at max context
// 4,096 (256 slots: catalog.GPU.Slots), kv timing, Llama-3-70B KV
// (327,680 B/token) over half the A100's 600 GB/s NVLink, λ = 100/s,
// ρ_max = 0.85. By hand:
//
//	t(L) = W + (H/8192)·256·L = 0.008 + 0.00065·256·1000/8192 = 0.0283125 s
//	S_p = ceil(800/512)·t + 800·327680/300e9 = 0.056625 + 0.000873813 = 0.057498813 s
//	S_d = 199·t = 5.6341875 s
//	prefill: 100·S_p = 5.75 Erlangs ≤ 0.85·256 → 1 instance, utilization 5.7498813/256 = 0.022460
//	decode: 100·S_d = 563.42 Erlangs, /217.6 = 2.59 → 3 instances, utilization 563.41875/768 = 0.733618
//
// With a P99 TTFT target of 0.05 s the prefill is taken at the load of 1
// instance, ϱ = 5.7498813/256 = 0.0224605: the prompt's own prefill alone,
// 2 iterations of W holding 512 and 800 tokens, 2·0.008 + (0.00065/8192)·
// 1,312 = 0.0161041 s, plus per iteration the other 255 slots' part, each
// busy with probability ϱ and holding L = 1,000 tokens: 2·0.0224605·
// 0.0203125·255/256 = 0.0009089 s; 0.0170130 s in all, and the Kimura
// wait of 256 servers at 5.75 Erlangs is 0: 1 instance, budget left
// 0.05 − 0.0170130 = 0.0329870 s. A target of 0.0161 s is not above the
// idle prefill: an error.
func TestSizePoolByHand(t *testing.T) {
	cdf, err := workload.NewCDF("one", []workload.Point{{Tokens: 999, F: 0}, {Tokens: 1000, F: 1}})
	if err != nil {
		t.Fatal(err)
	}
	g, err := catalog.LookupGPU("a100")
	if err != nil {
		t.Fatal(err)
	}
	link, err := catalog.DefaultKVLink("a100", g)
	if err != nil {
		t.Fatal(err)
	}
	kv, err := catalog.DefaultKVBytesPerToken(g)
	if err != nil || kv != 327680 || link.GBs != 300 {
		t.Fatalf("link %v GB/s, kv %v B (%v): want 300, 327680", link.GBs, kv, err)
	}
	p := Pool{CDF: cdf, Lo: 0, Hi: 4096, InputFraction: 0.8, Lambda: 100, GPU: g, MaxCtx: 4096,
		Timing: catalog.TimingKV, Link: link, KVBytesPerToken: kv, RhoMax: 0.85, Samples: 10}
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }
	for _, ttft := range []float64{0, 0.05} {
		p.TTFTP99 = ttft
		r, err := SizePool(p)
		if err != nil {
			t.Fatal(err)
		}
		if r.Slots != 256 || !near(r.Prefill.MeanS, 0.057498813333333) || r.Prefill.GPUs != 1 || !near(r.Prefill.Utilization, 5.7498813333333/256) {
			t.Errorf("ttft %v: prefill %+v (slots %d), want S_p 0.0574988 s, 1 instance", ttft, r.Prefill, r.Slots)
		}
		if !near(r.Decode.MeanS, 5.6341875) || r.Decode.GPUs != 3 || !near(r.Decode.Utilization, 563.41875/768) {
			t.Errorf("ttft %v: decode %+v, want S_d 5.6341875 s, 3 instances at 0.733618", ttft, r.Decode)
		}
	}
	if r, err := SizePool(p); err != nil || !near(r.Prefill.WaitS, 0.05-(0.016+0.00065/8192*1312)-2*5.7498813333333/256*0.0203125*255/256) || r.Prefill.P99Wait != 0 {
		t.Errorf("ttft 0.05: budget left %v s, P99 wait %v s (%v); want 0.0329870, 0", r.Prefill.WaitS, r.Prefill.P99Wait, err)
	}
	p.TTFTP99 = 0.0161
	if _, err := SizePool(p); err == nil {
		t.Error("TTFT target 0.0161 s, below the idle prefill's 0.0161041 s: accepted")
	}
	for name, f := range map[string]func(*Pool){
		"zero rate": func(p *Pool) { p.Lambda = 0 },
		"timing":    func(p *Pool) { p.Timing = "calibrated" }, // a hand-written profile has no calibration
		"link":      func(p *Pool) { p.Link.GBs = 0 },
		"slow link": func(p *Pool) { p.Link.GBs = 1e-300 }, // 4,095 tokens beyond catalog.MaxTransferS (was: Cs² NaN)
		"kv bytes":  func(p *Pool) { p.KVBytesPerToken = math.NaN() },
		"slice":     func(p *Pool) { p.Lo, p.Hi = 2000, 4096 },
		"ctx":       func(p *Pool) { p.MaxCtx = 1 << 30 },
	} {
		q := p
		q.TTFTP99 = 0
		f(&q)
		if _, err := SizePool(q); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
